package graph

import (
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/params"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// reshapeCases use a reshaped parameter in a chain of ops while the
// parameter also feeds other ops directly.
var reshapeCases = map[string]func(b *Builder, x, r *G.Node) *G.Node{
	"dot": func(b *Builder, x, r *G.Node) *G.Node {
		return b.Add(b.Mul(r, r), b.Sum(b.Square(x)))
	},
	"shift-scale-chain": func(b *Builder, x, r *G.Node) *G.Node {
		c := b.Scale(b.Shift(r, 1), 2)
		return b.Add(b.Sum(b.Square(c)), b.Sum(b.Tanh(x)))
	},
}

func reshapeParams(t *testing.T) *params.Params {
	t.Helper()
	p := params.New()
	if _, err := p.Add("x", 2, 3); err != nil {
		t.Fatal(err)
	}
	_ = p.InitNormal("x", rand.New(rand.NewPCG(1, 1)), 1)
	return p
}

// TestDefectReshapeWritesThrough shows gorgonia's defect: G.Reshape returns
// a view of its input, and an in-place op downstream writes through it, so
// one run of the machine changes the parameter itself. If this test fails,
// gorgonia no longer does so and Builder.Reshape may go back to G.Reshape.
// Builder.Reshape copies: the parameter is untouched and the gradients pass
// the finite-difference check.
func TestDefectReshapeWritesThrough(t *testing.T) {
	for name, f := range reshapeCases {
		t.Run(name, func(t *testing.T) {
			p := reshapeParams(t)
			before := append([]float64(nil), p.Data("x")...)
			b := NewBuilder()
			x := b.Param(p, "x")
			r := b.Do("G.Reshape", func() (*G.Node, error) { return G.Reshape(x, tensor.Shape{6}) })
			m, err := Compile(b, f(b, x, r), p)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Run(); err != nil {
				t.Fatal(err)
			}
			changed := false
			for i, v := range p.Data("x") {
				changed = changed || v != before[i]
			}
			if !changed {
				t.Error("a run with G.Reshape left the parameter unchanged: the defect is gone")
			}

			p = reshapeParams(t)
			before = append([]float64(nil), p.Data("x")...)
			b = NewBuilder()
			x = b.Param(p, "x")
			m, err = Compile(b, f(b, x, b.Reshape(x, 6)), p)
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckMachineGradients(m, p, FDOptions{Tol: 1e-6}); err != nil {
				t.Fatal(err)
			}
			for i, v := range p.Data("x") {
				if v != before[i] {
					t.Fatalf("Builder.Reshape: x[%d] changed from %v to %v", i, before[i], v)
				}
			}
		})
	}
}
