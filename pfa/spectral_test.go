package pfa

import (
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
