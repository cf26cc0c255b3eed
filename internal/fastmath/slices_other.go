//go:build !amd64 || purego

package fastmath

// vectorized takes no value: the vector loops are amd64 assembly.
func vectorized[F Float](_ func(dst, src *float64, n int), _ func(dst, src *float32, n int), _, _ []F) int {
	return 0
}

// expNegAbsVector takes no value: the vector loops are amd64 assembly.
func expNegAbsVector[F Float](_ []float64, _ []F) int { return 0 }

func tanh64(dst, src *float64, n int)    { panic("fastmath: no assembly") }
func sigmoid64(dst, src *float64, n int) { panic("fastmath: no assembly") }
func tanh32(dst, src *float32, n int)    { panic("fastmath: no assembly") }
func sigmoid32(dst, src *float32, n int) { panic("fastmath: no assembly") }
