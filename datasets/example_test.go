package datasets_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/rtnlab/rtn/datasets"
)

// An epoch over the built-in task: bucket by length, pad, cut for
// truncated backpropagation through time.
func ExamplePFATask() {
	rng := rand.New(rand.NewPCG(1, 0))
	task, pdfa, err := datasets.PFATask(datasets.PFAConfig{}, rng)
	if err != nil {
		fmt.Println(err)
		return
	}
	h, _ := pdfa.EntropyRate()
	fmt.Printf("%s: In %d, Out %d, %d/%d/%d sequences\n", task.Name, task.In, task.Out, len(task.Train), len(task.Valid), len(task.Test))
	fmt.Printf("optimal %.3f, entropy rate %.3f, uniform %.3f nats/symbol\n", task.OptimalLoss, h, math.Log(float64(task.Out)))

	groups := datasets.BucketBatches(datasets.Lengths(task.Train), 32, rng)
	batches, err := datasets.MakeBatches(task, task.Train, groups)
	if err != nil {
		fmt.Println(err)
		return
	}
	steps := 0.0
	for _, b := range batches {
		for _, c := range b.Chunks(16) {
			steps += c.Steps()
		}
	}
	fmt.Println(len(batches), "batches,", steps == float64(datasets.NumSteps(task.Train)))
	// Output:
	// pfa: In 5, Out 4, 512/128/128 sequences
	// optimal 0.424, entropy rate 0.400, uniform 1.386 nats/symbol
	// 16 batches, true
}

func ExampleLoadText() {
	s, err := datasets.LoadText(strings.NewReader("abba\nbaab\n\ncab\n"), datasets.TextOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Alphabet, s.Seqs)
	_, err = datasets.LoadText(strings.NewReader("ab\nax\n"), datasets.TextOptions{Alphabet: []string{"a", "b"}})
	fmt.Println(err)
	// Output:
	// [a b c] [[0 1 1 0] [1 0 0 1] [2 0 1]]
	// datasets: line 2, column 2: symbol "x" is not in the alphabet
}
