package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/params"
)

// Tolerances of the tensor-op tests.
const (
	// bruteTol bounds the difference between an op's value and its
	// brute-force loops (sums in another order).
	bruteTol = 1e-12
	// f32Tol bounds the relative difference between the float32 and the
	// float64 tape (float32's epsilon is 1.2e-7; sums of tens of terms).
	f32Tol = 2e-5
)

// tensorCase is one tensor-op expression over parameters of given shapes.
type tensorCase struct {
	name   string
	shapes [][]int // parameters p0, p1, ...
	build  func(b *Builder, w []*G.Node) *G.Node
	// brute is the expected value (row-major) from the parameters' values,
	// or nil when another test checks the value.
	brute func(vals [][]float64) []float64
}

// einsumCase is the case of Einsum(spec) over operands of the given
// shapes, with a brute-force value.
func einsumCase(spec string, shapes ...[]int) tensorCase {
	return tensorCase{
		name:   spec,
		shapes: shapes,
		build:  func(b *Builder, w []*G.Node) *G.Node { return b.Einsum(spec, w...) },
		brute:  func(vals [][]float64) []float64 { return bruteEinsum(spec, shapes, vals) },
	}
}

// bruteEinsum evaluates spec by a loop over every value of every letter.
func bruteEinsum(spec string, shapes [][]int, vals [][]float64) []float64 {
	lhs, res, _ := strings.Cut(spec, "->")
	terms := strings.Split(lhs, ",")
	ext := map[byte]int{}
	var letters []byte
	for i, t := range terms {
		for j := range t {
			if _, ok := ext[t[j]]; !ok {
				letters = append(letters, t[j])
			}
			ext[t[j]] = shapes[i][j]
		}
	}
	offset := func(t string, idx map[byte]int) int {
		o := 0
		for j := range t {
			o = o*ext[t[j]] + idx[t[j]]
		}
		return o
	}
	size := 1
	for j := range res {
		size *= ext[res[j]]
	}
	out := make([]float64, size)
	idx := map[byte]int{}
	var rec func(i int)
	rec = func(i int) {
		if i == len(letters) {
			v := 1.0
			for k, t := range terms {
				v *= vals[k][offset(t, idx)]
			}
			out[offset(res, idx)] += v
			return
		}
		for x := range ext[letters[i]] {
			idx[letters[i]] = x
			rec(i + 1)
		}
	}
	rec(0)
	return out
}

