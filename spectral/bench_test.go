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
