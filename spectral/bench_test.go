package spectral

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkTIHT times the recovery of H^(5) (d = 3, L = 2, the paper's
// random 2-RNN) by TIHT from noisy examples: Gram build plus iterations.
// Run with -benchmem for the allocations.
func BenchmarkTIHT(b *testing.B) {
	p, err := RandomTwoRNNProblem(RandomTwoRNNConfig{}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1280, 20000} {
		s, err := p.Sample(n, 5, 0.1, rand.New(rand.NewPCG(2, 2)))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := TIHT(s, 5, IHTConfig{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkALSSweep times one mini-batch ALS sweep of the tensor-train
// path on H^(7) with d = 10 (10^7 x 2 entries, never formed), rank 4.
func BenchmarkALSSweep(b *testing.B) {
	p, err := RandomTwoRNNProblem(RandomTwoRNNConfig{States: 4, In: 10}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	s, err := p.Sample(20000, 7, 0, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		b.Fatal(err)
	}
	for _, batch := range []int{2000, 20000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := ALS(s, 4, ALSConfig{MaxSweeps: 1, Batch: batch}, rand.New(rand.NewPCG(3, 3))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchStrings draws n strings over d symbols, the size of a PAutomaC
// training sample at n = 20,000: geometric lengths of mean 8, each symbol
// the previous one plus 1 or 2 (mod d) half the time and uniform
// otherwise, so that factors repeat as they do in real samples.
func benchStrings(n, d int) [][]int {
	rng := rand.New(rand.NewPCG(7, 7))
	seqs := make([][]int, n)
	for i := range seqs {
		var s []int
		for rng.Float64() > 1.0/9 {
			c := rng.IntN(d)
			if len(s) > 0 && rng.IntN(2) == 0 {
				c = (s[len(s)-1] + 1 + rng.IntN(2)) % d
			}
			s = append(s, c)
		}
		seqs[i] = s
	}
	return seqs
}

// BenchmarkStringHankel times the factor Hankel matrices at lrows =
// lcolumns = 5 of a PAutomaC-sized sample (rtn wfa learn's largest
// configuration): counting, bases and the compressed matrices.
func BenchmarkStringHankel(b *testing.B) {
	seqs := benchStrings(20000, 10)
	for b.Loop() {
		if _, err := NewStringHankel(seqs, 10, StringHankelConfig{Variant: Factor, Rows: 5, Cols: 5}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFactorize times the randomized truncated SVD of those matrices
// and the projections of every H_sigma, at rank 50 (the top of rtn wfa
// learn's grid) and at ranks 6 and 13 (final fits of a few states).
func BenchmarkFactorize(b *testing.B) {
	h, err := NewStringHankel(benchStrings(20000, 10), 10, StringHankelConfig{Variant: Factor, Rows: 5, Cols: 5})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d x %d, %d entries", h.H.Rows, h.H.Cols, h.H.NNZ())
	for _, rank := range []int{6, 13, 50} {
		b.Run(fmt.Sprintf("rank=%d", rank), func(b *testing.B) {
			for b.Loop() {
				if _, err := h.Factorize(rank, rand.New(rand.NewPCG(1, 2))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
