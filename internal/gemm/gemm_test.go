package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// product is one Gemm call with its stored matrices.
type product[F Float] struct {
	transA, transB bool
	m, n, k        int
	lda, ldb, ldc  int
	a, b, c        []F
}

// newProduct fills a, b and c with seeded draws; each stride exceeds its
// row length by pad.
func newProduct[F Float](rng *rand.Rand, transA, transB bool, m, n, k, pad int) product[F] {
	p := product[F]{transA: transA, transB: transB, m: m, n: n, k: k}
	ar, ac, br, bc := m, k, k, n
	if transA {
		ar, ac = k, m
	}
	if transB {
		br, bc = n, k
	}
	p.lda, p.ldb, p.ldc = ac+pad, bc+pad, n+pad
	fill := func(rows, ld int) []F {
		s := make([]F, rows*ld)
		for i := range s {
			s[i] = F(rng.NormFloat64())
		}
		return s
	}
	p.a, p.b, p.c = fill(ar, p.lda), fill(br, p.ldb), fill(m, p.ldc)
	return p
}

func (p product[F]) run(alpha, beta F) {
	Gemm(p.transA, p.transB, p.m, p.n, p.k, alpha, p.a, p.lda, p.b, p.ldb, beta, p.c, p.ldc)
}

// opAt is entry (i, j) of op(s).
func opAt[F Float](s []F, ld int, trans bool, i, j int) float64 {
	if trans {
		return float64(s[j*ld+i])
	}
	return float64(s[i*ld+j])
}

func needKernels(t testing.TB) {
	if !Available() {
		t.Skip("no AVX and FMA here, or the purego build")
	}
}

// TestBruteForce compares Gemm with the sum of products entry by entry,
// summed in float64, for the four layouts, sizes off and on the panels (4
// x 12 in float64, 4 x 24 in float32) and blocks (gemmMC rows, gemmNC
// columns, gemmKC terms, and the strides that decide packing), strides
// wider than the rows, and alpha, beta among 1, 0 (c holding NaN, which
// beta 0 ignores) and other values. Entries of c outside the product
// must not change. The error allowed is a multiple of the type's rounding
// error times the number of terms.
func TestBruteForce(t *testing.T) {
	needKernels(t)
	t.Run("float64", testBruteForce[float64])
	t.Run("float32", testBruteForce[float32])
}

func testBruteForce[F Float](t *testing.T) {
	eps := 1e-14
	if is32[F]() {
		eps = 1e-6
	}
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := [][3]int{{1, 1, 1}, {3, 5, 7}, {4, 12, 1}, {5, 13, 2}, {4, 24, 3}, {5, 25, 2}, {8, 24, 30}, {13, 25, 300}, {9, 49, 257}, {100, 30, 17}, {7, 500, 3}, {33, 50, 600}, {2, 3, 0}, {130, 70, 520}, {200, 1000, 40}}
	for _, sz := range sizes {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for _, ab := range [][2]F{{1, 0}, {1, 1}, {-0.5, 0.3}} {
				name := fmt.Sprintf("%v/trans%v/alpha%v/beta%v", sz, tr, ab[0], ab[1])
				p := newProduct[F](rng, tr[0], tr[1], sz[0], sz[1], sz[2], 3)
				c0 := append([]F(nil), p.c...)
				if ab[1] == 0 {
					for i := range p.m {
						p.c[i*p.ldc] = F(math.NaN())
					}
				}
				p.run(ab[0], ab[1])
				alpha, beta := float64(ab[0]), float64(ab[1])
				for i := range p.m {
					for j := range p.ldc {
						got := float64(p.c[i*p.ldc+j])
						if j >= p.n {
							if got != float64(c0[i*p.ldc+j]) {
								t.Fatalf("%s: c[%d][%d] outside the product changed", name, i, j)
							}
							continue
						}
						var want, scale float64
						for l := range p.k {
							v := opAt(p.a, p.lda, p.transA, i, l) * opAt(p.b, p.ldb, p.transB, l, j)
							want += v
							scale += math.Abs(v)
						}
						want = alpha*want + beta*float64(c0[i*p.ldc+j])
						scale = math.Abs(alpha)*scale + math.Abs(beta*float64(c0[i*p.ldc+j]))
						if math.Abs(got-want) > eps*float64(p.k+2)*scale || math.IsNaN(got) {
							t.Fatalf("%s: c[%d][%d] = %.17g, want %.17g", name, i, j, got, want)
						}
					}
				}
			}
		}
	}
}

