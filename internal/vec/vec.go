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
