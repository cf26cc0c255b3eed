package autoenc

import (
	"math/rand/v2"
	"testing"
)

// TestRefineNeverWorse checks section 2.1: for p < rank(Xi) the slack
// solution of eq. (5) is never worse than the truncated closed form, and
// on these cases strictly better (so the test can fail).
func TestRefineNeverWorse(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, c := range []struct {
		name    string
		k       int
		lengths []int
		p       int
	}{
		{"p=2", 2, []int{5, 4, 3}, 2},
		{"p=4", 3, []int{6, 2, 4}, 4},
		{"p=1", 2, []int{4, 4}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			seqs := randomSeqs(rng, c.k, c.lengths...)
			res, err := Refine(seqs, c.k, c.p, RefineConfig{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("eq. (5) objective %.6g -> %.6g in %d iterations; reconstruction error %.6g",
				res.Initial, res.Final, res.Iterations, res.ReconstructionError)
			if res.Final > res.Initial {
				t.Errorf("refined objective %g > closed form %g", res.Final, res.Initial)
			}
			if res.Final > 0.999*res.Initial {
				t.Errorf("refined objective %g did not improve on %g", res.Final, res.Initial)
			}
		})
	}
}

// TestRefineFullRank checks that at p = rank(Xi) the closed form already
// satisfies eq. (4): the slack objective is zero.
func TestRefineFullRank(t *testing.T) {
	seqs := randomSeqs(rand.New(rand.NewPCG(5, 5)), 2, 4, 3, 2)
	r, err := Rank(seqs, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Refine(seqs, 2, r, RefineConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Initial > 1e-18 || res.ReconstructionError > 1e-18 {
		t.Errorf("p = rank: objective %g, reconstruction error %g, want 0", res.Initial, res.ReconstructionError)
	}
}
