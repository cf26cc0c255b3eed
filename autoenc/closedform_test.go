package autoenc

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// exactTol bounds the reconstruction error of the full-rank closed form
// (the 1e-9 target; the values are O(1)).
const exactTol = 1e-9

// randomSeqs draws sequences of the given lengths with N(0, 1) entries.
func randomSeqs(rng *rand.Rand, k int, lengths ...int) [][]float64 {
	seqs := make([][]float64, len(lengths))
	for i, T := range lengths {
		seqs[i] = make([]float64, T*k)
		for j := range seqs[i] {
			seqs[i][j] = rng.NormFloat64()
		}
	}
	return seqs
}

// TestClosedFormExact checks section 2's claim: with p = rank(Xi) the
// decoder run from the last state reconstructs every input exactly, and
// the encoder's states are the rows of V Lambda.
func TestClosedFormExact(t *testing.T) {
	for _, c := range []struct {
		name    string
		k       int
		lengths []int
	}{
		{"tall", 2, []int{4, 3, 2, 4, 1}},  // 14 x 8
		{"wide", 3, []int{5}},              // 5 x 15
		{"binary-like", 4, []int{3, 6, 2}}, // 11 x 24
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(c.k)))
			seqs := randomSeqs(rng, c.k, c.lengths...)
			r, err := Rank(seqs, c.k)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ClosedForm(seqs, c.k, r)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for _, s := range seqs {
				rec, err := m.Reconstruct(s)
				if err != nil {
					t.Fatal(err)
				}
				for i := range s {
					worst = max(worst, math.Abs(rec[i]-s[i]))
				}
			}
			if worst > exactTol {
				t.Errorf("p = rank = %d: worst reconstruction error %.3g > %g", r, worst, exactTol)
			}
			t.Logf("p = rank = %d: worst reconstruction error %.3g", r, worst)
			// Y = Xi Omega = V Lambda: the squared norms of all states sum
			// to sum(lambda^2).
			ss, lam := 0.0, 0.0
			for _, s := range seqs {
				y, err := m.Encode(s)
				if err != nil {
					t.Fatal(err)
				}
				ss += mat.Norm(y, 2) * mat.Norm(y, 2)
			}
			for _, l := range m.Lambda {
				lam += l * l
			}
			if math.Abs(ss-lam) > 1e-8*lam {
				t.Errorf("sum of squared states %.10g, want sum lambda^2 = %.10g", ss, lam)
			}
		})
	}
}

// TestClosedFormTruncatedLoses checks that the test above can fail: with
// p = rank - 1 the reconstruction is no longer exact.
func TestClosedFormTruncatedLoses(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	seqs := randomSeqs(rng, 2, 4, 3, 2)
	r, err := Rank(seqs, 2)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ClosedForm(seqs, 2, r-1)
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.ReconstructionError(seqs)
	if err != nil {
		t.Fatal(err)
	}
	if e < 1e-3 {
		t.Errorf("p = rank-1: reconstruction error %g, want clearly > 0", e)
	}
}

func TestClosedFormBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	seqs := randomSeqs(rng, 2, 3, 2)
	for name, c := range map[string]struct {
		seqs [][]float64
		k, p int
	}{
		"p too big":   {seqs, 2, 99},
		"p zero":      {seqs, 2, 0},
		"k zero":      {seqs, 0, 1},
		"ragged":      {[][]float64{{1, 2, 3}}, 2, 1},
		"empty":       {nil, 2, 1},
		"nan":         {[][]float64{{1, math.NaN()}}, 2, 1},
		"empty seq":   {[][]float64{{}}, 2, 1},
		"zero matrix": {[][]float64{{0, 0, 0, 0}}, 2, 1},
	} {
		_, err := ClosedForm(c.seqs, c.k, c.p)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: multi-line error", name)
		}
		t.Logf("%s: %v", name, err)
	}
}
