package layers

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/rnn"
)

// BenchmarkTrainStep times one training step (forward, backward through
// time, gradient read-out) of the Elman RNN and the LSTM on piano-roll
// sized data: batch 32, 88 binary inputs and outputs, 100 steps, in one
// chunk graph. The optimizer update is benchmarked in package optim.
// Compilation happens once, before the timer starts.
func BenchmarkTrainStep(b *testing.B) {
	const batch, in, steps = 32, 88, 100
	for _, model := range []string{"rnn", "lstm"} {
		for _, hidden := range []int{32, 100} {
			b.Run(fmt.Sprintf("%s/H=%d", model, hidden), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				task := &datasets.Task{Name: "bench", In: in, Out: in, Kind: datasets.Binary}
				for i := 0; i < batch; i++ {
					e := datasets.Example{T: steps, X: make([]float64, steps*in), Y: make([]float64, steps*in)}
					for j := range e.X {
						e.X[j] = float64(rng.IntN(2))
						e.Y[j] = float64(rng.IntN(2))
					}
					task.Train = append(task.Train, e)
				}
				p := graph.NewParams()
				var cell graph.Cell
				var err error
				if model == "rnn" {
					cell, err = rnn.NewElman(p, "rnn", in, hidden, activation.Tanh)
				} else {
					cell, err = rnn.NewLSTM(p, "lstm", in, hidden)
				}
				if err != nil {
					b.Fatal(err)
				}
				seq, err := NewSequence(p, cell, in, datasets.Binary)
				if err != nil {
					b.Fatal(err)
				}
				for _, n := range p.Names() {
					_ = p.InitNormal(n, rng, 0.05)
				}
				prob, err := NewProblem(seq, task, ProblemConfig{Chunk: steps})
				if err != nil {
					b.Fatal(err)
				}
				idx := make([]int, batch)
				for i := range idx {
					idx[i] = i
				}
				g := p.Like()
				if _, err := prob.LossGrad(idx, g); err != nil { // compile
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := prob.LossGrad(idx, g); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
