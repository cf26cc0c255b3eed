package vec

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Axpy gives the bits of the unfused loop y[j] += alpha * x[j] at every
// length, below and above AxpyLoop, and leaves y beyond len(x) alone.
func TestAxpyBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for n := 1; n <= 3*AxpyLoop; n++ {
		x, y := make([]float64, n), make([]float64, n+1)
		for i := range x {
			x[i], y[i] = rng.NormFloat64()*1e3, rng.NormFloat64()
		}
		y[n] = 7
		alpha := rng.NormFloat64() / 3
		want := slices.Clone(y)
		for j, v := range x {
			want[j] += float64(alpha * v)
		}
		Axpy(alpha, x, y)
		for j := range y {
			if math.Float64bits(y[j]) != math.Float64bits(want[j]) {
				t.Fatalf("length %d, element %d: %v, loop %v", n, j, y[j], want[j])
			}
		}
	}
}
