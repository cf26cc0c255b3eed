package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/params"
	G "gorgonia.org/gorgonia"
)

const (
	opsValueTol = 1e-12 // absolute tolerance on forward values of O(1)
	opsFDTol    = 1e-6  // relative tolerance of the finite-difference checks
)

// Hand-computed references (40-digit decimal arithmetic, rounded):
// log(e + e^2 + e^3 + e^4 + e^5) and log(e + e^2 + e^3).
const (
	lse1to5 = 5.451914395937593
	lse1to3 = 3.40760596444438
)

// opsParams returns a Params holding one tensor "x" of the given shape,
// filled with seeded N(0, 2^2) draws.
func opsParams(t *testing.T, seed uint64, shape ...int) *params.Params {
	t.Helper()
	p := params.New()
	if _, err := p.Add("x", shape...); err != nil {
		t.Fatal(err)
	}
	if err := p.InitNormal("x", rand.New(rand.NewPCG(seed, 1)), 2); err != nil {
		t.Fatal(err)
	}
	return p
}

// opsRun compiles loss over p, runs once and returns the machine.
func opsRun(t *testing.T, b *Builder, loss *G.Node, p *params.Params) *Machine {
	t.Helper()
	m, err := Compile(b, loss, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	return m
}

// opsWeights returns a fixed input of the given shape holding distinct
// weights, so a weighted sum makes every output entry matter differently.
func opsWeights(t *testing.T, m *Machine, n *G.Node) {
	t.Helper()
	w := make([]float64, n.Shape().TotalSize())
	for i := range w {
		w[i] = 0.5 + 0.37*float64(i) - 0.1*float64(i*i%5)
	}
	if err := m.Let(n, w); err != nil {
		t.Fatal(err)
	}
}

// naiveLSE is log(sum(exp(x))) without any shift: exact enough for |x| < 10.
func naiveLSE(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x)
	}
	return math.Log(s)
}

func closeTo(a, b, tol float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

func checkValues(t *testing.T, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values %v, want %d %v", len(got), got, len(want), want)
	}
	for i := range got {
		if !closeTo(got[i], want[i], tol) {
			t.Errorf("value %d: got %.17g, want %.17g", i, got[i], want[i])
		}
	}
}

// evalConst builds f on a parameter-free constant input and returns the
// output values.
func evalConst(t *testing.T, shape []int, x []float64, f func(b *Builder, x *G.Node) *G.Node) ([]float64, []int) {
	t.Helper()
	p := params.New()
	if _, err := p.Add("x", shape...); err != nil {
		t.Fatal(err)
	}
	if err := p.Set("x", x); err != nil {
		t.Fatal(err)
	}
	b := NewBuilder()
	y := b.Watch(f(b, b.Param(p, "x")))
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	m := opsRun(t, b, nil, nil)
	v, err := m.Value(y)
	if err != nil {
		t.Fatal(err)
	}
	return v, y.Shape()
}

func TestLogSumExpValues(t *testing.T) {
	extreme := []float64{1000, 1001, 1002, 1, 2, 3}
	tests := []struct {
		name  string
		shape []int
		x     []float64
		axis  int
		want  []float64
		shp   []int
	}{
		{"vector 1..5", []int{5}, []float64{1, 2, 3, 4, 5}, 0, []float64{lse1to5}, nil},
		{"rows far apart", []int{2, 3}, extreme, 1, []float64{1000 + (lse1to3 - 1), lse1to3}, []int{2}},
		// log(e^1000 + e^1) = 1000 + log1p(e^-999) = 1000 in float64.
		{"columns far apart", []int{2, 3}, extreme, 0, []float64{1000, 1001, 1002}, []int{3}},
		{"all -1000", []int{3}, []float64{-1000, -1000, -1000}, 0, []float64{-1000 + math.Log(3)}, nil},
		{"one -Inf", []int{2}, []float64{math.Inf(-1), 0}, 0, []float64{0}, nil},
		{"all -Inf", []int{2}, []float64{math.Inf(-1), math.Inf(-1)}, 0, []float64{math.Inf(-1)}, nil},
		{"+Inf", []int{2}, []float64{math.Inf(1), 0}, 0, []float64{math.Inf(1)}, nil},
		{"column", []int{3, 1}, []float64{1, 2, 3}, 0, []float64{lse1to3}, []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, shape := evalConst(t, tc.shape, tc.x, func(b *Builder, x *G.Node) *G.Node { return b.LogSumExp(x, tc.axis) })
			checkValues(t, got, tc.want, opsValueTol)
			if len(tc.shp) != len(shape) {
				t.Fatalf("shape %v, want %v", shape, tc.shp)
			}
			for i := range shape {
				if shape[i] != tc.shp[i] {
					t.Fatalf("shape %v, want %v", shape, tc.shp)
				}
			}
		})
	}
}

