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
