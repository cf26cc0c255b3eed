package graph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// gemmCase is one product for the Gemm tests, with the stored matrices.
type gemmCase[F Float] struct {
	transA, transB bool
	m, n, k        int
	lda, ldb, ldc  int
	a, b, c        []F
}

// newGemmCase fills a, b and c with seeded draws; each stride exceeds its
// row length by pad.
func newGemmCase[F Float](rng *rand.Rand, transA, transB bool, m, n, k, pad int) gemmCase[F] {
	g := gemmCase[F]{transA: transA, transB: transB, m: m, n: n, k: k}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	g.lda, g.ldb, g.ldc = ac+pad, bc+pad, n+pad
	fill := func(rows, ld int) []F {
		s := make([]F, rows*ld)
		for i := range s {
			s[i] = F(rng.NormFloat64())
		}
		return s
	}
	g.a, g.b, g.c = fill(ar, g.lda), fill(br, g.ldb), fill(m, g.ldc)
	return g
}

func (g gemmCase[F]) at(s []F, ld int, trans bool, i, j int) float64 {
	if trans {
		return float64(s[j*ld+i])
	}
	return float64(s[i*ld+j])
}

// run computes the product into g.c.
func (g gemmCase[F]) run(alpha, beta F) {
	GemmOf(g.transA, g.transB, g.m, g.n, g.k, alpha, g.a, g.lda, g.b, g.ldb, beta, g.c, g.ldc)
}

// forFloats runs a test in float64 (test64) and float32 (test32).
func forFloats(t *testing.T, test64 func(*testing.T), test32 func(*testing.T)) {
	t.Run("float64", test64)
	t.Run("float32", test32)
}

// TestGemmBruteForce compares Gemm with the sum of products entry by entry,
// summed in float64, for all four layouts, sizes off and on the kernels'
// panels (6 x 8 in float64, 6 x 16 in float32) and blocks (96 rows, 480
// columns, 256 terms), strides wider than the rows, and alpha, beta among
// 1, 0 (c holding NaN, which beta 0 ignores) and other values. Entries
// outside the m x n block of c must not change. The error allowed is a
// multiple of the type's rounding error times the number of terms.
func TestGemmBruteForce(t *testing.T) {
	forFloats(t, testGemmBruteForce[float64], testGemmBruteForce[float32])
}

func testGemmBruteForce[F Float](t *testing.T) {
	eps := 1e-14
	if is32[F]() {
		eps = 1e-6
	}
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := [][3]int{{1, 1, 1}, {3, 5, 7}, {6, 8, 1}, {7, 9, 2}, {6, 16, 3}, {5, 17, 6}, {8, 24, 30}, {20, 16, 41}, {10, 32, 9}, {13, 25, 300}, {9, 49, 257}, {100, 30, 17}, {7, 500, 3}, {33, 50, 600}, {2, 3, 0}}
	for _, sz := range sizes {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for _, ab := range [][2]F{{1, 0}, {1, 1}, {-0.5, 0.3}} {
				name := fmt.Sprintf("%v/trans%v/alpha%v/beta%v", sz, tr, ab[0], ab[1])
				g := newGemmCase[F](rng, tr[0], tr[1], sz[0], sz[1], sz[2], 3)
				c0 := append([]F(nil), g.c...)
				if ab[1] == 0 {
					for i := range g.m {
						g.c[i*g.ldc] = F(math.NaN())
					}
				}
				g.run(ab[0], ab[1])
				alpha, beta := float64(ab[0]), float64(ab[1])
				for i := range g.m {
					for j := range g.ldc {
						got := float64(g.c[i*g.ldc+j])
						if j >= g.n {
							if got != float64(c0[i*g.ldc+j]) {
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
						want = alpha*want + beta*float64(c0[i*g.ldc+j])
						scale = math.Abs(alpha)*scale + math.Abs(beta*float64(c0[i*g.ldc+j]))
						if math.Abs(got-want) > eps*float64(g.k+2)*scale || math.IsNaN(got) {
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
	forFloats(t, testGemmRowsIndependent[float64], testGemmRowsIndependent[float32])
}

func testGemmRowsIndependent[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][3]int{{103, 50, 300}, {301, 530, 70}} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			m, n, k := sz[0], sz[1], sz[2]
			g := newGemmCase[F](rng, tr[0], tr[1], m, n, k, 0)
			full := make([]F, m*n)
			GemmOf(g.transA, g.transB, m, n, k, 1, g.a, g.lda, g.b, g.ldb, 0, full, n)
			for _, rows := range [][2]int{{0, 1}, {1, 6}, {5, 102}, {97, 103}, {50, 53}} {
				i0, i1 := rows[0], rows[1]
				a := g.a[i0:]
				if !g.transA {
					a = g.a[i0*g.lda:]
				}
				part := make([]F, (i1-i0)*n)
				GemmOf(g.transA, g.transB, i1-i0, n, k, 1, a, g.lda, g.b, g.ldb, 0, part, n)
				for j, v := range part {
					if v != full[i0*n+j] {
						t.Fatalf("%v trans %v rows %d..%d: entry %d is %.17g alone, %.17g in the full product", sz, tr, i0, i1, j, float64(v), float64(full[i0*n+j]))
					}
				}
			}
		}
	}
}

// TestGemmNoAllocations checks that Gemm allocates nothing once it has
// run, on one goroutine and cut over two: the step kernels call it at
// every time step.
func TestGemmNoAllocations(t *testing.T) {
	forFloats(t, testGemmNoAllocations[float64], testGemmNoAllocations[float32])
}

func testGemmNoAllocations[F Float](t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the second product is cut over two goroutines
	for _, sz := range [][3]int{{37, 130, 300}, {300, 600, 700}} {
		g := newGemmCase[F](rand.New(rand.NewPCG(7, 8)), false, true, sz[0], sz[1], sz[2], 1)
		run := func() { g.run(1, 1) }
		run()
		if n := testing.AllocsPerRun(3, run); n != 0 {
			t.Errorf("%v: %v allocations per product, want 0", sz, n)
		}
	}
}

// TestGemmRejectsShortMatrices checks that Gemm panics rather than read
// past a slice too short for the shape it is given.
func TestGemmRejectsShortMatrices(t *testing.T) {
	forFloats(t, testGemmRejectsShortMatrices[float64], testGemmRejectsShortMatrices[float32])
}

func testGemmRejectsShortMatrices[F Float](t *testing.T) {
	a, b, c := make([]F, 6), make([]F, 12), make([]F, 8)
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
			GemmOf(false, false, tc.m, tc.n, tc.k, 1, a, tc.k, b, tc.n, 0, c, tc.n)
		}()
	}
}

// BenchmarkGemm times the products of one LSTM step (batch 32, 88 inputs,
// 100 units: gates 400 wide) and of a block of 64 steps, in GFLOP/s, in
// float64 and float32:
//
//	go test -run X -bench Gemm ./graph
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
		b.Run(s.name+"/float64", func(b *testing.B) { benchGemm[float64](b, s.transA, s.transB, s.m, s.n, s.k) })
		b.Run(s.name+"/float32", func(b *testing.B) { benchGemm[float32](b, s.transA, s.transB, s.m, s.n, s.k) })
	}
}

func benchGemm[F Float](b *testing.B, transA, transB bool, m, n, k int) {
	g := newGemmCase[F](rand.New(rand.NewPCG(5, 6)), transA, transB, m, n, k, 0)
	for b.Loop() {
		g.run(1, 1)
	}
	b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