// TestRowsIndependent checks that each row of a product has the same
// bits whatever rows it is computed with, and wherever they start, at
// sizes below and above the blocks.
func TestRowsIndependent(t *testing.T) {
	needKernels(t)
	t.Run("float64", testRowsIndependent[float64])
	t.Run("float32", testRowsIndependent[float32])
}

func testRowsIndependent[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][3]int{{103, 50, 300}, {301, 530, 70}} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			m, n, k := sz[0], sz[1], sz[2]
			p := newProduct[F](rng, tr[0], tr[1], m, n, k, 0)
			full := make([]F, m*n)
			Gemm(p.transA, p.transB, m, n, k, 1, p.a, p.lda, p.b, p.ldb, 0, full, n)
			for _, rows := range [][2]int{{0, 1}, {1, 6}, {5, 102}, {97, 103}, {50, 53}} {
				i0, i1 := rows[0], rows[1]
				a := p.a[i0:]
				if !p.transA {
					a = p.a[i0*p.lda:]
				}
				part := make([]F, (i1-i0)*n)
				Gemm(p.transA, p.transB, i1-i0, n, k, 1, a, p.lda, p.b, p.ldb, 0, part, n)
				for j, v := range part {
					if v != full[i0*n+j] {
						t.Fatalf("%v trans %v rows %d..%d: entry %d is %.17g alone, %.17g in the full product", sz, tr, i0, i1, j, float64(v), float64(full[i0*n+j]))
					}
				}
			}
		}
	}
}

// TestNoAllocations checks that Gemm allocates nothing once it has run,
// on one goroutine and cut over two: the step kernels call it at every
// time step.
func TestNoAllocations(t *testing.T) {
	needKernels(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, sz := range [][3]int{{37, 130, 300}, {300, 600, 700}} {
		p := newProduct[float32](rand.New(rand.NewPCG(7, 8)), false, true, sz[0], sz[1], sz[2], 1)
		run := func() { p.run(1, 1) }
		run()
		if n := testing.AllocsPerRun(3, run); n != 0 {
			t.Errorf("%v: %v allocations per product, want 0", sz, n)
		}
	}
}

// TestSameBitsAnyGOMAXPROCS checks that products large enough to be cut
// over goroutines have the same bits at GOMAXPROCS 1 to 5, in the four
// layouts, cut by columns (wide c) and by rows (tall c), with alpha and
// beta not 1.
func TestSameBitsAnyGOMAXPROCS(t *testing.T) {
	needKernels(t)
	t.Run("float64", testSameBits[float64])
	t.Run("float32", testSameBits[float32])
}

func testSameBits[F Float](t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(9, 10))
	for _, sz := range [][3]int{{37, 700, 300}, {530, 61, 290}} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			p := newProduct[F](rng, tr[0], tr[1], sz[0], sz[1], sz[2], 2)
			c0 := append([]F(nil), p.c...)
			var want []F
			for procs := 1; procs <= 5; procs++ {
				runtime.GOMAXPROCS(procs)
				if parts := split[F](p.m, p.n, p.k); procs > 1 && parts < 2 {
					t.Fatalf("%v at GOMAXPROCS %d: not cut (%d part)", sz, procs, parts)
				}
				copy(p.c, c0)
				p.run(-0.5, 0.3)
				if want == nil {
					want = append([]F(nil), p.c...)
					continue
				}
				for i, v := range p.c {
					if math.Float64bits(float64(v)) != math.Float64bits(float64(want[i])) {
						t.Fatalf("%v trans %v: entry %d is %.17g at GOMAXPROCS %d, %.17g at 1", sz, tr, i, float64(v), procs, float64(want[i]))
					}
				}
			}
		}
	}
}
