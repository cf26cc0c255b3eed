//go:build amd64 && !purego

package fastmath

import (
	"unsafe"

	"github.com/rtnlab/rtn/internal/gemm"
)

// vector is whether the float64 slice functions run four lanes at once in
// AVX assembly (gemm.Available: the processor has AVX).
var vector = gemm.Available()

// tanh64 writes Tanh4's long value of src[i] into dst[i] for n values, n a
// positive multiple of 4, with Tanh4's bits.
//
//go:noescape
func tanh64(dst, src *float64, n int)

// sigmoid64 writes 1 / (1 + exp(-src[i])) as Sigmoid computes it in
// float64 (ExpNeg4's long value, then sigmoidOf) for n values, n a
// positive multiple of 4, with its bits.
//
//go:noescape
func sigmoid64(dst, src *float64, n int)

// vectorized runs f (tanh64 or sigmoid64) over the first values of src
// that make whole vectors and returns how many it took: none where the
// assembly does not run or F is float32.
func vectorized[F Float](f func(dst, src *float64, n int), dst, src []F) int {
	n := len(src) &^ 3
	if !vector || is32[F]() || n == 0 {
		return 0
	}
	f((*float64)(unsafe.Pointer(unsafe.SliceData(dst))), (*float64)(unsafe.Pointer(unsafe.SliceData(src))), n)
	return n
}
