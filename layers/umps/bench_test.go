package umps

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func randomSeqs(rng *rand.Rand, count, n, d int) [][]int {
	out := make([][]int, count)
	for b := range out {
		out[b] = make([]int, n)
		for t := range out[b] {
			out[b][t] = rng.IntN(d)
		}
	}
	return out
}

// NLL forward and backward through the fused graph, one batch of 50
// strings of length 15 over 2 symbols.
func BenchmarkNLLStep(b *testing.B) {
	for _, D := range []int{20, 50} {
		b.Run(fmt.Sprintf("D=%d", D), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			p, err := NewParams(D, 2, NearIdentity, rng)
			if err != nil {
				b.Fatal(err)
			}
			n, err := NewNLL(p, 50, 15, PerLength)
			if err != nil {
				b.Fatal(err)
			}
			seqs := randomSeqs(rng, 50, 15, 2)
			g := p.Like()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				g.Zero()
				if _, err := n.Run(seqs, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Sampling rate for R = Sigma^30 and for a fill-in-the-blank regex, D = 20;
// ns/op is per string (all b.N strings in one call, environments cached).
func BenchmarkSample(b *testing.B) {
	m, err := New(20, 2, RandomNormal, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	t, err := NewTransfer(m)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	b.Run("sigma30", func(b *testing.B) {
		if _, err := t.SampleLength(30, b.N, rng); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("fillin-1010.{10}0101", func(b *testing.B) {
		if _, err := t.FillIn([]int{1, 0, 1, 0}, []int{0, 1, 0, 1}, 10, b.N, rng); err != nil {
			b.Fatal(err)
		}
	})
}

// Log-depth parallel evaluation against sequential evaluation of one
// string, D = 20.
func BenchmarkEval(b *testing.B) {
	m, err := New(20, 2, NearIdentity, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1000, 10000} {
		seqs := randomSeqs(rand.New(rand.NewPCG(3, 3)), 1, n, 2)
		b.Run(fmt.Sprintf("sequential/n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, _, err := m.LogAmplitudes(seqs); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("parallel/n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, _, err := m.LogAmplitudesParallel(seqs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// log Z_* and its gradient (zStarKernel, no cache hit) over 6 symbols,
// the core scaled to ||E(I)|| = 0.9, by the dense LU and by gmres.
func BenchmarkZStar(b *testing.B) {
	for _, D := range []int{20, 32, 50, 73} {
		for _, init := range []Init{NearIdentity, RandomNormal} {
			m, err := New(D, 6, init, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				b.Fatal(err)
			}
			t, err := NewTransfer(m)
			if err != nil {
				b.Fatal(err)
			}
			r, err := t.radiusBound(allSymbols(6))
			if err != nil {
				b.Fatal(err)
			}
			for i := range m.A {
				m.A[i] *= math.Sqrt(0.9 / r)
			}
			for _, solver := range []string{"dense", "gmres"} {
				b.Run(fmt.Sprintf("D=%d/init=%d/%s", D, init, solver), func(b *testing.B) {
					from := 1 << 30
					if solver == "gmres" {
						from = 1
					}
					withIterativeFrom(from, func() {
						for i := 0; i < b.N; i++ {
							zc := &zStarCache{D: D, d: 6}
							if _, _, err := zStarKernel(zc, m.A, m.Alpha, m.Omega, true); err != nil {
								b.Fatal(err)
							}
						}
					})
				})
			}
		}
	}
}
