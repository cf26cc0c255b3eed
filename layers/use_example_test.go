package layers_test

import (
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers"
	_ "github.com/rtnlab/rtn/layers/rnn" // registers rnn, lstm and gru
	"github.com/rtnlab/rtn/optim"
)

// Example_useAfterTraining trains a two-layer LSTM made by name on the
// built-in automaton task, saves it, loads it back, and evaluates and
// samples the loaded model.
func Example_useAfterTraining() {
	rng := rand.New(rand.NewPCG(1, 2))
	task, _, err := datasets.PFATask(datasets.PFAConfig{Train: 64}, rng)
	if err != nil {
		panic(err)
	}
	m, err := layers.NewModel(layers.ModelConfig{Cell: "lstm", Config: layers.CellConfig{In: task.In, Hidden: 8},
		Layers: 2, Out: task.Out, Kind: task.Kind.String(), Input: layers.InputNextSymbol, Symbols: task.Symbols}, rng)
	if err != nil {
		panic(err)
	}
	prob, err := layers.NewProblem(m.Seq, task, m.Config.ProblemConfig())
	if err != nil {
		panic(err)
	}
	opt, _ := optim.New("adam", optim.Config{LR: 0.01})
	tr, err := optim.NewTrainer(prob, opt, optim.TrainConfig{Epochs: 2, BatchSize: 16, Seed: 1})
	if err != nil {
		panic(err)
	}
	if _, err := tr.Run(); err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "model")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := m.Save(dir); err != nil {
		panic(err)
	}

	loaded, err := layers.LoadModel(dir)
	if err != nil {
		panic(err)
	}
	pr, err := loaded.NewPredictor()
	if err != nil {
		panic(err)
	}
	ex := task.Test[0]
	lp, err := pr.LogProb(ex)
	if err != nil {
		panic(err)
	}
	want, err := prob.Evaluate(task.Test[:1])
	if err != nil {
		panic(err)
	}
	s, err := pr.Sample(rand.New(rand.NewPCG(3, 4)), layers.SampleConfig{Temperature: 1, MaxLen: 10, Prefix: []int{0, 1}})
	if err != nil {
		panic(err)
	}
	fmt.Println("executor:", pr.Executor())
	fmt.Println("same loss after loading:", -lp/float64(ex.T) == want)
	fmt.Println("sample length:", len(s), "starts with a b:", s[0] == 0 && s[1] == 1)
	// Output:
	// executor: tape
	// same loss after loading: true
	// sample length: 10 starts with a b: true
}
