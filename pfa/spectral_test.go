package pfa

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
)

// deterministicTarget is a 3-state deterministic automaton over 2
// symbols: the structure the spectral start should recover.
func deterministicTarget() *Model {
	m := New(KindPFA, 3, 2)
	w := 1 + 2*3
	for i := range m.Row {
		m.Row[i] = -30
	}
	set := func(q, col int, logit float64) { m.Row[q*w+col] = logit }
	m.Init = []float64{5, -30, -30}
	// state q: stop, symbol 0 -> q+1, symbol 1 -> q.
	for q := 0; q < 3; q++ {
		set(q, 0, float64(q)-1)
		set(q, 1+0*3+(q+1)%3, 0.5)
		set(q, 1+1*3+q, 0)
	}
	return m
}

func TestSpectralStartRecoversDeterministicTarget(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	target := deterministicTarget()
	seqs := randomStrings(t, target, 4000, rng)
	train, valid := seqs[:3600], seqs[3600:]
	w, err := wfa.FitSpec(train, 2, wfa.Spec{Variant: spectral.Classic, Rows: 3, Cols: 3, Rank: 3}, rng)
	if err != nil {
		t.Fatal(err)
	}
	truth := startLoss(target, valid, nil, 1)
	uniform := startLoss(New(KindPFA, 3, 2), valid, nil, 1)
	for _, tc := range []struct {
		kind Kind
		// share is the part of the distance from the uniform automaton
		// to the target that the start may leave: a PFA can be the
		// target, an HMM of 3 states only approximates it.
		share float64
	}{{KindPFA, 0.25}, {KindHMM, 0.5}} {
		kind := tc.kind
		t.Run(string(kind), func(t *testing.T) {
			m, err := SpectralStart(w, train, kind, 3, SpectralConfig{}, rng)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
			got := startLoss(m, valid, nil, 1)
			if !(got < truth+tc.share*(uniform-truth)) {
				t.Fatalf("start's validation loss %g: target %g, uniform %g", got, truth, uniform)
			}
		})
	}
}

// metricTol is the relative agreement asked of the transformed
// distances with the distances between predicted probabilities (the
// ridge of 1e-9 of the trace moves them a little).
const metricTol = 1e-6

func TestSuffixMetricDistances(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	target := Random(KindPFA, 3, 2, rng)
	seqs := randomStrings(t, target, 3000, rng)
	w, err := wfa.FitSpec(seqs, 2, wfa.Spec{Variant: spectral.Classic, Rows: 3, Cols: 3, Rank: 3}, rng)
	if err != nil {
		t.Fatal(err)
	}
	beta, err := w.Stop()
	if err != nil {
		t.Fatal(err)
	}
	k := w.States
	// predicted gives the probabilities of stopping and of the next one
	// or two symbols from the state x.
	predicted := func(x []float64) []float64 {
		dot := func(v []float64) float64 {
			s := 0.0
			for i := range v {
				s += x[i] * v[i]
			}
			return s
		}
		mul := func(a, v []float64) []float64 {
			u := make([]float64, k)
			for i := range k {
				for j := range k {
					u[i] += a[i*k+j] * v[j]
				}
			}
			return u
		}
		out := []float64{dot(w.Omega[:k])}
		for _, a := range w.Trans {
			v := mul(a, beta)
			out = append(out, dot(v))
			for _, b := range w.Trans {
				out = append(out, dot(mul(a, mul(b, beta))))
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		x, y []float64
	}{{"near", []float64{1, 0.2, -0.1}, []float64{0.9, 0.25, -0.05}}, {"far", []float64{1, 0, 0}, []float64{0.3, -0.5, 0.8}}} {
		t.Run(tc.name, func(t *testing.T) {
			want := 0.0
			px, py := predicted(tc.x), predicted(tc.y)
			for i := range px {
				want += (px[i] - py[i]) * (px[i] - py[i])
			}
			feat := append(append([]float64(nil), tc.x...), tc.y...)
			if !suffixMetric(w, beta, feat, 2) {
				t.Fatal("factorisation failed")
			}
			got := 0.0
			for i := range k {
				e := feat[i] - feat[k+i]
				got += e * e
			}
			if !(want > 0) || math.Abs(got-want) > metricTol*want {
				t.Fatalf("distance %g, between the predicted probabilities %g", got, want)
			}
		})
	}
}
