package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/params"
)

// tapeOpCase is one recorded expression of parameters a [3, 4], b [3, 4],
// m [4, 2], u [4], v [4] and r [3].
type tapeOpCase struct {
	name  string
	build func(b *Builder, w func(string) *G.Node) *G.Node
}

func tapeOpCases() []tapeOpCase {
	unary := func(f func(b *Builder, x *G.Node) *G.Node) func(b *Builder, w func(string) *G.Node) *G.Node {
		return func(b *Builder, w func(string) *G.Node) *G.Node { return f(b, w("a")) }
	}
	// pos is a positive function of a, for Log and Div.
	pos := func(b *Builder, w func(string) *G.Node) *G.Node { return b.Shift(b.Square(w("b")), 0.5) }
	return []tapeOpCase{
		{"mul-mm", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Mul(w("a"), w("m")) }},
		{"mul-mv", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Mul(w("a"), w("u")) }},
		{"mul-vv", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Mul(w("u"), w("v")) }},
		{"mul-scalar-tensor", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Mul(b.Sum(w("u")), w("a")) }},
		{"mul-tensor-scalar", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Mul(w("a"), b.Sum(w("v"))) }},
		{"mul-const", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Mul(w("a"), b.Const(-1.5)) }},
		{"mul-constant", func(b *Builder, w func(string) *G.Node) *G.Node {
			return b.Mul(w("a"), b.Constant([]float64{1, 2, 3, 4, -1, 0, 0.5, 2}, 4, 2))
		}},
		{"add", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Add(w("a"), w("b")) }},
		{"sub", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Sub(w("a"), w("b")) }},
		{"hadamard", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Hadamard(w("a"), w("b")) }},
		{"hadamard-self", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Hadamard(w("a"), w("a")) }},
		{"div", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Div(w("a"), pos(b, w)) }},
		{"addrow", func(b *Builder, w func(string) *G.Node) *G.Node { return b.AddRow(w("a"), w("u")) }},
		{"mulrow", func(b *Builder, w func(string) *G.Node) *G.Node { return b.MulRow(w("a"), w("u")) }},
		{"mulcol", func(b *Builder, w func(string) *G.Node) *G.Node { return b.MulCol(w("a"), w("r")) }},
		{"scale", unary(func(b *Builder, x *G.Node) *G.Node { return b.Scale(x, -0.7) })},
		{"shift", unary(func(b *Builder, x *G.Node) *G.Node { return b.Shift(x, 0.3) })},
		{"neg", unary((*Builder).Neg)},
		{"tanh", unary((*Builder).Tanh)},
		{"sigmoid", unary((*Builder).Sigmoid)},
		{"exp", unary((*Builder).Exp)},
		{"log", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Log(pos(b, w)) }},
		{"square", unary((*Builder).Square)},
		{"abs", unary((*Builder).Abs)},
		{"rectify", unary((*Builder).Rectify)},
		{"log1pexp", unary((*Builder).Log1pExp)},
		{"softplus", unary((*Builder).Softplus)},
		{"sum", unary(func(b *Builder, x *G.Node) *G.Node { return b.Sum(x) })},
		{"sum-axis0", unary(func(b *Builder, x *G.Node) *G.Node { return b.Sum(x, 0) })},
		{"sum-axis1", unary(func(b *Builder, x *G.Node) *G.Node { return b.Sum(x, 1) })},
		{"sum-vector", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Sum(w("u")) }},
		{"mean", unary(func(b *Builder, x *G.Node) *G.Node { return b.Mean(x) })},
		{"mean-axis0", unary(func(b *Builder, x *G.Node) *G.Node { return b.Mean(x, 0) })},
		{"mean-axis1", unary(func(b *Builder, x *G.Node) *G.Node { return b.Mean(x, 1) })},
		{"reshape", unary(func(b *Builder, x *G.Node) *G.Node { return b.Reshape(x, 2, 6) })},
		{"transpose", unary(func(b *Builder, x *G.Node) *G.Node { return b.Transpose(x) })},
		{"cols", unary(func(b *Builder, x *G.Node) *G.Node { return b.Cols(x, 1, 3) })},
		{"cols-overlapping", unary(func(b *Builder, x *G.Node) *G.Node {
			t := b.Tanh(x) // its gradient is written by parts: columns 1-2, 0-1, none for 3
			return b.Hadamard(b.Cols(t, 1, 3), b.Cols(t, 0, 2))
		})},
		{"cols-and-whole", unary(func(b *Builder, x *G.Node) *G.Node {
			t := b.Tanh(x)
			return b.Add(b.Sum(b.Cols(t, 2, 4)), b.Sum(b.Square(t)))
		})},
		{"concat-axis0", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Concat(0, w("a"), b.Tanh(w("b"))) }},
		{"concat-axis1", func(b *Builder, w func(string) *G.Node) *G.Node {
			return b.Concat(1, w("a"), b.Mul(w("a"), w("m")), w("a"))
		}},
		{"constants-only-product", func(b *Builder, w func(string) *G.Node) *G.Node {
			c := b.Mul(b.Constant([]float64{1, 2, 3, 4, 5, 6}, 3, 2), b.Constant([]float64{1, 0, -1, 2, 0.5, 1, 1, -2}, 2, 4))
			return b.Add(b.Mul(c, b.Const(0.5)), w("a"))
		}},
		{"concat-constant", func(b *Builder, w func(string) *G.Node) *G.Node {
			return b.Concat(1, b.Constant([]float64{1, 2, 3}, 3, 1), w("a"))
		}},
		{"concat-vectors", func(b *Builder, w func(string) *G.Node) *G.Node { return b.Concat(0, w("u"), w("r")) }},
		{"logsumexp-axis0", unary(func(b *Builder, x *G.Node) *G.Node { return b.LogSumExp(x, 0) })},
		{"logsumexp-axis1", unary(func(b *Builder, x *G.Node) *G.Node { return b.LogSumExp(x, 1) })},
		{"logsumexp-vector", func(b *Builder, w func(string) *G.Node) *G.Node { return b.LogSumExp(w("u"), 0) }},
		{"logsoftmax-axis0", unary(func(b *Builder, x *G.Node) *G.Node { return b.LogSoftmax(x, 0) })},
		{"logsoftmax-axis1", unary(func(b *Builder, x *G.Node) *G.Node { return b.LogSoftmax(x, 1) })},
		{"softmax", unary(func(b *Builder, x *G.Node) *G.Node { return b.Softmax(x, 1) })},
		// Gradients passed on unchanged (Add, AddRow, Shift) share memory
		// unless the argument has other contributions: c and t have two
		// each, one before the Add's and one after.
		{"pass-shared", func(b *Builder, w func(string) *G.Node) *G.Node {
			c, t := b.Tanh(w("b")), b.Tanh(w("a"))
			return b.Hadamard(b.Hadamard(c, b.Square(t)), b.Add(t, c))
		}},
		{"pass-chain", func(b *Builder, w func(string) *G.Node) *G.Node {
			t := b.Tanh(w("a"))
			return b.Add(b.Shift(b.AddRow(b.Sub(t, w("b")), w("u")), 0.5), b.Reshape(b.Reshape(b.Square(t), 4, 3), 3, 4))
		}},
	}
}

