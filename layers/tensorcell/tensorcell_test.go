package tensorcell_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	_ "github.com/rtnlab/rtn/layers/tensorcell"
	"github.com/rtnlab/rtn/params"
)

const (
	// execTol bounds the tape against the graphs (loss and gradients).
	execTol = 1e-11
	// fdTol bounds CheckProblem's worst relative error (the issue asks
	// 1e-6 of a user's cell).
	fdTol = 1e-6
	// f32Tol bounds the float32 tape against the float64 one (relative to
	// the gradient's largest entry).
	f32Tol = 1e-4
)

// cellCase is a registered cell and its configuration.
type cellCase struct {
	model string
	cfg   layers.CellConfig
}

func cellCases() []cellCase {
	return []cellCase{
		{"cp2rnn", layers.CellConfig{Hidden: 5, Rank: 3}},
		{"cp2rnn", layers.CellConfig{Hidden: 4, Activation: "identity"}},
		{"hotrnn", layers.CellConfig{Hidden: 4}},
		{"hotrnn", layers.CellConfig{Hidden: 3, Order: 3, Lags: 3, Rank: 2}},
		{"hotrnn", layers.CellConfig{Hidden: 3, Order: 1, Lags: 1, Rank: 2}},
		{"mirnn", layers.CellConfig{Hidden: 5}},
		{"mpscell", layers.CellConfig{Hidden: 4}},
	}
}

// task is next-symbol prediction over 4 symbols: sequences of lengths 5,
// 9 and 7 (masked in a batch), one-hot inputs of width 5.
func task(rng *rand.Rand) *datasets.Task {
	const in, out = 5, 4
	t := &datasets.Task{Name: "cells", In: in, Out: out, Kind: datasets.Categorical}
	for _, T := range []int{5, 9, 7} {
		e := datasets.Example{T: T, X: make([]float64, T*in), Y: make([]float64, T)}
		for s := range T {
			e.X[s*in+rng.IntN(in)] = 1
			e.Y[s] = float64(rng.IntN(out))
		}
		t.Train = append(t.Train, e)
	}
	return t
}

