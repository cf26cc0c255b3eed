package losses_test

import (
	"math"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/losses"
	"github.com/rtnlab/rtn/params"
)

const (
	valueTol = 1e-12 // relative tolerance (floor 1) on per-row losses
	fdTol    = 1e-5  // finite-difference tolerance; logits of ±1000 lose ~1e-7 to rounding
)

// Hand-computed references (40-digit decimal arithmetic, rounded):
// log(e + e^2 + e^3) and log(1 + e^2).
const (
	lse123      = 3.40760596444438
	softplusTwo = 2.1269280110429727
)

type lossFunc func(b *graph.Builder, x, target *G.Node) *G.Node

// bernoulliRef is -[t log sigmoid(z) + (1-t) log(1 - sigmoid(z))] computed
// directly, accurate for |z| < 30.
func bernoulliRef(z, t float64) float64 {
	s := 1 / (1 + math.Exp(-z))
	return -(t*math.Log(s) + (1-t)*math.Log(1-s))
}

func TestLosses(t *testing.T) {
	tests := []struct {
		name      string
		loss      lossFunc
		batch, k  int
		x, target []float64
		want      []float64 // per row
	}{
		{
			name: "MSE", loss: losses.MSE, batch: 2, k: 3,
			x:      []float64{1, 2, 3, 0, 0, 0},
			target: []float64{1, 0, 0, 1, 1, 1},
			want:   []float64{13.0 / 3, 1},
		},
		{
			name: "MSE extreme", loss: losses.MSE, batch: 1, k: 2,
			x: []float64{1000, -1000}, target: []float64{-1000, 1000},
			want: []float64{4e6},
		},
		{
			name: "CategoricalNLL", loss: losses.CategoricalNLL, batch: 3, k: 3,
			x:      []float64{1, 2, 3, 1, 2, 3, 1, 2, 3},
			target: []float64{0, 0, 1, 1, 0, 0, 0.5, 0.5, 0},
			want:   []float64{lse123 - 3, lse123 - 1, lse123 - 1.5},
		},
		{
			// -log softmax of (1000, -1000, 0): 0, 2000, 1000 (the other
			// terms are below e^-999), and 0 for an all-zero (padded) row.
			name: "CategoricalNLL ±1000", loss: losses.CategoricalNLL, batch: 4, k: 3,
			x:      []float64{1000, -1000, 0, 1000, -1000, 0, 1000, -1000, 0, 1000, -1000, 0},
			target: []float64{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0},
			want:   []float64{0, 2000, 1000, 0},
		},
		{
			name: "BernoulliNLL", loss: losses.BernoulliNLL, batch: 2, k: 3,
			x:      []float64{0, 2, -3, 0.7, -0.2, 5},
			target: []float64{1, 0, 1, 0.3, 1, 0},
			want: []float64{
				math.Ln2 + softplusTwo + bernoulliRef(-3, 1),
				bernoulliRef(0.7, 0.3) + bernoulliRef(-0.2, 1) + bernoulliRef(5, 0),
			},
		},
		{
			// Confident and right: 0; confident and wrong: 1000 per note.
			name: "BernoulliNLL ±1000", loss: losses.BernoulliNLL, batch: 2, k: 2,
			x:      []float64{1000, -1000, 1000, -1000},
			target: []float64{1, 0, 0, 1},
			want:   []float64{0, 2000},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := params.New()
			if _, err := p.Add("x", tc.batch, tc.k); err != nil {
				t.Fatal(err)
			}
			if err := p.Set("x", tc.x); err != nil {
				t.Fatal(err)
			}
			b := graph.NewBuilder()
			target := b.Input("target", tc.batch, tc.k)
			mask := b.Input("mask", tc.batch)
			perRow := tc.loss(b, b.Param(p, "x"), target)
			total := losses.MaskedSum(b, perRow, mask)
			// Read perRow through G.Read: after a run with gradients
			// gorgonia may have overwritten the node's own value in place.
			var perRowValue G.Value
			b.Do("read", func() (*G.Node, error) { return G.Read(perRow, &perRowValue), nil })
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
			if s := perRow.Shape(); len(s) != 1 || s[0] != tc.batch {
				t.Fatalf("per-row loss has shape %v, want [%d]", s, tc.batch)
			}
			m, err := graph.Compile(b, total, p)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			// Mask out the last row (unless there is only one).
			maskv := make([]float64, tc.batch)
			wantTotal := 0.0
			for i := range maskv {
				if i < tc.batch-1 || tc.batch == 1 {
					maskv[i] = 1
					wantTotal += tc.want[i]
				}
			}
			if err := m.Let(target, tc.target); err != nil {
				t.Fatal(err)
			}
			if err := m.Let(mask, maskv); err != nil {
				t.Fatal(err)
			}
			if err := m.Run(); err != nil {
				t.Fatal(err)
			}
			got := perRowValue.Data().([]float64)
			if len(got) != tc.batch {
				t.Fatalf("%d per-row values, want %d", len(got), tc.batch)
			}
			for i := range got {
				if !closeTo(got[i], tc.want[i]) {
					t.Errorf("row %d: got %.17g, want %.17g", i, got[i], tc.want[i])
				}
			}
			if !closeTo(m.Loss(), wantTotal) {
				t.Errorf("masked sum %.17g, want %.17g", m.Loss(), wantTotal)
			}
			if err := graph.CheckMachineGradients(m, p, graph.FDOptions{Tol: fdTol}); err != nil {
				t.Error(err)
			}
		})
	}
}

func closeTo(a, b float64) bool {
	return math.Abs(a-b) <= valueTol*math.Max(1, math.Abs(b))
}

func TestLossShapeErrors(t *testing.T) {
	tests := []struct {
		name string
		f    func(b *graph.Builder) *G.Node
	}{
		{"MSE shapes differ", func(b *graph.Builder) *G.Node {
			return losses.MSE(b, b.Input("p", 2, 3), b.Input("t", 2, 4))
		}},
		{"CategoricalNLL vector", func(b *graph.Builder) *G.Node {
			return losses.CategoricalNLL(b, b.Input("z", 3), b.Input("y", 3))
		}},
		{"BernoulliNLL nil", func(b *graph.Builder) *G.Node {
			return losses.BernoulliNLL(b, b.Input("z", 2, 3), nil)
		}},
		{"MaskedSum matrix mask", func(b *graph.Builder) *G.Node {
			return losses.MaskedSum(b, b.Input("l", 2), b.Input("m", 2, 1))
		}},
		{"CategoricalNLL row against matrix", func(b *graph.Builder) *G.Node {
			return losses.CategoricalNLL(b, b.Input("z", 1, 3), b.Input("y", 3))
		}},
		{"MaskedSum lengths differ", func(b *graph.Builder) *G.Node {
			return losses.MaskedSum(b, b.Input("l", 2), b.Input("m", 3))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := graph.NewBuilder()
			if n := tc.f(b); n != nil || b.Err() == nil {
				t.Fatalf("got node %v and error %v, want nil and an error", n, b.Err())
			}
		})
	}
}
