package umps

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// nllBatch mixes lengths, with the empty string and padding.
var nllBatch = [][]int{{0, 1, 1}, {1}, {}, {1, 0, 0, 1}, {0, 0}}

func nllParams(t *testing.T, init Init) *params.Params {
	t.Helper()
	p, err := NewParams(3, 2, init, rand.New(rand.NewPCG(8, 9)))
	if err != nil {
		t.Fatal(err)
	}
	if init == NearIdentity { // move off the identity so every entry matters
		for i, v := range p.Data(ParamA) {
			p.Data(ParamA)[i] = v + 0.3*math.Sin(float64(7*i+1))
		}
	}
	return p
}

// The fused ops' gradients agree with finite differences, and the fused
// loss equals the kernels' log-probabilities.
func TestNLLGradients(t *testing.T) {
	for _, init := range []Init{NearIdentity, RandomNormal} {
		p := nllParams(t, init)
		n, err := NewNLL(p, len(nllBatch), 4, PerLength)
		if err != nil {
			t.Fatal(err)
		}
		loss := func() (float64, error) { return n.Run(nllBatch, nil) }
		grad := func(g *params.Params) error { _, err := n.Run(nllBatch, g); return err }
		if err := graph.CheckGradients(p, loss, grad, graph.FDOptions{}); err != nil {
			t.Errorf("init %d: %v", init, err)
		}
		m, err := FromParams(p)
		if err != nil {
			t.Fatal(err)
		}
		lp, err := m.LogProbsN(nllBatch)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for _, v := range lp {
			want -= v / float64(len(nllBatch))
		}
		got, err := loss()
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("init %d: graph loss %.15g, kernels %.15g", init, got, want)
		}
	}
}

