// Package fastmath holds the elementary functions of the executors' inner
// loops, computed four values at a time with no data-dependent branch.
//
// math.Tanh branches on |x| < 0.625 and math.Exp computes one value per
// call; on random pre-activations the branch is mispredicted half the
// time. Here both come from one polynomial for expm1 on |r| <= ln(2)/2
// after the reduction t = k ln 2 + r, the four polynomials interleaved so
// that the processor overlaps them. The long polynomial is within a few
// ulps of the math package in float64; the short one (a float32 step's
// choice) is within one ulp of the float32 rounding of math's value. On
// amd64 with AVX the slice functions (Tanh, Sigmoid, in float64 and
// float32) run four lanes at once in assembly that performs the Go code's
// operations one by one, so their values have its bits.
package fastmath
