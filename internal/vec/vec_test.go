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

// Dot sums in the order its comment gives, bit for bit, at every length
// mod 4, and matches the exact dot product of integers.
func TestDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for n := range 19 {
		x, y := make([]float64, n), make([]float64, n+2)
		for i := range x {
			x[i], y[i] = rng.NormFloat64()*1e3, rng.NormFloat64()
		}
		var s [4]float64
		for j := range n - n%4 {
			s[j%4] += float64(x[j] * y[j])
		}
		want := (s[0] + s[1]) + (s[2] + s[3])
		for j := n - n%4; j < n; j++ {
			want += float64(x[j] * y[j])
		}
		if got := Dot(x, y); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("length %d: %v, want %v", n, got, want)
		}
		ix, iy, exact := make([]float64, n), make([]float64, n), 0
		for i := range n {
			a, b := rng.IntN(100)-50, rng.IntN(100)-50
			ix[i], iy[i], exact = float64(a), float64(b), exact+a*b
		}
		if got := Dot(ix, iy); got != float64(exact) {
			t.Fatalf("length %d: integer dot %v, want %d", n, got, exact)
		}
	}
}
