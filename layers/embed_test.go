package layers_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/params"
)

// TestEmbedModel checks a next-symbol model with an embedding (a stack of
// two LSTMs on EmbedCell): the tape and the graphs agree, the training
// gradient passes the finite-difference check, LogProb is -T times the
// evaluated loss bit for bit, a saved and loaded model evaluates to the
// same bits, and samples feed codes back.
func TestEmbedModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	task, _, err := datasets.PFATask(datasets.PFAConfig{}, rng)
	if err != nil {
		t.Fatal(err)
	}
	task.Train, task.Valid, task.Test = task.Train[:6], task.Valid[:3], task.Test[:3]
	cfg := layers.ModelConfig{Cell: "lstm", Config: layers.CellConfig{In: task.In, Hidden: 5}, Layers: 2, Out: task.Out,
		Kind: task.Kind.String(), Input: layers.InputNextSymbol, Symbols: task.Symbols, Embed: 4}
	m, err := layers.NewModel(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Seq.Cell.(*layers.EmbedCell); !ok || m.Seq.Cell.InputSize() != 1 {
		t.Fatalf("cell %T with input width %d, want an EmbedCell reading codes", m.Seq.Cell, m.Seq.Cell.InputSize())
	}
	data, err := m.Inputs(task)
	if err != nil {
		t.Fatal(err)
	}
	var losses [2]float64
	var grads [2]*params.Params
	for i, exec := range []string{layers.ExecTape, layers.ExecGraph} {
		prob, err := layers.NewProblem(m.Seq, data, layers.ProblemConfig{Executor: exec})
		if err != nil {
			t.Fatal(err)
		}
		g := m.Seq.Params.Like()
		if losses[i], err = prob.LossGrad([]int{0, 1, 2}, g); err != nil {
			t.Fatal(err)
		}
		grads[i] = g
		if exec == layers.ExecTape {
			rep, err := graph.CheckProblem(prob, graph.CheckProblemOptions{})
			if err != nil || rep.WorstRel.RelErr > 1e-6 {
				t.Errorf("finite differences: %v, %v", rep, err)
			}
		}
	}
	if math.Abs(losses[0]-losses[1]) > recurrenceTol {
		t.Errorf("loss: tape %.17g, graphs %.17g", losses[0], losses[1])
	}
	compareGrads(t, "tape against graphs", m.Seq.Params, grads[0], grads[1], recurrenceTol)

	prob, err := layers.NewProblem(m.Seq, data, layers.ProblemConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := prob.TestLoss()
	if err != nil {
		t.Fatal(err)
	}
	pr, err := m.NewPredictor()
	if err != nil {
		t.Fatal(err)
	}
	ex := data.Test[0]
	lp, err := pr.LogProb(ex)
	if err != nil {
		t.Fatal(err)
	}
	if one, _ := prob.Evaluate(data.Test[:1]); -lp/float64(ex.T) != one {
		t.Errorf("LogProb %v over %d steps, evaluated loss %v", lp, ex.T, one)
	}
	dir := t.TempDir()
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, err := layers.LoadModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	bprob, err := layers.NewProblem(back.Seq, data, layers.ProblemConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := bprob.TestLoss(); got != want {
		t.Errorf("loaded model's test loss %v, saved %v", got, want)
	}
	s, err := pr.Sample(rand.New(rand.NewPCG(1, 2)), layers.SampleConfig{Temperature: 1, MaxLen: 12})
	if err != nil || len(s) != 12 {
		t.Fatalf("sample %v, %v", s, err)
	}
}

// TestEmbedConfig checks that an embedding of inputs that are not symbols,
// or of negative width, is refused naming the field.
func TestEmbedConfig(t *testing.T) {
	for _, cfg := range []layers.ModelConfig{
		{Cell: "lstm", Config: layers.CellConfig{In: 5, Hidden: 3}, Out: 4, Kind: "categorical", Embed: 2},
		{Cell: "lstm", Config: layers.CellConfig{In: 5, Hidden: 3}, Out: 4, Kind: "categorical", Input: layers.InputNextSymbol, Embed: -1},
	} {
		if _, err := layers.NewModel(cfg, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), `field "embed"`) {
			t.Errorf("embed %d, input %q: error %v", cfg.Embed, cfg.Input, err)
		}
	}
}

// TestStackDropout checks dropout between stacked cells: the tape and the
// graphs draw the same masks while training (losses and gradients agree),
// the training loss depends on the seed, held-out data is evaluated
// without it (the loss of the same parameters without dropout), and a
// rate without a stack is refused.
func TestStackDropout(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	task, _, err := datasets.PFATask(datasets.PFAConfig{}, rng)
	if err != nil {
		t.Fatal(err)
	}
	task.Train, task.Valid, task.Test = task.Train[:4], task.Valid[:3], task.Test[:3]
	cfg := layers.ModelConfig{Cell: "gru", Config: layers.CellConfig{In: task.In, Hidden: 5}, Layers: 3, Out: task.Out,
		Kind: task.Kind.String(), Input: layers.InputNextSymbol, Symbols: task.Symbols, Dropout: 0.3}
	m, err := layers.NewModel(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	run := func(exec string, seed uint64) (float64, *params.Params, float64) {
		prob, err := layers.NewProblem(m.Seq, task, layers.ProblemConfig{Executor: exec})
		if err != nil {
			t.Fatal(err)
		}
		prob.SetNoiseSeed(seed)
		g := m.Seq.Params.Like()
		l, err := prob.LossGrad([]int{0, 1, 2}, g)
		if err != nil {
			t.Fatal(err)
		}
		v, err := prob.ValidationLoss()
		if err != nil {
			t.Fatal(err)
		}
		return l, g, v
	}
	tl, tg, tv := run(layers.ExecTape, 7)
	gl, gg, _ := run(layers.ExecGraph, 7)
	if math.Abs(tl-gl) > recurrenceTol {
		t.Errorf("loss: tape %.17g, graphs %.17g", tl, gl)
	}
	compareGrads(t, "tape against graphs", m.Seq.Params, tg, gg, recurrenceTol)
	if l8, _, _ := run(layers.ExecTape, 8); l8 == tl {
		t.Error("seeds 7 and 8 give the same training loss")
	}
	cfg.Dropout = 0
	plain, err := layers.NewModel(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	prob, err := layers.NewProblem(plain.Seq, task, layers.ProblemConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := prob.ValidationLoss(); v != tv {
		t.Errorf("validation loss %v with dropout, %v without: evaluation is not noise-free", tv, v)
	}
	cfg.Dropout, cfg.Layers = 0.3, 1
	if _, err := layers.NewModel(cfg, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), `field "dropout"`) {
		t.Errorf("dropout with one layer: error %v", err)
	}
}