func tensorCases() []tensorCase {
	kron := tensorCase{
		name:   "kron",
		shapes: [][]int{{3, 2}, {3, 4}},
		build:  func(b *Builder, w []*G.Node) *G.Node { return b.Kron(w[0], w[1]) },
		brute:  func(v [][]float64) []float64 { return bruteEinsum("bi,bj->bij", [][]int{{3, 2}, {3, 4}}, v) },
	}
	kronChain := tensorCase{
		name:   "kron-then-mul-reshaped-param",
		shapes: [][]int{{3, 2}, {3, 4}, {4, 2 * 5}},
		build: func(b *Builder, w []*G.Node) *G.Node {
			return b.Tanh(b.Mul(b.Kron(w[1], w[0]), b.Reshape(w[2], 4*2, 5)))
		},
	}
	ids := []float64{2, 0, 4, 2}
	embed := tensorCase{
		name:   "embed",
		shapes: [][]int{{5, 3}},
		build: func(b *Builder, w []*G.Node) *G.Node {
			return b.Tanh(b.Embed(b.Constant(ids, 4, 1), w[0]))
		},
	}
	embedValue := tensorCase{
		name:   "embed-vector",
		shapes: [][]int{{5, 3}},
		build:  func(b *Builder, w []*G.Node) *G.Node { return b.Embed(b.Constant(ids, 4), w[0]) },
		brute: func(v [][]float64) []float64 {
			var out []float64
			for _, i := range ids {
				out = append(out, v[0][int(i)*3:int(i)*3+3]...)
			}
			return out
		},
	}
	layerNorm := tensorCase{
		name:   "layernorm",
		shapes: [][]int{{3, 5}, {5}, {5}},
		build:  func(b *Builder, w []*G.Node) *G.Node { return b.LayerNorm(w[0], w[1], w[2], 1e-3) },
		brute: func(v [][]float64) []float64 {
			var out []float64
			for r := range 3 {
				x := v[0][r*5 : r*5+5]
				var m, s float64
				for _, e := range x {
					m += e / 5
				}
				for _, e := range x {
					s += (e - m) * (e - m) / 5
				}
				for j, e := range x {
					out = append(out, (e-m)/math.Sqrt(s+1e-3)*v[1][j]+v[2][j])
				}
			}
			return out
		},
	}
	return []tensorCase{
		kron, kronChain, embed, embedValue, layerNorm,
		einsumCase("bi,ijk->bjk", []int{3, 4}, []int{4, 2, 5}),
		einsumCase("bi,bj,ijk->bk", []int{3, 4}, []int{3, 2}, []int{4, 2, 5}),
		einsumCase("bc,bi,icj->bj", []int{3, 2}, []int{3, 4}, []int{4, 2, 4}),
		einsumCase("bij,bj->bi", []int{3, 4, 2}, []int{3, 2}),
		einsumCase("bik,bkj->bij", []int{3, 4, 2}, []int{3, 2, 5}),
		einsumCase("bi,bj->bij", []int{3, 4}, []int{3, 2}),
		einsumCase("bi,ij,jk->bk", []int{3, 4}, []int{4, 5}, []int{5, 2}),
		einsumCase("ij->ji", []int{3, 4}),
		einsumCase("bij->jbi", []int{3, 4, 2}),
		einsumCase("bij->bi", []int{3, 4, 2}),
		einsumCase("bi,bi->b", []int{3, 4}, []int{3, 4}),
		einsumCase("bi,bi->", []int{3, 4}, []int{3, 4}),
		einsumCase("kb,ik->bi", []int{4, 3}, []int{2, 4}),
		einsumCase("i,j->ij", []int{3}, []int{4}),
		einsumCase("abcd,dc->ab", []int{2, 3, 4, 2}, []int{2, 4}),
		einsumCase("br,bc,rcs->bs", []int{3, 2}, []int{3, 4}, []int{2, 4, 3}),
		einsumCase("bij,jk,bk->bi", []int{3, 2, 4}, []int{4, 5}, []int{3, 5}),
		einsumCase("bjk,ijk->bi", []int{3, 2, 4}, []int{5, 2, 4}),
		einsumCase("br,br,jr->bj", []int{3, 4}, []int{3, 4}, []int{5, 4}),
	}
}

// tensorParams draws parameters p0, p1, ... of the given shapes.
func tensorParams(shapes [][]int, rng *rand.Rand) *params.Params {
	p := params.New()
	for i, s := range shapes {
		n := fmt.Sprintf("p%d", i)
		p.Add(n, s...)
		p.InitNormal(n, rng, 1)
	}
	return p
}

// TestTensorOps checks each tensor op's value against brute force, its
// tape against gorgonia (value and vector-Jacobian product, to 1e-12), the
// tape's gradient against finite differences, and the float32 tape against
// the float64 one.
func TestTensorOps(t *testing.T) {
	for _, tc := range tensorCases() {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 3))
			p := tensorParams(tc.shapes, rng)
			b := NewBuilder()
			var ws []*G.Node
			for i := range tc.shapes {
				ws = append(ws, b.Param(p, fmt.Sprintf("p%d", i)))
			}
			out := tc.build(b, ws)
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
			pr, err := newTapeProgram(b, []*G.Node{out}, nil, nil, p, Weights[float64]{}, false)
			if err != nil {
				t.Fatal(err)
			}
			size := out.Shape().TotalSize()
			w := make([]float64, size)
			for i := range w {
				w[i] = rng.NormFloat64()
			}
			y, loss, grad := tapeLoss(pr, w)
			if tc.brute != nil {
				var vals [][]float64
				for i := range tc.shapes {
					vals = append(vals, p.Data(fmt.Sprintf("p%d", i)))
				}
				loss()
				for i, v := range tc.brute(vals) {
					if math.Abs(y[i]-v) > bruteTol {
						t.Fatalf("value[%d] = %.17g, brute force %.17g", i, y[i], v)
					}
				}
			}
			m := weightedLossMachine(t, b, out, p, w)
			defer m.Close()
			compareWithMachine(t, m, p, loss, grad)
			if err := CheckMachineGradients(m, p, FDOptions{Tol: opsFDTol}); err != nil {
				t.Errorf("gorgonia path: %v", err)
			}
			checkFloat32Tape(t, b, out, p, w)
		})
	}
}

