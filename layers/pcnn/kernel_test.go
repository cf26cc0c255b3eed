package pcnn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
)

// TestDenseMetricMatchesSparse checks the GEMM accumulation of the full
// metric blocks on a fully connected network against the per-unit loop,
// and the predicted-rows-only trace against the full one.
func TestDenseMetricMatchesSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	net, err := FullNetwork(5)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := New(PCNN, activation.Tanh, 3, net)
	s := datasets.Stream{X: make([]int, 700), Mask: make([]bool, 700)}
	for i := range s.X {
		s.X[i] = rng.IntN(3)
		s.Mask[i] = rng.IntN(7) == 0
	}
	if err := m.Init(s, rng); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"W", "tau"} {
		p := m.P.Data(name)
		for i := range p {
			p[i] += 0.3 * rng.NormFloat64()
		}
	}
	full, err := m.Forward(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	part, err := m.Forward(s, &Trace{PredictedOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if full.LogLik != part.LogLik && (graph.RowsIndependent || math.Abs(full.LogLik-part.LogLik) > 1e-12*math.Abs(full.LogLik)) {
		t.Fatalf("log-likelihood %v with every row, %v with the predicted rows", full.LogLik, part.LogLik)
	}
	B := make([]float64, (len(s.X)+1)*5)
	grad := m.P.Like()
	if err := m.Backward(s, part, grad, B); err != nil {
		t.Fatal(err)
	}
	B2, grad2 := make([]float64, len(B)), m.P.Like()
	if err := m.Backward(s, full, grad2, B2); err != nil {
		t.Fatal(err)
	}
	for _, name := range grad.Names() {
		for i, v := range grad.Data(name) {
			if w := grad2.Data(name)[i]; math.Abs(v-w) > 1e-12*(1+math.Abs(w)) {
				t.Fatalf("gradient %s[%d]: %v with the predicted rows, %v with every row", name, i, v, w)
			}
		}
	}
	mt := m.Moduli(s, part, B, true)
	base, size := make([]int, 5), 0
	for j := range base {
		base[j] = size
		size += 6 * 6
	}
	// Each kernel fills one symbol's blocks before its solve: keep a copy.
	dense, sparse := make([]float64, 3*size), make([]float64, 3*size)
	blk := make([]float64, size)
	keep := func(dst []float64) func(y int) {
		return func(y int) { copy(dst[y*size:(y+1)*size], blk) }
	}
	m.denseMetric(s, part, mt, blk, base, keep(dense))
	clear(blk)
	m.sparseMetric(s, part, mt, blk, base, keep(sparse))
	for j := range 5 {
		for y := range 3 {
			for k := range 6 {
				for k2 := k; k2 < 6; k2++ {
					at := y*size + base[j] + k*6 + k2
					if math.Abs(dense[at]-sparse[at]) > 1e-12*(1+math.Abs(sparse[at])) {
						t.Fatalf("block (%d, %d) [%d, %d]: dense %v, sparse %v", j+1, y, k, k2, dense[at], sparse[at])
					}
				}
			}
		}
	}
}
