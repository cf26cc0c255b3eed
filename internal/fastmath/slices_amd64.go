//go:build amd64 && !purego

package fastmath

import (
	"unsafe"

	"github.com/rtnlab/rtn/internal/gemm"
)

// vector is whether the slice functions run four lanes at once in AVX
// assembly (gemm.Available: the processor has AVX).
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

// tanh32 and sigmoid32 are tanh64 and sigmoid64 on float32s, each
// widened to float64, through the short polynomial, and rounded back, as
// Tanh and Sigmoid compute them in float32.
//
//go:noescape
func tanh32(dst, src *float32, n int)

//go:noescape
func sigmoid32(dst, src *float32, n int)

// expNegAbs64 writes ExpNeg4's long value of |src[i]| into dst[i] for n
// values, n a positive multiple of 4, with its bits; expNegAbs32 the short
// value of the float32 src[i], widened, into the float64 dst[i].
//
//go:noescape
func expNegAbs64(dst, src *float64, n int)

//go:noescape
func expNegAbs32(dst *float64, src *float32, n int)

// expNegAbsVector runs expNegAbs64 or expNegAbs32 (by F) over the first
// values of src that make whole groups of four and returns how many it
// took: none where the assembly does not run.
func expNegAbsVector[F Float](dst []float64, src []F) int {
	n := len(src) &^ 3
	if !vector || n == 0 {
		return 0
	}
	d, s := unsafe.SliceData(dst), unsafe.Pointer(unsafe.SliceData(src))
	if is32[F]() {
		expNegAbs32(d, (*float32)(s), n)
	} else {
		expNegAbs64(d, (*float64)(s), n)
	}
	return n
}

// vectorized runs f64 or f32 (by F) over the first values of src that make
// whole groups of four and returns how many it took: none where the
// assembly does not run.
func vectorized[F Float](f64 func(dst, src *float64, n int), f32 func(dst, src *float32, n int), dst, src []F) int {
	n := len(src) &^ 3
	if !vector || n == 0 {
		return 0
	}
	d, s := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
	if is32[F]() {
		f32((*float32)(d), (*float32)(s), n)
	} else {
		f64((*float64)(d), (*float64)(s), n)
	}
	return n
}
