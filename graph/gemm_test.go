package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// gemmCase is one product for the Gemm tests, with the stored matrices.
type gemmCase struct {
	transA, transB bool
	m, n, k        int
	lda, ldb, ldc  int
	a, b, c        []float64
}

// newGemmCase fills a, b and c with seeded draws; each stride exceeds its
// row length by pad.
func newGemmCase(rng *rand.Rand, transA, transB bool, m, n, k, pad int) gemmCase {
	g := gemmCase{transA: transA, transB: transB, m: m, n: n, k: k}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	g.lda, g.ldb, g.ldc = ac+pad, bc+pad, n+pad
	fill := func(rows, ld int) []float64 {
		s := make([]float64, rows*ld)
		for i := range s {
			s[i] = rng.NormFloat64()
		}
		return s
	}
	g.a, g.b, g.c = fill(ar, g.lda), fill(br, g.ldb), fill(m, g.ldc)
	return g
}

func (g gemmCase) at(s []float64, ld int, trans bool, i, j int) float64 {
	if trans {
		return s[j*ld+i]
	}
	return s[i*ld+j]
}

// TestGemmBruteForce compares Gemm with the sum of products entry by entry
// for all four layouts, sizes off and on the kernel's panels (4 x 12) and
// blocks (96 rows, 480 columns, 256 terms), strides wider than the rows,
// and alpha, beta among 1, 0 (c holding NaN, which beta 0 ignores) and
// other values. Entries outside the m x n block of c must not change.
func TestGemmBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := [][3]int{{1, 1, 1}, {3, 5, 7}, {4, 12, 1}, {5, 13, 2}, {8, 24, 30}, {13, 25, 300}, {100, 30, 17}, {7, 500, 3}, {33, 50, 600}, {2, 3, 0}}
	for _, sz := range sizes {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for _, ab := range [][2]float64{{1, 0}, {1, 1}, {-0.5, 0.3}} {
				name := fmt.Sprintf("%v/trans%v/alpha%v/beta%v", sz, tr, ab[0], ab[1])
				g := newGemmCase(rng, tr[0], tr[1], sz[0], sz[1], sz[2], 3)
				c0 := append([]float64(nil), g.c...)
				if ab[1] == 0 {
					for i := range g.m {
						g.c[i*g.ldc] = math.NaN()
					}
				}
				Gemm(g.transA, g.transB, g.m, g.n, g.k, ab[0], g.a, g.lda, g.b, g.ldb, ab[1], g.c, g.ldc)
				for i := range g.m {
					for j := range g.ldc {
						got := g.c[i*g.ldc+j]
						if j >= g.n {
							if got != c0[i*g.ldc+j] {
								t.Fatalf("%s: c[%d][%d] outside the product changed", name, i, j)
							}
							continue
						}
						var want, scale float64
						for l := range g.k {
							v := g.at(g.a, g.lda, g.transA, i, l) * g.at(g.b, g.ldb, g.transB, l, j)
							want += v
							scale += math.Abs(v)
						}
						want = ab[0]*want + ab[1]*c0[i*g.ldc+j]
						scale = math.Abs(ab[0])*scale + math.Abs(ab[1]*c0[i*g.ldc+j])
						if math.Abs(got-want) > 1e-14*float64(g.k+2)*scale || math.IsNaN(got) {
							t.Fatalf("%s: c[%d][%d] = %.17g, want %.17g", name, i, j, got, want)
						}
					}
				}
			}
		}
	}
}

// TestGemmRowsIndependent checks that each row of a product has the same
// bits whatever rows it is computed with, and wherever they start: the
// fused executor computes the input projections of a block of steps in
// one product and relies on it. OpenBLAS makes no such promise (its
// kernels depend on the sizes), so the test is for the default build.
func TestGemmRowsIndependent(t *testing.T) {
	if !tileGemm {
		t.Skip("OpenBLAS: the bits of a row depend on the size of the product")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
		const m, n, k = 103, 50, 300
		g := newGemmCase(rng, tr[0], tr[1], m, n, k, 0)
		full := make([]float64, m*n)
		Gemm(g.transA, g.transB, m, n, k, 1, g.a, g.lda, g.b, g.ldb, 0, full, n)
		for _, rows := range [][2]int{{0, 1}, {1, 6}, {5, 102}, {97, 103}, {50, 53}} {
			i0, i1 := rows[0], rows[1]
			a := g.a[i0*g.lda:]
			if g.transA {
				a = g.a[i0:]
			}
			part := make([]float64, (i1-i0)*n)
			Gemm(g.transA, g.transB, i1-i0, n, k, 1, a, g.lda, g.b, g.ldb, 0, part, n)
			for j, v := range part {
				if v != full[i0*n+j] {
					t.Fatalf("trans %v rows %d..%d: entry %d is %.17g alone, %.17g in the full product", tr, i0, i1, j, v, full[i0*n+j])
				}
			}
		}
	}
}

// TestGemmNoAllocations checks that Gemm allocates nothing once it has
// run: the step kernels call it at every time step.
func TestGemmNoAllocations(t *testing.T) {
	g := newGemmCase(rand.New(rand.NewPCG(7, 8)), false, true, 37, 130, 300, 1)
	run := func() { Gemm(g.transA, g.transB, g.m, g.n, g.k, 1, g.a, g.lda, g.b, g.ldb, 1, g.c, g.ldc) }
	run()
	if n := testing.AllocsPerRun(5, run); n != 0 {
		t.Errorf("%v allocations per product, want 0", n)
	}
}

// TestGemmRejectsShortMatrices checks that Gemm panics rather than read
// past a slice too short for the shape it is given.
func TestGemmRejectsShortMatrices(t *testing.T) {
	a, b, c := make([]float64, 6), make([]float64, 12), make([]float64, 8)
	for _, tc := range []struct {
		name    string
		m, n, k int
	}{{"a", 3, 4, 3}, {"b", 2, 4, 4}, {"c", 2, 5, 3}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s too short: no panic", tc.name)
				}
			}()
			Gemm(false, false, tc.m, tc.n, tc.k, 1, a, tc.k, b, tc.n, 0, c, tc.n)
		}()
	}
}

// BenchmarkGemm times the products of one LSTM step (batch 32, 88 inputs,
// 100 units: gates 400 wide) and of a block of 64 steps, in GFLOP/s.
func BenchmarkGemm(b *testing.B) {
	for _, s := range []struct {
		name           string
		transA, transB bool
		m, n, k        int
	}{
		{"step-hU", false, false, 32, 400, 100},
		{"block-xW", false, false, 64 * 32, 400, 88},
		{"step-dW", true, false, 88, 400, 32},
		{"step-dU", true, false, 100, 400, 32},
		{"block-dU", true, false, 100, 400, 64 * 32},
		{"step-dzUT", false, true, 32, 100, 400},
	} {
		b.Run(s.name, func(b *testing.B) {
			g := newGemmCase(rand.New(rand.NewPCG(5, 6)), s.transA, s.transB, s.m, s.n, s.k, 0)
			for b.Loop() {
				Gemm(g.transA, g.transB, g.m, g.n, g.k, 1, g.a, g.lda, g.b, g.ldb, 1, g.c, g.ldc)
			}
			b.ReportMetric(2*float64(s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