func model(t *testing.T, c cellCase, tk *datasets.Task) *layers.Sequence {
	t.Helper()
	rng := rand.New(rand.NewPCG(4, 4))
	p := params.New()
	cfg := c.cfg
	cfg.In = tk.In
	cell, err := layers.NewCell(c.model, p, c.model, cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := layers.NewSequence(p, cell, tk.Out, tk.Kind)
	if err != nil {
		t.Fatal(err)
	}
	if err := seq.InitHead(rng); err != nil {
		t.Fatal(err)
	}
	return seq
}

func lossGrad(t *testing.T, seq *layers.Sequence, tk *datasets.Task, cfg layers.ProblemConfig) (float64, *params.Params, *layers.Problem) {
	t.Helper()
	prob, err := layers.NewProblem(seq, tk, cfg)
	if err != nil {
		t.Fatal(err)
	}
	g := seq.Params.Like()
	l, err := prob.LossGrad([]int{0, 1, 2}, g)
	if err != nil {
		t.Fatal(err)
	}
	return l, g, prob
}

// TestCells checks each tensor cell: it runs on the tape (no kernel, no
// fall-back), the tape agrees with the graphs with full and truncated
// BPTT and checkpoints, CheckProblem's worst relative error is below 1e-6,
// and the float32 tape is close to the float64 one.
func TestCells(t *testing.T) {
	for _, c := range cellCases() {
		t.Run(fmt.Sprintf("%s/%+v", c.model, c.cfg), func(t *testing.T) {
			tk := task(rand.New(rand.NewPCG(1, 1)))
			seq := model(t, c, tk)
			for _, pc := range []layers.ProblemConfig{{}, {Chunk: 3}, {Checkpoint: 4}} {
				gl, gg, _ := lossGrad(t, seq, tk, layers.ProblemConfig{Executor: layers.ExecGraph, Chunk: pc.Chunk})
				tl, tg, prob := lossGrad(t, seq, tk, pc)
				if e := prob.Executor(); e.Kind != layers.ExecTape {
					t.Fatalf("executor %+v, want the tape", e)
				}
				if math.Abs(tl-gl) > execTol {
					t.Errorf("%+v: loss %.17g, graphs %.17g", pc, tl, gl)
				}
				compare(t, fmt.Sprintf("%+v against the graphs", pc), seq.Params, tg, gg, execTol)
			}
			_, _, prob := lossGrad(t, seq, tk, layers.ProblemConfig{})
			rep, err := graph.CheckProblem(prob, graph.CheckProblemOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.WorstRel.RelErr > fdTol {
				t.Errorf("finite differences: %v", rep)
			}
			_, g64, _ := lossGrad(t, seq, tk, layers.ProblemConfig{})
			_, g32, _ := lossGrad(t, seq, tk, layers.ProblemConfig{DType: graph.Float32})
			compare(t, "float32", seq.Params, g32, g64, f32Tol*g64.Norm())
		})
	}
}

// compare checks that every gradient entry of got is within tol (times
// max(1, |want|)) of want's.
func compare(t *testing.T, what string, p, got, want *params.Params, tol float64) {
	t.Helper()
	if want.Norm() == 0 {
		t.Fatalf("%s: the reference gradient is zero", what)
	}
	for _, n := range p.Names() {
		for i, v := range got.Data(n) {
			if w := want.Data(n)[i]; math.Abs(v-w) > tol*math.Max(1, math.Abs(w)) {
				t.Fatalf("%s: %s[%d] = %.17g, want %.17g", what, n, i, v, w)
			}
		}
	}
}

// TestCellConfigs checks that each cell refuses the configuration fields
// it does not read, and bad sizes.
func TestCellConfigs(t *testing.T) {
	bad := []cellCase{
		{"cp2rnn", layers.CellConfig{Hidden: 4, Order: 2}},
		{"cp2rnn", layers.CellConfig{Hidden: 4, Activation: "relu"}},
		{"hotrnn", layers.CellConfig{Hidden: 4, Activation: "tanh"}},
		{"mirnn", layers.CellConfig{Hidden: 4, Rank: 2}},
		{"mpscell", layers.CellConfig{Hidden: 4, Lags: 2}},
	}
	for _, c := range bad {
		cfg := c.cfg
		cfg.In = 3
		if _, err := layers.NewCell(c.model, params.New(), c.model, cfg, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("%s %+v: no error", c.model, c.cfg)
		}
	}
}

// TestCellsNoAllocations checks that a training run of each cell on the
// tape allocates nothing once its buffers have grown.
func TestCellsNoAllocations(t *testing.T) {
	for _, c := range cellCases() {
		t.Run(fmt.Sprintf("%s/%+v", c.model, c.cfg), func(t *testing.T) {
			tk := task(rand.New(rand.NewPCG(2, 1)))
			seq := model(t, c, tk)
			bt, err := datasets.MakeBatch(tk, tk.Train, []int{0, 1, 2})
			if err != nil {
				t.Fatal(err)
			}
			r, err := seq.TapeRecurrence(bt.B, graph.RecurrenceConfig{Checkpoint: 3})
			if err != nil {
				t.Fatal(err)
			}
			aux := make([][][]float64, bt.T)
			for s := range aux {
				aux[s] = [][]float64{bt.Y[s], bt.Mask[s]}
			}
			g := seq.Params.Like()
			run := func() {
				if _, err := r.Run(bt.X, aux, g); err != nil {
					t.Fatal(err)
				}
			}
			run()
			if n := testing.AllocsPerRun(5, run); n != 0 {
				t.Errorf("%v allocations per run of %d steps, want 0", n, bt.T)
			}
		})
	}
}