// plainNLL builds the same loss as a plain unrolled gorgonia graph: each
// amplitude a chain of vector-matrix products of slices of A, and each Z_n
// the explicit sum of f(s)^2 over all strings of length n.
func plainNLL(t *testing.T, p *params.Params, batch [][]int) *graph.Machine {
	t.Helper()
	b := graph.NewBuilder()
	A, alpha, omega := b.Param(p, ParamA), b.Param(p, ParamAlpha), b.Param(p, ParamOmega)
	d := p.Shape(ParamA)[1]
	slice := make([]*G.Node, d)
	for c := range slice {
		c := c
		slice[c] = b.Do("slice", func() (*G.Node, error) { return G.Slice(A, nil, G.S(c)) })
	}
	amp := func(s []int) *G.Node {
		h := alpha
		for _, c := range s {
			h = b.Mul(h, slice[c])
		}
		return b.Mul(h, omega)
	}
	var total *G.Node
	add := func(x *G.Node) {
		if total == nil {
			total = x
		} else {
			total = b.Add(total, x)
		}
	}
	for _, s := range batch {
		var z *G.Node
		enumerate(&MPS{Bond: 1, Symbols: d, A: make([]float64, d), Alpha: []float64{1}, Omega: []float64{1}}, len(s),
			func(u []int, _ float64) {
				if len(u) != len(s) {
					return
				}
				f2 := b.Square(amp(u))
				if z == nil {
					z = f2
				} else {
					z = b.Add(z, f2)
				}
			})
		add(b.Sub(b.Log(z), b.Log(b.Square(amp(s)))))
	}
	loss := b.Scale(total, 1/float64(len(batch)))
	m, err := graph.Compile(b, loss, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The fused graph equals a plain unrolled graph, in value and gradient.
func TestNLLMatchesPlainGraph(t *testing.T) {
	const tol = 1e-10
	p := nllParams(t, RandomNormal)
	fused, err := NewNLL(p, len(nllBatch), 4, PerLength)
	if err != nil {
		t.Fatal(err)
	}
	gf := p.Like()
	lf, err := fused.Run(nllBatch, gf)
	if err != nil {
		t.Fatal(err)
	}
	plain := plainNLL(t, p, nllBatch)
	if err := plain.Run(); err != nil {
		t.Fatal(err)
	}
	gp := p.Like()
	if err := plain.AddGrads(gp); err != nil {
		t.Fatal(err)
	}
	if math.Abs(lf-plain.Loss()) > tol {
		t.Errorf("loss: fused %.15g, plain %.15g", lf, plain.Loss())
	}
	for _, name := range p.Names() {
		for i, v := range gf.Data(name) {
			if w := gp.Data(name)[i]; math.Abs(v-w) > tol*math.Max(1, math.Abs(w)) {
				t.Errorf("d%s[%d]: fused %.12g, plain %.12g", name, i, v, w)
			}
		}
	}
}

// Z_n's gradient over many lengths, where the scales differ by orders of
// magnitude, still matches finite differences.
func TestLogZnGradientLong(t *testing.T) {
	p := nllParams(t, RandomNormal)
	for i := range p.Data(ParamA) {
		p.Data(ParamA)[i] *= 3 // Z_n grows fast
	}
	b := graph.NewBuilder()
	z := LogZn(b, b.Param(p, ParamA), b.Param(p, ParamAlpha), b.Param(p, ParamOmega), 40)
	w := b.Input("w", 41)
	loss := b.Sum(b.Hadamard(w, z))
	m, err := graph.Compile(b, loss, p)
	if err != nil {
		t.Fatal(err)
	}
	ws := make([]float64, 41)
	for i := range ws {
		ws[i] = math.Cos(float64(i)) / 40
	}
	if err := m.Let(w, ws); err != nil {
		t.Fatal(err)
	}
	if err := graph.CheckMachineGradients(m, p, graph.FDOptions{}); err != nil {
		t.Error(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	if v := m.Loss(); math.IsNaN(v) || math.IsInf(v, 0) {
		t.Errorf("loss %v", v)
	}
}

// The P_* loss: its fused gradient (through the D^2 x D^2 solves) agrees
// with finite differences and its value with the kernels'; a model whose
// sum over lengths diverges makes the run fail with the reason.
func TestNLLStar(t *testing.T) {
	m := testModel(t, 3, 2, 0.6, 71)
	p, err := NewParams(3, 2, RandomNormal, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range []struct {
		name string
		v    []float64
	}{{ParamA, m.A}, {ParamAlpha, m.Alpha}, {ParamOmega, m.Omega}} {
		if err := p.Set(kv.name, kv.v); err != nil {
			t.Fatal(err)
		}
	}
	n, err := NewNLL(p, len(nllBatch), 4, AllLengths)
	if err != nil {
		t.Fatal(err)
	}
	loss := func() (float64, error) { return n.Run(nllBatch, nil) }
	grad := func(g *params.Params) error { _, err := n.Run(nllBatch, g); return err }
	if err := graph.CheckGradients(p, loss, grad, graph.FDOptions{}); err != nil {
		t.Error(err)
	}
	got, err := loss()
	if err != nil {
		t.Fatal(err)
	}
	want, err := MeanNLL(p, nllBatch, AllLengths)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 1e-10 {
		t.Errorf("graph loss %.15g, kernels %.15g", got, want)
	}
	for i := range p.Data(ParamA) {
		p.Data(ParamA)[i] *= 2 // spectral radius 2.4
	}
	if _, err := loss(); err == nil || !strings.Contains(err.Error(), "spectral radius") {
		t.Errorf("divergent Z_*: got %v", err)
	}
}

// A Problem's P_n batches of short strings run on graphs with a shorter
// length bound; the loss and gradient are bit for bit those of the graph
// bounded by the longest string of the problem.
func TestProblemLengthBoundExact(t *testing.T) {
	p := nllParams(t, RandomNormal)
	long := make([]int, 3*lengthBucket)
	train := append([][]int{long}, nllBatch...)
	pr, err := NewProblem(p, train, nil, PerLength)
	if err != nil {
		t.Fatal(err)
	}
	idx := []int{1, 2, 3, 4, 5}
	g := p.Like()
	loss, err := pr.LossGrad(idx, g)
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.graphs) != 1 {
		t.Fatalf("%d graphs, want 1", len(pr.graphs))
	}
	for key := range pr.graphs {
		if key[1] != lengthBucket {
			t.Fatalf("length bound %d, want %d", key[1], lengthBucket)
		}
	}
	full, err := NewNLL(p, len(idx), len(long), PerLength)
	if err != nil {
		t.Fatal(err)
	}
	gf := p.Like()
	lf, err := full.Run(nllBatch, gf)
	if err != nil {
		t.Fatal(err)
	}
	if loss != lf {
		t.Errorf("loss %.17g, full bound %.17g", loss, lf)
	}
	for _, name := range p.Names() {
		for i, v := range g.Data(name) {
			if w := gf.Data(name)[i]; v != w {
				t.Errorf("d%s[%d]: %.17g, full bound %.17g", name, i, v, w)
			}
		}
	}
}
