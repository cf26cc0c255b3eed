package gemm

import (
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

func needKernels(t testing.TB) {
	if !Available() {
		t.Skip("no AVX and FMA here, or the purego build")
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
