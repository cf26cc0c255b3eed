package pfa

import (
	"math"
	"math/rand/v2"
	"testing"
)

// mixtureTol is the relative agreement asked of a mixture's probability
// with the weighted sum of its components'.
const mixtureTol = 1e-10

func TestMixtureIsTheWeightedSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	comps := []*Model{Random(KindPFA, 3, 2, rng), Random(KindHMM, 2, 2, rng), Random(KindPFA, 4, 2, rng)}
	weights := []float64{0.5, 1, 0.5}
	mix, err := Mixture(comps, weights)
	if err != nil {
		t.Fatal(err)
	}
	if mix.States != 9 || mix.Validate() != nil {
		t.Fatalf("mixture of %d states (want 9), valid: %v", mix.States, mix.Validate())
	}
	for _, x := range allStrings(2, 4) {
		want := 0.0
		for i, c := range comps {
			want += weights[i] / 2 * math.Exp(c.LogProb(x))
		}
		got := math.Exp(mix.LogProb(x))
		if math.Abs(got-want) > mixtureTol*want {
			t.Fatalf("P(%v) = %g, weighted sum of the components %g", x, got, want)
		}
	}
}

func TestMixtureWeightsFindTheSource(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 19))
	a, b := Random(KindPFA, 3, 3, rng), Random(KindPFA, 3, 3, rng)
	for _, tc := range []struct {
		name   string
		source *Model
		want   int
	}{{"first", a, 0}, {"second", b, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			seqs := randomStrings(t, tc.source, 2000, rng)
			logp := [][]float64{a.LogProbs(seqs, 1), b.LogProbs(seqs, 1)}
			w := MixtureWeights(logp, nil, 200)
			if math.Abs(w[0]+w[1]-1) > 1e-12 || !(w[tc.want] > 0.9) {
				t.Fatalf("weights %v: want most on component %d", w, tc.want)
			}
		})
	}
}

func TestUnigramFrequencies(t *testing.T) {
	seqs := [][]int{{0, 1, 1}, {}, {2}}
	// counts plus one: end 3+1, symbol 0 1+1, symbol 1 2+1, symbol 2 1+1.
	want := []float64{4.0 / 11, 2.0 / 11, 3.0 / 11, 2.0 / 11}
	p := Unigram(seqs, 3).Probs()
	got := []float64{p.Stop[0], p.M[0], p.M[1], p.M[2]}
	for i := range want {
		if math.Abs(got[i]-want[i]) > mixtureTol {
			t.Fatalf("probability %d is %g, want %g", i, got[i], want[i])
		}
	}
}