// TestLogSumExpRank3 compares every axis of a rank-3 tensor with the
// unshifted formula.
func TestLogSumExpRank3(t *testing.T) {
	shape := []int{2, 3, 4}
	x := opsParams(t, 1, shape...).Data("x")
	at := func(i, j, k int) float64 { return x[(i*3+j)*4+k] }
	for axis := 0; axis < 3; axis++ {
		got, _ := evalConst(t, shape, x, func(b *Builder, x *G.Node) *G.Node { return b.LogSumExp(x, axis) })
		var want []float64
		idx := [3]int{}
		for idx[0] = 0; idx[0] < shape[0]; idx[0]++ {
			for idx[1] = 0; idx[1] < shape[1]; idx[1]++ {
				for idx[2] = 0; idx[2] < shape[2]; idx[2]++ {
					if idx[axis] != 0 {
						continue
					}
					var s []float64
					for k := 0; k < shape[axis]; k++ {
						j := idx
						j[axis] = k
						s = append(s, at(j[0], j[1], j[2]))
					}
					want = append(want, naiveLSE(s))
				}
			}
		}
		checkValues(t, got, want, opsValueTol)
	}
}

// TestLogSumExpStridedInput feeds a column slice (a strided view in
// gorgonia) to LogSumExp.
func TestLogSumExpStridedInput(t *testing.T) {
	x := []float64{1, 2, 3, 10, 4, 5, 6, 20}
	got, _ := evalConst(t, []int{2, 4}, x, func(b *Builder, x *G.Node) *G.Node { return b.LogSumExp(b.Cols(x, 1, 3), 1) })
	checkValues(t, got, []float64{naiveLSE([]float64{2, 3}), naiveLSE([]float64{5, 6})}, opsValueTol)
}

func TestLogSoftmaxValues(t *testing.T) {
	extreme := []float64{1000, 1001, 1002, 1, 2, 3}
	ls123 := []float64{1 - lse1to3, 2 - lse1to3, 3 - lse1to3}
	tests := []struct {
		name  string
		shape []int
		x     []float64
		axis  int
		want  []float64
	}{
		// Row 2 must equal log-softmax([1, 2, 3]) although row 1 is 1000 higher.
		{"rows far apart", []int{2, 3}, extreme, 1, append(append([]float64{}, ls123...), ls123...)},
		// Each column holds 100x and x: log-softmax is (-log1p(e^-999), -999 - log1p(e^-999)).
		{"columns far apart", []int{2, 3}, extreme, 0, []float64{0, 0, 0, -999, -999, -999}},
		{"vector", []int{3}, []float64{1, 2, 3}, 0, ls123},
		{"logits ±1000", []int{2, 2}, []float64{1000, -1000, -1000, 1000}, 1, []float64{0, -2000, -2000, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := evalConst(t, tc.shape, tc.x, func(b *Builder, x *G.Node) *G.Node { return b.LogSoftmax(x, tc.axis) })
			checkValues(t, got, tc.want, opsValueTol)
			sm, _ := evalConst(t, tc.shape, tc.x, func(b *Builder, x *G.Node) *G.Node { return b.Softmax(x, tc.axis) })
			for i := range sm {
				if w := math.Exp(tc.want[i]); !closeTo(sm[i], w, opsValueTol) {
					t.Errorf("softmax %d: got %.17g, want %.17g", i, sm[i], w)
				}
			}
		})
	}
}

// TestOpsGradients checks every op against finite differences through a
// weighted sum of its output, on every axis of a vector, a matrix and a
// rank-3 tensor.
func TestOpsGradients(t *testing.T) {
	type opFunc func(b *Builder, x *G.Node, axis int) *G.Node
	ops := []struct {
		name string
		f    opFunc
	}{
		{"LogSumExp", func(b *Builder, x *G.Node, axis int) *G.Node { return b.LogSumExp(x, axis) }},
		{"LogSoftmax", func(b *Builder, x *G.Node, axis int) *G.Node { return b.LogSoftmax(x, axis) }},
		{"Softmax", func(b *Builder, x *G.Node, axis int) *G.Node { return b.Softmax(x, axis) }},
		// Log1pExp is elementwise; the axis is ignored.
		{"Log1pExp", func(b *Builder, x *G.Node, axis int) *G.Node { return b.Log1pExp(x) }},
		// LogSoftmax feeding a second use of its input, and Softmax and
		// LogSoftmax of one node in one graph.
		{"LogSoftmax+x", func(b *Builder, x *G.Node, axis int) *G.Node { return b.Add(b.LogSoftmax(x, axis), b.Square(x)) }},
		{"Softmax+LogSoftmax", func(b *Builder, x *G.Node, axis int) *G.Node {
			return b.Hadamard(b.Softmax(x, axis), b.LogSoftmax(x, axis))
		}},
	}
	shapes := [][]int{{5}, {3, 4}, {2, 3, 4}}
	for _, op := range ops {
		for si, shape := range shapes {
			for axis := range shape {
				t.Run(fmt.Sprintf("%s/%v/axis%d", op.name, shape, axis), func(t *testing.T) {
					p := opsParams(t, uint64(10*si+axis), shape...)
					b := NewBuilder()
					y := op.f(b, b.Param(p, "x"), axis)
					var loss, w *G.Node
					if y != nil && y.IsScalar() {
						loss = b.Scale(y, 1.7)
					} else if y != nil {
						w = b.Input("w", y.Shape()...)
						loss = b.Sum(b.Hadamard(y, w))
					}
					if err := b.Err(); err != nil {
						t.Fatal(err)
					}
					m := opsRun(t, b, loss, p)
					if w != nil {
						opsWeights(t, m, w)
					}
					if err := CheckMachineGradients(m, p, FDOptions{Tol: opsFDTol}); err != nil {
						t.Error(err)
					}
				})
			}
		}
	}
}

