package graph

import (
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/params"
	G "gorgonia.org/gorgonia"
)

// TestBroadcastOpsGradients checks AddRow, MulRow and MulCol, which reshape
// a vector, while the same vector also feeds other ops directly: the
// Reshape-plus-in-place defect of the notes would show up here as a wrong
// gradient for the vector.
func TestBroadcastOpsGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := params.New()
	for name, shape := range map[string][]int{"x": {3, 4}, "row": {4}, "col": {3}} {
		if _, err := p.Add(name, shape...); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range p.Names() {
		_ = p.InitNormal(n, rng, 1)
	}
	b := NewBuilder()
	x, row, col := b.Param(p, "x"), b.Param(p, "row"), b.Param(p, "col")
	terms := []*G.Node{
		b.Sum(b.Tanh(b.AddRow(x, row))),
		b.Sum(b.Square(b.MulRow(x, row))),
		b.Sum(b.Exp(b.Scale(b.MulCol(x, col), 0.3))),
		b.Sum(b.Square(row)), // row used directly as well
		b.Sum(b.Tanh(col)),
	}
	loss := terms[0]
	for _, tm := range terms[1:] {
		loss = b.Add(loss, tm)
	}
	m, err := Compile(b, loss, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckMachineGradients(m, p, FDOptions{Tol: 1e-6}); err != nil {
		t.Fatal(err)
	}
}

func TestBuilderKeepsFirstError(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", 2, 3)
	y := b.Input("y", 3, 3)
	z := b.Add(x, y) // shape mismatch
	if z != nil || b.Err() == nil {
		t.Fatal("Add of (2,3) and (3,3) did not fail")
	}
	first := b.Err()
	if b.Tanh(x) != nil || b.Err() != first {
		t.Error("an op after an error ran or replaced the first error")
	}
	if _, err := Compile(b, nil, nil); err != first {
		t.Errorf("Compile returned %v, want the first error", err)
	}
	b2 := NewBuilder()
	if b2.Input("bad", 0, 2) != nil || b2.Err() == nil {
		t.Error("Input with a zero dimension was accepted")
	}
}