// checkFloat32Tape compares the float32 tape's value and gradient of
// sum(w * out) with the float64 tape's.
func checkFloat32Tape(t *testing.T, b *Builder, out *G.Node, p *params.Params, w []float64) {
	t.Helper()
	run := func(f32 bool) ([]float64, *params.Params) {
		g := p.Like()
		size := out.Shape().TotalSize()
		if !f32 {
			pr, err := newTapeProgram(b, []*G.Node{out}, nil, nil, p, Weights[float64]{}, false)
			if err != nil {
				t.Fatal(err)
			}
			y := [][]float64{make([]float64, size)}
			cache := make([]float64, pr.cacheLen)
			pr.forward(nil, nil, nil, y, cache)
			pr.backward(nil, nil, cache, [][]float64{w}, nil, GradsOf(g))
			return y[0], g
		}
		m := NewMirror()
		pr, err := newTapeProgram(b, []*G.Node{out}, nil, nil, p, m.Weights32(), false)
		if err != nil {
			t.Fatal(err)
		}
		gs := &grads32{index: map[string]int{}}
		for _, n := range p.Names() {
			gs.index[n] = len(gs.g)
			gs.g = append(gs.g, make([]float32, len(p.Data(n))))
		}
		y := [][]float32{make([]float32, size)}
		w32 := make([]float32, size)
		convert(w32, w)
		cache := make([]float32, pr.cacheLen)
		pr.forward(nil, nil, nil, y, cache)
		pr.backward(nil, nil, cache, [][]float32{w32}, nil, Grads[float32]{g: gs})
		y64 := make([]float64, size)
		convert(y64, y[0])
		for _, n := range p.Names() {
			convert(g.Data(n), gs.Data(n))
		}
		return y64, g
	}
	y64, g64 := run(false)
	y32, g32 := run(true)
	close := func(what string, a, b []float64) {
		scale := 0.0
		for _, v := range b {
			scale = math.Max(scale, math.Abs(v))
		}
		for i := range a {
			if math.Abs(a[i]-b[i]) > f32Tol*math.Max(1, scale) {
				t.Errorf("float32 %s[%d] = %g, float64 %g", what, i, a[i], b[i])
				return
			}
		}
	}
	close("value", y32, y64)
	for _, n := range p.Names() {
		close("gradient "+n, g32.Data(n), g64.Data(n))
	}
}

