package vec

import "gonum.org/v1/gonum/blas/blas64"

// Axpy sets y[j] += alpha x[j] for every j < len(x) (y must be at least as
// long), each entry rounded twice (product, then sum) and never fused: the
// same bits as gonum's f64.AxpyUnitary, whose vectorised kernel it calls
// on vectors of AxpyLoop entries or more (a zero alpha, which that call
// skips, changes no finite entry). Short vectors take a plain loop,
// cheaper than the call.
func Axpy(alpha float64, x, y []float64) {
	if len(x) < AxpyLoop {
		y = y[:len(x)]
		for j, v := range x {
			y[j] += float64(alpha * v)
		}
		return
	}
	blas64.Axpy(alpha, blas64.Vector{N: len(x), Inc: 1, Data: x}, blas64.Vector{N: len(x), Inc: 1, Data: y})
}

// AxpyLoop is the vector length from which Axpy calls gonum's kernel.
const AxpyLoop = 32

// Dot returns sum_j x[j] y[j] (y must be at least as long as x). The
// products of the first len(x) - len(x) mod 4 entries go into four
// partial sums, entry j into sum j mod 4; the result is (s0 + s1) +
// (s2 + s3), to which the last len(x) mod 4 products are then added one
// at a time. Products are rounded, never fused: a fixed order, the same
// on every platform, with four independent chains of additions instead of
// one.
func Dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(x); j += 4 {
		s0 += float64(x[j] * y[j])
		s1 += float64(x[j+1] * y[j+1])
		s2 += float64(x[j+2] * y[j+2])
		s3 += float64(x[j+3] * y[j+3])
	}
	s := (s0 + s1) + (s2 + s3)
	for ; j < len(x); j++ {
		s += float64(x[j] * y[j])
	}
	return s
}
