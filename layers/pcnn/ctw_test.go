package pcnn

import (
	"math"
	"testing"
)

// allSeqs lists every sequence of length n over a symbols.
func allSeqs(n, a int) [][]int {
	out := [][]int{{}}
	for range n {
		var next [][]int
		for _, s := range out {
			for x := range a {
				next = append(next, append(append([]int(nil), s...), x))
			}
		}
		out = next
	}
	return out
}

func ctwLogProb(t *testing.T, s []int, a, depth int) float64 {
	c, err := NewCTW(a, depth)
	if err != nil {
		t.Fatal(err)
	}
	var ll float64
	for _, x := range s {
		lp, err := c.Update(x)
		if err != nil {
			t.Fatal(err)
		}
		ll += lp
	}
	return ll
}

// TestCTWIsADistribution: for every depth, the CTW probabilities of all
// sequences of a length sum to 1 (brute force over 3^6 sequences).
func TestCTWIsADistribution(t *testing.T) {
	for depth := range 4 {
		var sum float64
		for _, s := range allSeqs(6, 3) {
			sum += math.Exp(ctwLogProb(t, s, 3, depth))
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("depth %d: probabilities sum to %v", depth, sum)
		}
	}
}

// TestCTWDepthZeroIsKT: at depth 0 CTW is the KT estimator, whose
// sequence probability has the closed form
// prod_x Gamma(c_x + 1/2)/Gamma(1/2) * Gamma(A/2)/Gamma(n + A/2).
func TestCTWDepthZeroIsKT(t *testing.T) {
	s := []int{0, 2, 2, 1, 0, 2, 2, 2, 3, 0}
	const a = 4
	counts := make([]float64, a)
	for _, x := range s {
		counts[x]++
	}
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	want := lg(a/2.0) - lg(float64(len(s))+a/2.0)
	for _, c := range counts {
		want += lg(c+0.5) - lg(0.5)
	}
	if got := ctwLogProb(t, s, a, 0); math.Abs(got-want) > 1e-12 {
		t.Fatalf("depth-0 CTW %v, KT closed form %v", got, want)
	}
}

// TestCTWDepthOneMixture: at depth 1 the root's probability is the
// half-half mixture of the memoryless KT estimate and the product of the
// per-context KT estimates (contexts: the previous symbol or padding).
func TestCTWDepthOneMixture(t *testing.T) {
	s := []int{1, 0, 1, 1, 0, 0, 1}
	kt := func(xs []int) float64 {
		var ll float64
		c, _ := NewCTW(2, 0)
		for _, x := range xs {
			lp, _ := c.Update(x)
			ll += lp
		}
		return ll
	}
	split := map[int][]int{}
	prev := 2
	for _, x := range s {
		split[prev] = append(split[prev], x)
		prev = x
	}
	var prod float64
	for _, xs := range split {
		prod += kt(xs)
	}
	want := logMeanExp(kt(s), prod)
	if got := ctwLogProb(t, s, 2, 1); math.Abs(got-want) > 1e-12 {
		t.Fatalf("depth-1 CTW %v, mixture %v", got, want)
	}
	if _, err := NewCTW(1, 2); err == nil {
		t.Error("alphabet of 1 accepted")
	}
}