// tapeOpParams draws the parameters of the op cases.
func tapeOpParams(rng *rand.Rand) *params.Params {
	p := params.New()
	for _, s := range []struct {
		n     string
		shape []int
	}{{"a", []int{3, 4}}, {"b", []int{3, 4}}, {"m", []int{4, 2}}, {"u", []int{4}}, {"v", []int{4}}, {"r", []int{3}}} {
		p.Add(s.n, s.shape...)
		p.InitNormal(s.n, rng, 1)
	}
	return p
}

// buildTapeOp records tc on parameters drawn from rng and compiles it to
// a float64 tape program.
func buildTapeOp(t *testing.T, tc tapeOpCase, rng *rand.Rand) (*Builder, *params.Params, *G.Node, *tapeProgram[float64]) {
	t.Helper()
	p := tapeOpParams(rng)
	b := NewBuilder()
	out := tc.build(b, func(n string) *G.Node { return b.Param(p, n) })
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	pr, err := newTapeProgram(b, []*G.Node{out}, nil, nil, p, Weights[float64]{}, false)
	if err != nil {
		t.Fatal(err)
	}
	return b, p, out, pr
}

// TestTapeOps checks each recorded op's forward value and vector-Jacobian
// product on the tape against gorgonia's (to 1e-12) and against finite
// differences, through the loss sum(w * op(params)) with random weights w.
func TestTapeOps(t *testing.T) {
	for _, tc := range tapeOpCases() {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 1))
			b, p, out, pr := buildTapeOp(t, tc, rng)
			size := out.Shape().TotalSize()
			w := make([]float64, size)
			for i := range w {
				w[i] = rng.NormFloat64()
			}
			_, loss, grad := tapeLoss(pr, w)
			m := weightedLossMachine(t, b, out, p, w)
			defer m.Close()
			compareWithMachine(t, m, p, loss, grad)
		})
	}
}

