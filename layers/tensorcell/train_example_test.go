package tensorcell_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/runs"
)

// Example_trainSpec trains a built-in tensor cell and the user's CPCell
// (registered as "cpcell" in example_test.go) as rtn train does, then
// evaluates and samples the saved models as rtn eval and rtn sample do.
func Example_trainSpec() {
	dir, err := os.MkdirTemp("", "models")
	check(err)
	defer os.RemoveAll(dir)
	for _, model := range []string{"cp2rnn", "cpcell"} {
		out := filepath.Join(dir, model)
		rep, err := runs.Train(runs.TrainSpec{Model: model, Hidden: 16, Rank: 8, Optim: optim.Config{LR: 0.01}, Epochs: 5, Seed: 1, Out: out})
		check(err)
		ev, err := runs.Eval(runs.EvalSpec{Model: out}) // the test split again, from the seed model.json records
		check(err)
		s, err := runs.Sample(runs.SampleSpec{Model: out, N: 2, Seed: 1, Temperature: 1, MaxLen: 20})
		check(err)
		fmt.Printf("%s: %d parameters, executor %s, validation loss %.4f (the automaton's %.4f), test loss %.4f, the same in eval: %v, samples %s %s\n",
			model, rep.Params, rep.Executor, rep.ValidLoss, *rep.OptimalLoss, rep.TestLoss, ev.Loss == rep.TestLoss, s.Samples[0].Text, s.Samples[1].Text)
	}
	// Output:
	// cp2rnn: 396 parameters, executor tape/float64, validation loss 0.8735 (the automaton's 0.8592), test loss 0.8882, the same in eval: true, samples dbabbcdadddabbbbddbc dbabacbbcbadabbcdbba
	// cpcell: 380 parameters, executor tape/float64, validation loss 0.9061 (the automaton's 0.8592), test loss 0.9249, the same in eval: true, samples badabcbadddaadbadbbc cbabadbddabbabbcdbba
}

// Example_predictor uses a trained model one sequence at a time: the
// next-symbol probabilities at every step, the log-likelihood of a
// sequence and samples.
func Example_predictor() {
	dir, err := os.MkdirTemp("", "model")
	check(err)
	defer os.RemoveAll(dir)
	_, err = runs.Train(runs.TrainSpec{Model: "cp2rnn", Hidden: 16, Optim: optim.Config{LR: 0.01}, Epochs: 5, Seed: 1, Out: dir})
	check(err)

	m, err := layers.LoadModel(dir)
	check(err)
	pr, err := m.NewPredictor()
	check(err)
	alpha := m.Config.Symbols // a, b, c, d
	abdb := []int{0, 1, 3, 1}
	exs, err := datasets.SymbolExamples(datasets.Symbols{Alphabet: alpha, Seqs: [][]int{abdb}})
	check(err)
	probs, err := pr.Predict(exs[0], nil) // [T * 4]: step t's distribution of symbol t
	check(err)
	for t := range exs[0].T {
		fmt.Printf("step %d: p(next) = %.3f\n", t, probs[t*4:(t+1)*4])
	}
	lp, err := pr.LogProb(exs[0])
	check(err)
	fmt.Printf("log p(abdb) = %.4f nats\n", lp)

	rng := rand.New(rand.NewPCG(1, 2))
	for _, cfg := range []layers.SampleConfig{
		{Temperature: 1, MaxLen: 20},
		{Temperature: 0.5, MaxLen: 20, Prefix: []int{0, 1}},
		{Temperature: 1, MaxLen: 20, Stop: []int{2}},
	} {
		s, err := pr.Sample(rng, cfg)
		check(err)
		text := ""
		for _, c := range s {
			text += alpha[c]
		}
		fmt.Printf("%+v: %s\n", cfg, text)
	}
	// Output:
	// step 0: p(next) = [0.013 0.027 0.018 0.942]
	// step 1: p(next) = [0.263 0.448 0.177 0.112]
	// step 2: p(next) = [0.630 0.095 0.169 0.106]
	// step 3: p(next) = [0.043 0.390 0.041 0.526]
	// log p(abdb) = -8.3274 nats
	// {Temperature:1 MaxLen:20 Stop:[] Prefix:[]}: dbadcdcddbbcbcbbcbdd
	// {Temperature:0.5 MaxLen:20 Stop:[] Prefix:[0 1]}: abadadadadadadadadad
	// {Temperature:1 MaxLen:20 Stop:[2] Prefix:[]}: dbc
}
