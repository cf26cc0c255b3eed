package layers_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/params"
)

// dropCell is DiagCell with dropout on its input product and on its state:
//
//	h' = tanh(drop(x W) + drop(h) * d + b)
type dropCell struct {
	DiagCell
	rate float64
}

func (c *dropCell) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	xw := b.Dropout(b.Mul(x, b.Param(c.P, "W")), c.rate)
	z := b.Add(xw, b.MulRow(b.Dropout(h[0], c.rate/2), b.Param(c.P, "d")))
	return []*G.Node{b.Tanh(b.AddRow(z, b.Param(c.P, "b")))}
}

func dropModel(t *testing.T, task *datasets.Task, rate float64) *layers.Sequence {
	t.Helper()
	c := anyCell{"drop", func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.Cell, error) {
		d, err := tapeCells()[len(fusedCells())].make(p, in, hidden, rng)
		if err != nil {
			return nil, err
		}
		return &dropCell{*d.(*DiagCell), rate}, nil
	}}
	return anyModel(t, c, task, 4, 8)
}

// TestDropoutExecutors checks dropout in a cell: the tape and the graphs
// draw the same masks (losses and gradients agree), checkpoints change no
// bit, the seed changes the training loss, and held-out data is evaluated
// without noise (the loss of the same cell with rate 0).
func TestDropoutExecutors(t *testing.T) {
	task := fusedTask(datasets.Categorical, 3, 3, rand.New(rand.NewPCG(8, 1)))
	task.Valid = task.Train
	seq := dropModel(t, task, 0.4)
	run := func(cfg layers.ProblemConfig, seed uint64) (float64, *params.Params) {
		prob, err := layers.NewProblem(seq, task, cfg)
		if err != nil {
			t.Fatal(err)
		}
		prob.SetNoiseSeed(seed)
		g := seq.Params.Like()
		l, err := prob.LossGrad([]int{0, 1, 2}, g)
		if err != nil {
			t.Fatal(err)
		}
		return l, g
	}
	for _, cfg := range []layers.ProblemConfig{{}, {Checkpoint: 2}, {Chunk: 3, Checkpoint: 4}, {DType: graph.Float32}} {
		gotL, got := run(cfg, 5)
		wantL, want := run(layers.ProblemConfig{Executor: layers.ExecGraph, Chunk: cfg.Chunk}, 5)
		tol := recurrenceTol
		if cfg.DType == graph.Float32 {
			tol = 1e-5 // float32 sums of a few terms of order 1
		}
		if math.Abs(gotL-wantL) > tol*math.Max(1, math.Abs(wantL)) {
			t.Errorf("%+v: loss %.17g, graphs %.17g", cfg, gotL, wantL)
		}
		compareGrads(t, fmt.Sprintf("%+v", cfg), seq.Params, got, want, tol)
	}
	l5, _ := run(layers.ProblemConfig{}, 5)
	l6, _ := run(layers.ProblemConfig{}, 6)
	if l5 == l6 {
		t.Error("seeds 5 and 6 give the same training loss")
	}
	if c5, _ := run(layers.ProblemConfig{Checkpoint: 2}, 5); c5 != l5 {
		t.Errorf("checkpoints: loss %v, without %v", c5, l5)
	}

	noDrop := dropModel(t, task, 0)
	for _, exec := range []string{layers.ExecTape, layers.ExecGraph} {
		var losses [2]float64
		for i, s := range []*layers.Sequence{seq, noDrop} {
			prob, err := layers.NewProblem(s, task, layers.ProblemConfig{Executor: exec})
			if err != nil {
				t.Fatal(err)
			}
			prob.SetNoiseSeed(5)
			if _, err := prob.LossGrad([]int{0, 1}, s.Params.Like()); err != nil {
				t.Fatal(err)
			}
			if losses[i], err = prob.ValidationLoss(); err != nil {
				t.Fatal(err)
			}
		}
		if losses[0] != losses[1] {
			t.Errorf("%s: validation loss %v with dropout, %v without: evaluation is not noise-free", exec, losses[0], losses[1])
		}
	}
}
