package layers_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/params"
)

// cellByName returns the test cell of tapeCells named name, or rawCell
// (DiagCell with its nonlinearity through Builder.Do) for "raw".
func cellByName(t *testing.T, name string) anyCell {
	t.Helper()
	if name == "raw" {
		diag := cellByName(t, "diag")
		return anyCell{"raw", func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.Cell, error) {
			c, err := diag.make(p, in, hidden, rng)
			if err != nil {
				return nil, err
			}
			return &rawCell{*c.(*DiagCell)}, nil
		}}
	}
	for _, c := range tapeCells() {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no test cell %q", name)
	return anyCell{}
}

// TestProblemExecutor checks which executor a Problem reports, that the
// fall-back to the compiled graphs names the op that forced it and warns
// exactly once (not again for other batch sizes), that the other choices
// do not warn, and that the gradient each executor trains with passes
// graph.CheckProblem.
func TestProblemExecutor(t *testing.T) {
	const in, hidden, out = 3, 4, 3
	cases := []struct {
		cell   string
		cfg    layers.ProblemConfig
		want   layers.ExecutorInfo
		reason string // in want.Reason
		warns  int
	}{
		{"lstm", layers.ProblemConfig{}, layers.ExecutorInfo{Kind: layers.ExecFused, DType: graph.Float64}, "", 0},
		{"lstm", layers.ProblemConfig{DType: graph.Float32}, layers.ExecutorInfo{Kind: layers.ExecFused, DType: graph.Float32}, "", 0},
		{"lstm", layers.ProblemConfig{Executor: layers.ExecTape}, layers.ExecutorInfo{Kind: layers.ExecTape, DType: graph.Float64}, "", 0},
		{"lstm", layers.ProblemConfig{Executor: layers.ExecGraph}, layers.ExecutorInfo{Kind: layers.ExecGraph, DType: graph.Float64}, "ProblemConfig.Executor", 0},
		{"diag", layers.ProblemConfig{}, layers.ExecutorInfo{Kind: layers.ExecTape, DType: graph.Float64}, "", 0},
		{"diag", layers.ProblemConfig{DType: graph.Float32}, layers.ExecutorInfo{Kind: layers.ExecTape, DType: graph.Float32}, "", 0},
		{"raw", layers.ProblemConfig{}, layers.ExecutorInfo{Kind: layers.ExecGraph, DType: graph.Float64}, `Builder.Do("tanh") made node`, 1},
		{"raw", layers.ProblemConfig{Executor: layers.ExecGraph}, layers.ExecutorInfo{Kind: layers.ExecGraph, DType: graph.Float64}, "ProblemConfig.Executor", 0},
	}
	for _, tc := range cases {
		name := tc.cell + "/" + tc.want.String()
		if tc.cfg.Executor != "" {
			name += "/forced"
		}
		t.Run(name, func(t *testing.T) {
			task := fusedTask(datasets.Categorical, in, out, rand.New(rand.NewPCG(4, 1)))
			seq := anyModel(t, cellByName(t, tc.cell), task, hidden, 9)
			var log bytes.Buffer
			cfg := tc.cfg
			cfg.Log = &log
			prob, err := layers.NewProblem(seq, task, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := prob.Executor()
			if got.Kind != tc.want.Kind || got.DType != tc.want.DType || !strings.Contains(got.Reason, tc.reason) || (tc.reason == "") != (got.Reason == "") {
				t.Errorf("executor %+v, want %+v with a reason holding %q", got, tc.want, tc.reason)
			}
			for _, batch := range [][]int{{0, 1, 2}, {1}, {0, 2}} {
				if _, err := prob.LossGrad(batch, seq.Params.Like()); err != nil {
					t.Fatal(err)
				}
			}
			if n := strings.Count(log.String(), "\n"); n != tc.warns {
				t.Errorf("%d warnings, want %d: %q", n, tc.warns, log.String())
			}
			if tc.warns > 0 && !strings.Contains(log.String(), tc.reason) {
				t.Errorf("warning %q does not name the op (%q)", log.String(), tc.reason)
			}
			if prob.Executor() != got {
				t.Errorf("executor changed after training steps: %+v, was %+v", prob.Executor(), got)
			}
			if tc.want.DType == graph.Float64 {
				rep, err := graph.CheckProblem(prob, graph.CheckProblemOptions{FDOptions: graph.FDOptions{Tol: checkRelTol, MaxPerParam: 8}})
				if err != nil {
					t.Error(err)
				}
				if rep.WorstRel.RelErr > checkRelTol {
					t.Errorf("worst relative error %v", rep.WorstRel)
				}
			}
		})
	}
}

// wrongGradient is a Problem whose gradient is off by a relative amount
// in one parameter: what CheckProblem must catch.
type wrongGradient struct {
	*layers.Problem
	param string
	by    float64
}

func (w wrongGradient) LossGrad(batch []int, grads *params.Params) (float64, error) {
	l, err := w.Problem.LossGrad(batch, grads)
	for i := range grads.Data(w.param) {
		grads.Data(w.param)[i] *= 1 + w.by
	}
	return l, err
}

// TestCheckProblemCatchesWrongGradient checks that graph.CheckProblem
// reports a gradient 1% off in one parameter, on a kernel and on the tape,
// and names that parameter as the worst.
func TestCheckProblemCatchesWrongGradient(t *testing.T) {
	const in, hidden, out = 3, 4, 3
	for _, tc := range []struct{ cell, param string }{{"lstm", "lstm/U"}, {"diag", "d"}} {
		t.Run(tc.cell, func(t *testing.T) {
			task := fusedTask(datasets.Categorical, in, out, rand.New(rand.NewPCG(4, 1)))
			seq := anyModel(t, cellByName(t, tc.cell), task, hidden, 9)
			prob, err := layers.NewProblem(seq, task, layers.ProblemConfig{})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := graph.CheckProblem(wrongGradient{prob, tc.param, 0.01}, graph.CheckProblemOptions{})
			var ge *graph.GradientError
			if !errors.As(err, &ge) {
				t.Fatalf("error %v, want a *graph.GradientError", err)
			}
			if rep.WorstRel.Param != tc.param || rep.WorstRel.RelErr < 1e-3 {
				t.Errorf("worst entry %v, want one of %s with an error near 1e-2", rep.WorstRel, tc.param)
			}
			for _, m := range ge.Mismatches {
				if m.Param != tc.param {
					t.Errorf("mismatch in %s: %v", m.Param, m)
				}
			}
		})
	}
}