// TestOpsGradientExtreme checks the gradients at logits of ±1000, where a
// naive softmax overflows. The loss is of order 1000, so the step is 1e-4:
// rounding then costs about 1e-16*1000/1e-4 = 1e-9, and the truncation
// error is negligible because the functions are nearly linear there.
func TestOpsGradientExtreme(t *testing.T) {
	for _, axis := range []int{0, 1} {
		p := params.New()
		if _, err := p.Add("x", 2, 3); err != nil {
			t.Fatal(err)
		}
		if err := p.Set("x", []float64{1000, 1000.5, -1000, 1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		b := NewBuilder()
		x := b.Param(p, "x")
		w := b.Input("w", 2, 3)
		loss := b.Sum(b.Hadamard(b.LogSoftmax(x, axis), w))
		loss = b.Add(loss, b.Sum(b.Hadamard(b.Log1pExp(x), w)))
		m := opsRun(t, b, loss, p)
		opsWeights(t, m, w)
		if err := CheckMachineGradients(m, p, FDOptions{Tol: opsFDTol, Step: 1e-4}); err != nil {
			t.Errorf("axis %d: %v", axis, err)
		}
		if l := m.Loss(); math.IsNaN(l) || math.IsInf(l, 0) {
			t.Errorf("axis %d: loss %v", axis, l)
		}
	}
}

func TestLog1pExpValues(t *testing.T) {
	// References: log(1 + e^x) in 40-digit decimal arithmetic, rounded.
	tests := []struct{ x, want float64 }{
		{-800, 0}, // e^-800 underflows below the smallest subnormal
		{-30, 9.357622968839737e-14},
		{0, math.Ln2},
		{16.5, 16.5 + 6.825603143390573e-08},
		{30, 30 + 9.357622968839737e-14},
		{800, 800},
	}
	x := make([]float64, len(tests))
	want := make([]float64, len(tests))
	for i, tc := range tests {
		x[i], want[i] = tc.x, tc.want
	}
	got, _ := evalConst(t, []int{len(x)}, x, func(b *Builder, x *G.Node) *G.Node { return b.Log1pExp(x) })
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-15*math.Max(1, math.Abs(want[i])) {
			t.Errorf("Log1pExp(%v) = %.17g, want %.17g", x[i], got[i], want[i])
		}
	}
}

func TestOpsArgumentErrors(t *testing.T) {
	tests := []struct {
		name string
		f    func(b *Builder, x *G.Node) *G.Node
	}{
		{"LogSumExp axis 2 of matrix", func(b *Builder, x *G.Node) *G.Node { return b.LogSumExp(x, 2) }},
		{"LogSumExp axis -1", func(b *Builder, x *G.Node) *G.Node { return b.LogSumExp(x, -1) }},
		{"LogSoftmax axis 2", func(b *Builder, x *G.Node) *G.Node { return b.LogSoftmax(x, 2) }},
		{"Softmax nil", func(b *Builder, x *G.Node) *G.Node { return b.Softmax(nil, 0) }},
		{"Log1pExp nil", func(b *Builder, x *G.Node) *G.Node { return b.Log1pExp(nil) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuilder()
			x := b.Input("x", 2, 3)
			if y := tc.f(b, x); y != nil || b.Err() == nil {
				t.Fatalf("got node %v and error %v, want nil and an error", y, b.Err())
			}
		})
	}
}

// TestOpsHashFields shows that ops differing in any field are distinct
// nodes: the axis, and LogSoftmax against Softmax.
func TestOpsHashFields(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", 3, 3)
	pairs := [][2]*G.Node{
		{b.LogSumExp(x, 0), b.LogSumExp(x, 1)},
		{b.LogSoftmax(x, 0), b.LogSoftmax(x, 1)},
		{b.LogSoftmax(x, 1), b.Softmax(x, 1)},
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	for i, p := range pairs {
		if p[0] == p[1] || p[0].Hashcode() == p[1].Hashcode() {
			t.Errorf("pair %d: %v and %v merged", i, p[0], p[1])
		}
	}
	if err := CheckHashes(b.Graph()); err != nil {
		t.Error(err)
	}
}
