package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// Tolerances of the checker's own tests.
const (
	// smoothRelTol bounds the worst relative error the default options
	// give on a smooth float64 loss with a correct gradient.
	smoothRelTol = 1e-8
	// smallGradScale scales a loss so that every gradient entry is far
	// below 1, where an absolute tolerance would accept any error.
	smallGradScale = 1e-6
)

// sinProblem is the loss scale * mean over the batch of
// sum_j sin(x_j * a_ij) with examples a_i, and its gradient; wrong, when
// set, multiplies one gradient entry by 1 + wrong.
type sinProblem struct {
	p     *params.Params
	a     [][]float64
	scale float64
	wrong float64
}

func newSinProblem(rng *rand.Rand, n, dim int, scale float64) *sinProblem {
	p := params.New()
	if _, err := p.Add("x", dim); err != nil {
		panic(err)
	}
	if err := p.InitNormal("x", rng, 1); err != nil {
		panic(err)
	}
	sp := &sinProblem{p: p, scale: scale}
	for range n {
		row := make([]float64, dim)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		sp.a = append(sp.a, row)
	}
	return sp
}

func (s *sinProblem) Params() *params.Params { return s.p }
func (s *sinProblem) NumExamples() int       { return len(s.a) }

func (s *sinProblem) Loss(batch []int) (float64, error) { return s.LossGrad(batch, nil) }

func (s *sinProblem) LossGrad(batch []int, grads *params.Params) (float64, error) {
	x := s.p.Data("x")
	var g []float64
	if grads != nil {
		g = grads.Data("x")
		clear(g)
	}
	c := s.scale / float64(len(batch))
	var sum float64
	for _, i := range batch {
		for j, v := range x {
			sum += math.Sin(v * s.a[i][j])
			if g != nil {
				g[j] += c * s.a[i][j] * math.Cos(v*s.a[i][j])
			}
		}
	}
	if g != nil {
		g[1] *= 1 + s.wrong
	}
	return c * sum, nil
}

var _ Problem = (*sinProblem)(nil)

// TestCheckProblem checks the report and the verdict on correct and wrong
// gradients, at the scale of a mean loss and far below it (where the
// former checker, with errors relative to max(1, |gradient|), accepted a
// gradient off by 1%).
func TestCheckProblem(t *testing.T) {
	cases := []struct {
		name         string
		scale, wrong float64
		batch        []int
		fail         bool
	}{
		{"correct", 1, 0, nil, false},
		{"correct-small", smallGradScale, 0, nil, false},
		{"correct-batch", 1, 0, []int{5, 2}, false},
		{"wrong-1%", 1, 0.01, nil, true},
		{"wrong-1%-small", smallGradScale, 0.01, nil, true},
		{"wrong-1e-6", 1, 1e-6, nil, false}, // below the tolerance: accepted
		{"wrong-1e-4", 1, 1e-4, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sp := newSinProblem(rand.New(rand.NewPCG(3, 4)), 6, 5, tc.scale)
			sp.wrong = tc.wrong
			before := append([]float64(nil), sp.p.Data("x")...)
			rep, err := CheckProblem(sp, CheckProblemOptions{Batch: tc.batch})
			if rep.Checked != 5 {
				t.Errorf("checked %d entries, want 5", rep.Checked)
			}
			for j, v := range sp.p.Data("x") {
				if v != before[j] {
					t.Fatalf("x[%d] = %v after the check, was %v", j, v, before[j])
				}
			}
			var ge *GradientError
			if !tc.fail {
				if err != nil {
					t.Fatal(err)
				}
				if rep.WorstRel.RelErr > math.Max(smoothRelTol, tc.wrong) {
					t.Errorf("worst relative error %v: %v", rep.WorstRel.RelErr, rep)
				}
				return
			}
			if !errors.As(err, &ge) {
				t.Fatalf("error %v, want a *GradientError", err)
			}
			if len(ge.Mismatches) != 1 || ge.Mismatches[0].Index != 1 || rep.WorstRel.Param != "x" || rep.WorstRel.Index != 1 {
				t.Errorf("mismatches %v, worst %v: want x[1] alone", ge.Mismatches, rep.WorstRel)
			}
			if want := tc.wrong / (1 + tc.wrong); math.Abs(rep.WorstRel.RelErr-want) > 1e-3*want {
				t.Errorf("worst relative error %v, want %v", rep.WorstRel.RelErr, want)
			}
		})
	}
}

// TestCheckProblemErrors checks that a batch outside the problem and a
// problem without examples are refused.
func TestCheckProblemErrors(t *testing.T) {
	sp := newSinProblem(rand.New(rand.NewPCG(1, 1)), 3, 2, 1)
	if _, err := CheckProblem(sp, CheckProblemOptions{Batch: []int{0, 3}}); err == nil {
		t.Error("batch with example 3 of 3: no error")
	}
	sp.a = nil
	if _, err := CheckProblem(sp, CheckProblemOptions{}); err == nil {
		t.Error("no examples: no error")
	}
}

// TestCheckGradientsZero checks that an entry whose gradient is exactly
// zero passes with rounding noise in the analytic value, and fails with
// an analytic value above Atol.
func TestCheckGradientsZero(t *testing.T) {
	p := params.New()
	if _, err := p.Add("x", 2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		analytic float64
		fail     bool
	}{{1e-16, false}, {1e-9, true}} {
		err := CheckGradients(p, func() (float64, error) { return 1, nil },
			func(g *params.Params) error { g.Data("x")[0] = tc.analytic; return nil }, FDOptions{})
		if (err != nil) != tc.fail {
			t.Errorf("analytic %g against 0: error %v, want failure %v", tc.analytic, err, tc.fail)
		}
	}
}
