package pcnn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
)

// bruteLogLik sums P(x, path) over every state path.
func bruteLogLik(h *HMM, x []int) float64 {
	var total float64
	var rec func(t, s int, p float64)
	rec = func(t, s int, p float64) {
		p *= h.Emit[s*h.A+x[t]]
		if t+1 == len(x) {
			total += p
			return
		}
		for k, j := range h.Out[s] {
			rec(t+1, j, p*h.Trans[s][k])
		}
	}
	for s := range h.K {
		rec(0, s, h.Start[s])
	}
	return math.Log(total)
}

func TestHMMForwardIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	x := []int{0, 2, 1, 1, 0, 2}
	h, err := NewHMM(3, 2, datasets.Stream{X: x}, 3, rng)
	if err != nil {
		t.Fatal(err)
	}
	got, want := h.LogLik(x, false), bruteLogLik(h, x)
	if math.Abs(got-want) > 1e-12 {
		t.Fatalf("forward %v, brute force over paths %v", got, want)
	}
}

// TestBaumWelchIsMonotone: EM never lowers the likelihood.
func TestBaumWelchIsMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 32))
	s := randomSeq(rng, 200, 3)
	h, _ := NewHMM(5, 3, s, 3, rng)
	prev := math.Inf(-1)
	for range 15 {
		ll := h.BaumWelch(s.X)
		if ll < prev-1e-9 {
			t.Fatalf("log-likelihood fell from %v to %v", prev, ll)
		}
		prev = ll
	}
	if final := h.LogLik(s.X, false); final < prev-1e-9 {
		t.Fatalf("log-likelihood fell from %v to %v", prev, final)
	}
}
