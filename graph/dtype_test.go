package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/params"
)

// TestGemm32 compares the float32 product with the float64 one on the
// same (float32-representable) values, for every transposition, at sizes
// that are and are not cut into tiles, with beta 0 and 1.
func TestGemm32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][3]int{{3, 5, 4}, {130, 200, 70}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for _, beta := range []float64{0, 1} {
				t.Run(fmt.Sprintf("%dx%dx%d/%v/%v", m, n, k, tr, beta), func(t *testing.T) {
					draw := func(n int) ([]float64, []float32) {
						a, b := make([]float64, n), make([]float32, n)
						for i := range a {
							b[i] = float32(rng.NormFloat64())
							a[i] = float64(b[i])
						}
						return a, b
					}
					a64, a32 := draw(m * k)
					b64, b32 := draw(k * n)
					c64, c32 := draw(m * n)
					lda, ldb := k, n
					if tr[0] {
						lda = m
					}
					if tr[1] {
						ldb = k
					}
					GemmOf(tr[0], tr[1], m, n, k, 0.5, a64, lda, b64, ldb, beta, c64, n)
					GemmOf(tr[0], tr[1], m, n, k, 0.5, a32, lda, b32, ldb, float32(beta), c32, n)
					for i, w := range c64 {
						if d := math.Abs(float64(c32[i]) - w); d > 1e-5*math.Sqrt(float64(k))*math.Max(1, math.Abs(w)) {
							t.Fatalf("c[%d] = %v, float64 %v", i, c32[i], w)
						}
					}
				})
			}
		}
	}
}

// TestMirror checks that a mirror copies on first use, keeps its copy
// until Sync and reads nil for a missing tensor.
func TestMirror(t *testing.T) {
	p := params.New()
	p.Add("w", 2, 2)
	p.Set("w", []float64{1, 2, 3, 1.0 / 3})
	m := NewMirror()
	w := m.Weights32()
	got := w.Data(p, "w")
	if got[3] != float32(1.0/3) || got[1] != 2 {
		t.Fatalf("mirror %v", got)
	}
	p.Data("w")[0] = 5
	if w.Data(p, "w")[0] != 1 {
		t.Error("the mirror changed before Sync")
	}
	m.Sync()
	if got[0] != 5 {
		t.Errorf("after Sync: %v, want 5", got[0])
	}
	if w.Data(p, "none") != nil {
		t.Error("a missing tensor is not nil")
	}
	if (Weights[float64]{}).Data(p, "w")[0] != 5 {
		t.Error("float64 weights do not read the set")
	}
}

// TestTapeOps32 runs each recorded op on the tape in float32 and in
// float64 and compares values and vector-Jacobian products to float32
// precision.
func TestTapeOps32(t *testing.T) {
	for _, tc := range tapeOpCases() {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 1))
			b, p, out, pr64 := buildTapeOp(t, tc, rng)
			m := NewMirror()
			pr32, err := newTapeProgram(b, []*G.Node{out}, nil, nil, p, m.Weights32(), false)
			if err != nil {
				t.Fatal(err)
			}
			size := out.Shape().TotalSize()
			w64, w32 := make([]float64, size), make([]float32, size)
			for i := range w64 {
				w32[i] = float32(rng.NormFloat64())
				w64[i] = float64(w32[i])
			}
			y64, y32 := [][]float64{make([]float64, size)}, [][]float32{make([]float32, size)}
			c64, c32 := make([]float64, pr64.cacheLen), make([]float32, pr32.cacheLen)
			pr64.forward(nil, nil, nil, y64, c64)
			pr32.forward(nil, nil, nil, y32, c32)
			for i, v := range y64[0] {
				if math.Abs(float64(y32[0][i])-v) > 1e-5*math.Max(1, math.Abs(v)) {
					t.Errorf("value[%d] = %v, float64 %v", i, y32[0][i], v)
				}
			}
			g64 := p.Like()
			pr64.backward(nil, nil, c64, [][]float64{w64}, nil, GradsOf(g64))
			g32 := &grads32{index: map[string]int{}}
			for i, n := range p.Names() {
				g32.index[n] = i
				g32.g = append(g32.g, make([]float32, len(p.Data(n))))
			}
			pr32.backward(nil, nil, c32, [][]float32{w32}, nil, Grads[float32]{g: g32})
			for _, n := range p.Names() {
				for i, v := range g64.Data(n) {
					if math.Abs(float64(g32.Data(n)[i])-v) > 1e-5*math.Max(1, math.Abs(v)) {
						t.Errorf("gradient %s[%d] = %v, float64 %v", n, i, g32.Data(n)[i], v)
					}
				}
			}
		})
	}
}
