package graph

import (
	"strings"
	"unsafe"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rtnlab/rtn/params"
)

// Float is the element type of the plain-Go executors: float64 (the
// default, every parameter's type) or float32.
type Float interface{ float32 | float64 }

// Data types of the plain-Go executors, as the CLI and configurations
// name them.
const (
	Float64 = "float64"
	Float32 = "float32"
)

// DTypes lists the data types the plain-Go executors run in.
func DTypes() []string { return []string{Float64, Float32} }

// CheckDType returns an error naming dtype unless it is "", float64 or
// float32 ("" is float64).
func CheckDType(dtype string) error {
	switch dtype {
	case "", Float64, Float32:
		return nil
	}
	return errors.Errorf("unknown dtype %q (known: float64, float32)", dtype)
}

// is32 says whether F is float32.
func is32[F Float]() bool {
	var z F
	return unsafe.Sizeof(z) == 4
}

// as64 is s as []float64 when F is float64 (the same memory); callers
// check is32 first.
func as64[F Float](s []F) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// as32 is s as []float32 when F is float32.
func as32[F Float](s []F) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// fromF64 is s as []F when F is float64.
func fromF64[F Float](s []float64) []F {
	return unsafe.Slice((*F)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// fromF32 is s as []F when F is float32.
func fromF32[F Float](s []float32) []F {
	return unsafe.Slice((*F)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// GemmOf is Gemm for either float type, with Gemm's guarantees: float32
// products run on the float32 version of Gemm's assembly kernel where
// Gemm runs on assembly, else on gonum's Sgemm cut into Gemm's tiles, or
// with -tags openblas on OpenBLAS's sgemm.
func GemmOf[F Float](transA, transB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if fast := fastGemm[F](); fast != nil {
		fast(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	if !tileGemm {
		blasGemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	const rows, cols = 64, 3 * 64 // 3 of gonum's 64x64 blocks: under its parallel threshold of 4
	for i := 0; i < m; i += rows {
		mi := min(rows, m-i)
		ai := a[i:]
		if !transA {
			ai = a[i*lda:]
		}
		for j := 0; j < n; j += cols {
			nj := min(cols, n-j)
			bj := b[j:]
			if transB {
				bj = b[j*ldb:]
			}
			blasGemm(ta, tb, mi, nj, k, alpha, ai, lda, bj, ldb, beta, c[i*ldc+j:], ldc)
		}
	}
}

// blasGemm calls blas64's Dgemm or blas32's Sgemm.
func blasGemm[F Float](ta, tb blas.Transpose, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	if is32[F]() {
		blas32.Implementation().Sgemm(ta, tb, m, n, k, float32(alpha), as32(a), lda, as32(b), ldb, float32(beta), as32(c), ldc)
		return
	}
	blas64.Implementation().Dgemm(ta, tb, m, n, k, float64(alpha), as64(a), lda, as64(b), ldb, float64(beta), as64(c), ldc)
}

// gemmFunc is the signature of GemmOf.
type gemmFunc[F Float] func(transA, transB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int)

// fastGemm64 and fastGemm32, when set, run GemmOf in place of gonum's
// BLAS (see gemm_install.go).
var (
	fastGemm64 gemmFunc[float64]
	fastGemm32 gemmFunc[float32]
)

// fastGemm is fastGemm64 or fastGemm32.
func fastGemm[F Float]() gemmFunc[F] {
	if is32[F]() {
		return any(fastGemm32).(gemmFunc[F])
	}
	return any(fastGemm64).(gemmFunc[F])
}

// Grads is a set of gradient tensors of one float type, by parameter
// name, that kernels add into: a float64 gradient set (GradsOf), or the
// float32 accumulators of a float32 FusedRecurrence.
type Grads[F Float] struct {
	p *params.Params
	g *grads32
}

// GradsOf is the float64 gradient set p as Grads.
func GradsOf(p *params.Params) Grads[float64] { return Grads[float64]{p: p} }

// Data returns the gradient of parameter name (nil when the set lacks it).
func (g Grads[F]) Data(name string) []F {
	if !is32[F]() {
		return fromF64[F](g.p.Data(name))
	}
	return fromF32[F](g.g.Data(name))
}

// Weights reads parameters as []F: for float64 the sets' own data (the
// zero Weights[float64]), for float32 the copies a Mirror keeps
// (Mirror.Weights32).
type Weights[F Float] struct {
	m *Mirror
}

// Data returns the tensor name of set as []F (nil when set lacks it).
func (w Weights[F]) Data(set *params.Params, name string) []F {
	if !is32[F]() {
		return fromF64[F](set.Data(name))
	}
	return fromF32[F](w.m.Of(set, name))
}

// Mirror holds float32 copies of float64 parameter tensors, made on first
// use and refreshed by Sync: a float32 executor reads its weights from
// one, synced once per run (the parameters do not change during a run).
// A Mirror is not safe for concurrent use: Of adds a copy on first use, so
// a kernel reads its weights before it cuts work over goroutines.
type Mirror struct {
	index map[mirrorKey]int
	src   [][]float64
	dst   [][]float32
}

type mirrorKey struct {
	set  *params.Params
	name string
}

// NewMirror returns an empty mirror.
func NewMirror() *Mirror { return &Mirror{index: map[mirrorKey]int{}} }

// Of returns the float32 copy of tensor name of set, made (and filled) on
// the first call; nil when set lacks it.
func (m *Mirror) Of(set *params.Params, name string) []float32 {
	key := mirrorKey{set, name}
	if i, ok := m.index[key]; ok {
		return m.dst[i]
	}
	src := set.Data(name)
	if src == nil {
		return nil
	}
	d := make([]float32, len(src))
	convert(d, src)
	m.index[mirrorKey{set, strings.Clone(name)}] = len(m.src) // name itself does not escape
	m.src = append(m.src, src)
	m.dst = append(m.dst, d)
	return d
}

// Weights32 reads parameters from m.
func (m *Mirror) Weights32() Weights[float32] { return Weights[float32]{m: m} }

// Sync copies every mirrored tensor again from its set.
func (m *Mirror) Sync() {
	for i, s := range m.src {
		convert(m.dst[i], s)
	}
}

// convert writes src, rounded to F, into dst.
func convert[D, S Float](dst []D, src []S) {
	for i, v := range src[:len(dst)] {
		dst[i] = D(v)
	}
}

// grads32 accumulates a run's parameter gradients in float32.
type grads32 struct {
	index map[string]int
	g     [][]float32
}

func (g *grads32) Data(name string) []float32 {
	if i, ok := g.index[name]; ok {
		return g.g[i]
	}
	return nil
}
