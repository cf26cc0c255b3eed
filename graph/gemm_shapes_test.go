package graph

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"

	"github.com/rtnlab/rtn/internal/gemm"
)

// BenchmarkGemmShapes times square products of sizes 64 to 2048 in the
// four layouts, float64 and float32, on package gemm's kernels (rtn) and
// on the BLAS of the build (blas: gonum's by default, the system OpenBLAS
// with -tags openblas), the two alternating call by call so that a busy
// machine slows both alike, each first in every other pair (a call runs
// slower for a few milliseconds after an OpenBLAS call, whatever it
// computes), and reports each one's GFLOP/s and their ratio:
//
//	OPENBLAS_NUM_THREADS=1 go test -tags openblas -run X -bench GemmShapes ./graph
//
// bench/gemm.sh prints the run as the table of docs/speed.md.
func BenchmarkGemmShapes(b *testing.B) {
	for _, size := range []int{64, 128, 256, 512, 1024, 2048} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			name := fmt.Sprintf("%d/%s%s", size, transName(tr[0]), transName(tr[1]))
			b.Run(name+"/float64", func(b *testing.B) { benchGemmPair[float64](b, tr[0], tr[1], size, size, size) })
			b.Run(name+"/float32", func(b *testing.B) { benchGemmPair[float32](b, tr[0], tr[1], size, size, size) })
		}
	}
}

// transName is N or T, as BLAS names a layout.
func transName(trans bool) string {
	if trans {
		return "T"
	}
	return "N"
}

func benchGemmPair[F Float](b *testing.B, transA, transB bool, m, n, k int) {
	if !gemm.Available() {
		b.Skip("package gemm's kernels do not run here")
	}
	g := newGemmCase[F](rand.New(rand.NewPCG(5, 6)), transA, transB, m, n, k, 0)
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	var tRTN, tBLAS time.Duration
	rtn := func() {
		t0 := time.Now()
		gemm.Gemm(transA, transB, m, n, k, 1, g.a, g.lda, g.b, g.ldb, 1, g.c, g.ldc)
		tRTN += time.Since(t0)
	}
	other := func() {
		t0 := time.Now()
		blasGemm(ta, tb, m, n, k, 1, g.a, g.lda, g.b, g.ldb, 1, g.c, g.ldc)
		tBLAS += time.Since(t0)
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			rtn()
			other()
		} else {
			other()
			rtn()
		}
	}
	flops := 2 * float64(m*n*k) * float64(b.N)
	b.ReportMetric(flops/tRTN.Seconds()/1e9, "rtn-GFLOP/s")
	b.ReportMetric(flops/tBLAS.Seconds()/1e9, "blas-GFLOP/s")
	b.ReportMetric(tBLAS.Seconds()/tRTN.Seconds(), "rtn/blas")
}

// BenchmarkGemmAfter times package gemm's 128 x 128 x 128 product, in
// GFLOP/s, over the 40 calls (about 4 ms) that follow a 512 x 512 x 512
// product of the build's BLAS (after-blas-GFLOP/s) or of package gemm
// (after-rtn-GFLOP/s), the two in turn. The small product stays in the
// second-level cache, so a difference is the processor's, not the
// caches': on the test machine the first is 7-20% lower with -tags
// openblas, which is why BenchmarkGemmShapes puts each side first in every
// other pair.
//
//	OPENBLAS_NUM_THREADS=1 GOMAXPROCS=1 go test -tags openblas -run X -bench GemmAfter ./graph
func BenchmarkGemmAfter(b *testing.B) {
	if !gemm.Available() {
		b.Skip("package gemm's kernels do not run here")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	big, small := newGemmCase[float64](rng, false, false, 512, 512, 512, 0), newGemmCase[float64](rng, false, false, 128, 128, 128, 0)
	const calls = 40
	var after [2]time.Duration // after blas, after rtn
	for b.Loop() {
		for i := range after {
			g := big
			if i == 0 {
				blasGemm(blas.NoTrans, blas.NoTrans, g.m, g.n, g.k, 1, g.a, g.lda, g.b, g.ldb, 1, g.c, g.ldc)
			} else {
				gemm.Gemm(false, false, g.m, g.n, g.k, 1, g.a, g.lda, g.b, g.ldb, 1, g.c, g.ldc)
			}
			t0 := time.Now()
			for range calls {
				s := small
				gemm.Gemm(false, false, s.m, s.n, s.k, 1, s.a, s.lda, s.b, s.ldb, 1, s.c, s.ldc)
			}
			after[i] += time.Since(t0)
		}
	}
	flops := 2 * float64(128*128*128) * calls * float64(b.N)
	b.ReportMetric(flops/after[0].Seconds()/1e9, "after-blas-GFLOP/s")
	b.ReportMetric(flops/after[1].Seconds()/1e9, "after-rtn-GFLOP/s")
}