// TestTensorOpShapeErrors checks that shapes that do not fit are build
// errors naming the op and the shapes.
func TestTensorOpShapeErrors(t *testing.T) {
	cases := []struct {
		name   string
		shapes [][]int
		build  func(b *Builder, w []*G.Node) *G.Node
		want   string
	}{
		{"kron-rows", [][]int{{3, 2}, {4, 2}}, func(b *Builder, w []*G.Node) *G.Node { return b.Kron(w[0], w[1]) }, "Kron: want [batch, d] and [batch, n], got (3, 2) and (4, 2)"},
		{"kron-rank", [][]int{{3}, {3, 2}}, func(b *Builder, w []*G.Node) *G.Node { return b.Kron(w[0], w[1]) }, "Kron"},
		{"einsum-extent", [][]int{{3, 4}, {5, 2}}, func(b *Builder, w []*G.Node) *G.Node { return b.Einsum("bi,ij->bj", w...) }, `index 'i' has extent 4 and 5`},
		{"einsum-rank", [][]int{{3, 4}}, func(b *Builder, w []*G.Node) *G.Node { return b.Einsum("bij->b", w...) }, "operand 0 has shape [3 4] for indices \"bij\""},
		{"einsum-count", [][]int{{3, 4}}, func(b *Builder, w []*G.Node) *G.Node { return b.Einsum("bi,ij->bj", w...) }, "2 operand terms for 1 operands"},
		{"einsum-arrow", [][]int{{3, 4}}, func(b *Builder, w []*G.Node) *G.Node { return b.Einsum("bi", w...) }, "want operands->result"},
		{"einsum-repeat", [][]int{{3, 3}}, func(b *Builder, w []*G.Node) *G.Node { return b.Einsum("ii->i", w...) }, "repeats index 'i'"},
		{"einsum-free", [][]int{{3, 4}}, func(b *Builder, w []*G.Node) *G.Node { return b.Einsum("bi->bk", w...) }, "result index 'k' is in no operand"},
		{"einsum-operands", [][]int{{2}, {2}, {2}, {2}}, func(b *Builder, w []*G.Node) *G.Node { return b.Einsum("i,i,i,i->i", w...) }, "4 operands, want 1 to 3"},
		{"einsum-result-rank", [][]int{{2, 2, 2}, {2, 2}}, func(b *Builder, w []*G.Node) *G.Node { return b.Einsum("abc,de->abcde", w...) }, "result \"abcde\" has rank 5"},
		{"embed-ids", [][]int{{3, 2}, {5, 4}}, func(b *Builder, w []*G.Node) *G.Node { return b.Embed(w[0], w[1]) }, "Embed: want ids [batch] or [batch, 1]"},
		{"layernorm-shape", [][]int{{3, 4}, {3}, {4}}, func(b *Builder, w []*G.Node) *G.Node { return b.LayerNorm(w[0], w[1], w[2], 1e-5) }, "LayerNorm: want x [batch, n], gamma [n] and beta [n], got (3, 4), (3) and (4)"},
		{"layernorm-eps", [][]int{{3, 4}, {4}, {4}}, func(b *Builder, w []*G.Node) *G.Node { return b.LayerNorm(w[0], w[1], w[2], 0) }, "eps must be positive"},
		{"einsum-letter", [][]int{{2, 2}}, func(b *Builder, w []*G.Node) *G.Node { return b.Einsum("b1->b", w...) }, "is not a letter"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tensorParams(tc.shapes, rand.New(rand.NewPCG(1, 1)))
			b := NewBuilder()
			var ws []*G.Node
			for i := range tc.shapes {
				ws = append(ws, b.Param(p, fmt.Sprintf("p%d", i)))
			}
			if n := tc.build(b, ws); n != nil {
				t.Fatalf("built %v", n.Shape())
			}
			if err := b.Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestDropout checks Dropout off (the identity) and on: the share of
// zeroed entries, the scale of the others, the same mask on the tape
// (float64 and float32) and on gorgonia for the same seed and step, a new
// mask for another step or seed, and the tape's gradient against finite
// differences with the mask fixed.
func TestDropout(t *testing.T) {
	const rows, cols, rate = 40, 100, 0.3
	rng := rand.New(rand.NewPCG(5, 5))
	p := tensorParams([][]int{{rows, cols}}, rng)
	b := NewBuilder()
	out := b.Dropout(b.Param(p, "p0"), rate)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	pr, err := newTapeProgram(b, []*G.Node{out}, nil, nil, p, Weights[float64]{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.noise) != 1 {
		t.Fatalf("%d noise states, want 1", len(pr.noise))
	}
	y := [][]float64{make([]float64, rows*cols)}
	cache := make([]float64, pr.cacheLen)
	x := p.Data("p0")
	run := func(seed uint64, step int, on bool) []float64 {
		b.noise.set(seed, on)
		b.noise.step = step
		pr.forward(nil, nil, nil, y, cache)
		return slices.Clone(y[0])
	}
	if off := run(3, 0, false); !slices.Equal(off, x) {
		t.Fatal("dropout off is not the identity")
	}
	on := run(3, 0, true)
	zero := 0
	for i, v := range on {
		switch {
		case v == 0:
			zero++
		case math.Abs(v-x[i]/(1-rate)) > 1e-15*math.Abs(v):
			t.Fatalf("entry %d: %v, want %v / (1 - rate)", i, v, x[i])
		}
	}
	// 4000 Bernoulli(0.3) draws: standard deviation of the share 0.0072.
	if share := float64(zero) / (rows * cols); math.Abs(share-rate) > 0.03 {
		t.Errorf("share of zeroed entries %.4f, want %.1f", share, rate)
	}
	if slices.Equal(run(3, 1, true), on) || slices.Equal(run(4, 0, true), on) {
		t.Error("another step or seed draws the same mask")
	}
	if !slices.Equal(run(3, 0, true), on) {
		t.Error("the same seed and step draw another mask")
	}

	// gorgonia's kernel and the float32 tape draw the same mask.
	w := make([]float64, rows*cols)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	m := weightedLossMachine(t, b, out, p, w)
	defer m.Close()
	b.noise.set(3, true)
	b.noise.step = 0
	_, loss, grad := tapeLoss(pr, w)
	compareWithMachine(t, m, p, loss, grad)
	checkFloat32Tape(t, b, out, p, w)
}
