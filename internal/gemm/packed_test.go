package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestGemmPackedSameBits checks that GemmPacked gives Gemm's bits, for
// op(b) packed from b and from its transpose, op(a) in both layouts,
// sizes off the panels and over several chunks of terms, at GOMAXPROCS 1
// and 3 (products cut by rows and by columns), with one PackedB reused
// across shapes.
func TestGemmPackedSameBits(t *testing.T) {
	needKernels(t)
	t.Run("float64", testGemmPackedSameBits[float64])
	t.Run("float32", testGemmPackedSameBits[float32])
}

func testGemmPackedSameBits[F Float](t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(11, 12))
	var pb PackedB[F]
	for _, sz := range [][3]int{{5, 13, 7}, {32, 400, 100}, {9, 49, 600}, {37, 700, 300}, {530, 61, 290}, {3, 1, 1}} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for _, procs := range []int{1, 3} {
				runtime.GOMAXPROCS(procs)
				name := fmt.Sprintf("%v/trans%v/procs%d", sz, tr, procs)
				p := newProduct[F](rng, tr[0], tr[1], sz[0], sz[1], sz[2], 1)
				c0 := append([]F(nil), p.c...)
				p.run(0.5, -1)
				want := append([]F(nil), p.c...)
				copy(p.c, c0)
				pb.Pack(p.transB, p.k, p.n, p.b, p.ldb)
				if pb.K() != p.k || pb.N() != p.n {
					t.Fatalf("%s: packed %d x %d", name, pb.K(), pb.N())
				}
				GemmPacked(p.transA, p.m, 0.5, p.a, p.lda, &pb, -1, p.c, p.ldc)
				for i, v := range p.c {
					if math.Float64bits(float64(v)) != math.Float64bits(float64(want[i])) {
						t.Fatalf("%s: entry %d is %.17g packed, %.17g from Gemm", name, i, float64(v), float64(want[i]))
					}
				}
			}
		}
	}
}

// TestGemmPackedNoAllocations checks that GemmPacked and a Pack into
// storage big enough allocate nothing.
func TestGemmPackedNoAllocations(t *testing.T) {
	needKernels(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	p := newProduct[float64](rand.New(rand.NewPCG(13, 14)), false, true, 64, 512, 128, 0)
	var pb PackedB[float64]
	run := func() {
		pb.Pack(true, p.k, p.n, p.b, p.ldb)
		GemmPacked(false, p.m, 1, p.a, p.lda, &pb, 0, p.c, p.ldc)
	}
	run()
	if n := testing.AllocsPerRun(3, run); n != 0 {
		t.Errorf("%v allocations per pack and product, want 0", n)
	}
}
