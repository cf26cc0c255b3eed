package fastmath

import (
	"math"
	"unsafe"
)

// Float is the element type of the slice functions.
type Float interface{ ~float32 | ~float64 }

// is32 says whether F is float32.
func is32[F Float]() bool {
	var z F
	return unsafe.Sizeof(z) == 4
}

// Tanh writes tanh(src[i]) into dst[i] (dst at least as long as src; the
// two may be the same slice), as the step kernels take it, from Tanh4 four
// values at a time: its long polynomial in float64 (within 2.5 ulps of
// math.Tanh), its short one in float32 (within one float32 ulp of
// float32(math.Tanh)).
func Tanh[F Float](dst, src []F) {
	dst = dst[:len(src)]
	short := is32[F]()
	v := vectorized(tanh64, tanh32, dst, src)
	n := len(src) &^ 3
	for i := v; i < n; i += 4 {
		s, d := src[i:i+4:i+4], dst[i:i+4:i+4]
		y0, y1, y2, y3 := Tanh4(float64(s[0]), float64(s[1]), float64(s[2]), float64(s[3]), short)
		d[0], d[1], d[2], d[3] = F(y0), F(y1), F(y2), F(y3)
	}
	for i := n; i < len(src); i++ {
		y, _, _, _ := Tanh4(float64(src[i]), 0, 0, 0, short)
		dst[i] = F(y)
	}
}

// Sigmoid writes 1 / (1 + exp(-src[i])) into dst[i] (dst at least as long
// as src; the two may be the same slice), from ExpNeg4 four values at a
// time (its long polynomial in float64, its short one in float32), as
// s = 1 / (1 + e) with e = exp(-|x|), then s for x >= 0 and e s otherwise,
// with no branch: within 4 ulps of 1 / (1 + math.Exp(-x)) in float64,
// one float32 ulp in float32.
func Sigmoid[F Float](dst, src []F) {
	dst = dst[:len(src)]
	short := is32[F]()
	v := vectorized(sigmoid64, sigmoid32, dst, src)
	n := len(src) &^ 3
	for i := v; i < n; i += 4 {
		s, d := src[i:i+4:i+4], dst[i:i+4:i+4]
		x0, x1, x2, x3 := float64(s[0]), float64(s[1]), float64(s[2]), float64(s[3])
		e0, e1, e2, e3 := ExpNeg4(math.Abs(x0), math.Abs(x1), math.Abs(x2), math.Abs(x3), short)
		d[0], d[1], d[2], d[3] = F(sigmoidOf(x0, e0)), F(sigmoidOf(x1, e1)), F(sigmoidOf(x2, e2)), F(sigmoidOf(x3, e3))
	}
	for i := n; i < len(src); i++ {
		x := float64(src[i])
		e, _, _, _ := ExpNeg4(math.Abs(x), 0, 0, 0, short)
		dst[i] = F(sigmoidOf(x, e))
	}
}

// ExpNegAbs writes exp(-|src[i]|) into dst[i] (dst at least as long as
// src) as ExpNeg4 computes it: its long polynomial for float64 values, its
// short one for float32 values (widened; the result stays float64).
func ExpNegAbs[F Float](dst []float64, src []F) {
	dst = dst[:len(src)]
	short := is32[F]()
	n := len(src) &^ 3
	for i := expNegAbsVector(dst, src); i < n; i += 4 {
		s := src[i : i+4 : i+4]
		dst[i], dst[i+1], dst[i+2], dst[i+3] = ExpNeg4(math.Abs(float64(s[0])), math.Abs(float64(s[1])), math.Abs(float64(s[2])), math.Abs(float64(s[3])), short)
	}
	for i := n; i < len(src); i++ {
		dst[i], _, _, _ = ExpNeg4(math.Abs(float64(src[i])), 0, 0, 0, short)
	}
}

// sigmoidOf is the sigmoid of x given e = exp(-|x|): s = 1 / (1 + e) for
// x >= 0, e s otherwise, selected by the sign bit (one of e n and 1 - n
// is exactly 0).
func sigmoidOf(x, e float64) float64 {
	n := float64(math.Float64bits(x) >> 63)
	return (e*n + (1 - n)) / (1 + e)
}