// tapeLoss returns the output buffer of a one-output tape program and the
// loss sum(w * output) with its gradient, computed on the tape.
func tapeLoss(pr *tapeProgram[float64], w []float64) (y []float64, loss func() (float64, error), grad func(*params.Params) error) {
	ys := [][]float64{make([]float64, len(w))}
	cache := make([]float64, pr.cacheLen)
	loss = func() (float64, error) {
		pr.forward(nil, nil, nil, ys, cache)
		return dot(w, ys[0]), nil
	}
	grad = func(g *params.Params) error {
		if _, err := loss(); err != nil {
			return err
		}
		pr.backward(nil, nil, cache, [][]float64{w}, nil, GradsOf(g))
		return nil
	}
	return ys[0], loss, grad
}

// weightedLossMachine compiles sum(w * out) (w[0] * out for a scalar) on
// gorgonia, differentiated with respect to p.
func weightedLossMachine(t *testing.T, b *Builder, out *G.Node, p *params.Params, w []float64) *Machine {
	t.Helper()
	var gl, wn *G.Node
	if out.IsScalar() {
		gl = b.Scale(out, w[0])
	} else {
		wn = b.Input("w", out.Shape()...)
		gl = b.Sum(b.Hadamard(out, wn))
	}
	m, err := Compile(b, gl, p)
	if err != nil {
		t.Fatal(err)
	}
	if wn != nil {
		if err := m.Let(wn, w); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// compareWithMachine runs m and compares its loss and gradients with the
// tape's, then checks the tape's gradients against finite differences.
func compareWithMachine(t *testing.T, m *Machine, p *params.Params, loss func() (float64, error), grad func(*params.Params) error) {
	t.Helper()
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	want := p.Like()
	if err := m.AddGrads(want); err != nil {
		t.Fatal(err)
	}
	got := p.Like()
	if err := grad(got); err != nil {
		t.Fatal(err)
	}
	l, _ := loss()
	if math.Abs(l-m.Loss()) > 1e-12*math.Max(1, math.Abs(l)) {
		t.Errorf("loss %.17g, gorgonia %.17g", l, m.Loss())
	}
	for _, n := range p.Names() {
		for i, v := range got.Data(n) {
			if wv := want.Data(n)[i]; math.Abs(v-wv) > 1e-12*math.Max(1, math.Abs(wv)) {
				t.Errorf("%s[%d]: gradient %.17g, gorgonia %.17g", n, i, v, wv)
			}
		}
	}
	if err := CheckGradients(p, loss, grad, FDOptions{Tol: opsFDTol}); err != nil {
		t.Error(err)
	}
}

// TestTapeNotRecorded checks that a node made outside the record, of rank
// 5, or an axis reduction of rank 3 is refused with ErrNotRecorded.
func TestTapeNotRecorded(t *testing.T) {
	p := params.New()
	p.Add("a", 2, 3)
	b := NewBuilder()
	a := b.Param(p, "a")
	raw := b.Do("tanh", func() (*G.Node, error) { return G.Tanh(a) })
	five := b.Reshape(b.Square(a), 1, 1, 1, 2, 3)
	cube := b.Reshape(b.Square(a), 1, 2, 3)
	for _, out := range []*G.Node{b.Add(raw, a), b.Tanh(five), b.Sum(cube, 1)} {
		if _, err := newTapeProgram(b, []*G.Node{out}, nil, nil, p, Weights[float64]{}, false); !errors.Is(err, ErrNotRecorded) {
			t.Errorf("%v: error %v, want ErrNotRecorded", out, err)
		}
	}
}
