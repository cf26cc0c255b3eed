package fastmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Bounds of Tanh against math.Tanh: relative error in float64, ulps of
// the float32 result in float32.
const (
	tanhRelTol64 = 2.5 * 0x1p-52 // measured worst: 1.93 ulps
	tanhULPTol32 = 1
)

// tanhInputs draws values of every scale tanh sees, of both signs: unit
// normal, tiny, up to ±25, and down to 2^-60.
func tanhInputs(n int) []float64 {
	rng := rand.New(rand.NewPCG(3, 7))
	xs := make([]float64, n)
	for i := range xs {
		switch i % 4 {
		case 0:
			xs[i] = rng.NormFloat64()
		case 1:
			xs[i] = 1e-3 * rng.NormFloat64()
		case 2:
			xs[i] = 50 * (rng.Float64() - 0.5)
		default:
			xs[i] = math.Ldexp(rng.Float64()-0.5, -rng.IntN(60))
		}
	}
	return xs
}

// TestTanh checks the slice Tanh against math.Tanh over every scale and
// the special values, float64 and float32.
func TestTanh(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 0.625, -0.625, 20, -20, 20.5, 1e300, math.Inf(1), math.Inf(-1), math.NaN()}
	xs := append(tanhInputs(100_001), special...) // an odd length: the tail runs one by one
	t.Run("float64", func(t *testing.T) {
		ys := make([]float64, len(xs))
		Tanh(ys, xs)
		for i, x := range xs {
			want := math.Tanh(x)
			switch {
			case math.IsNaN(want):
				if !math.IsNaN(ys[i]) {
					t.Errorf("tanh(%v) = %v, want NaN", x, ys[i])
				}
			case want == 0:
				if ys[i] != 0 || math.Signbit(ys[i]) != math.Signbit(want) {
					t.Errorf("tanh(%v) = %v, want %v", x, ys[i], want)
				}
			case math.Abs(ys[i]-want) > tanhRelTol64*math.Abs(want):
				t.Errorf("tanh(%.17g) = %.17g, math.Tanh %.17g", x, ys[i], want)
			}
		}
	})
	t.Run("float32", func(t *testing.T) {
		in := make([]float32, len(xs))
		for i, x := range xs {
			in[i] = float32(x)
		}
		ys := make([]float32, len(in))
		Tanh(ys, in)
		for i, x := range in {
			want := float32(math.Tanh(float64(x)))
			got := ys[i]
			if math.IsNaN(float64(want)) != math.IsNaN(float64(got)) {
				t.Fatalf("tanh(%v) = %v, want %v", x, got, want)
			}
			if d := int64(math.Float32bits(got)) - int64(math.Float32bits(want)); !math.IsNaN(float64(want)) && (d > tanhULPTol32 || d < -tanhULPTol32) {
				t.Errorf("tanh(%v) = %v, float32(math.Tanh) %v: %d ulps", x, got, want, d)
			}
		}
	})
}

// BenchmarkSlices times Tanh and Sigmoid beside math.Tanh and math.Exp on a
// step's worth of unit normal pre-activations (batch 32, 100 units).
func BenchmarkSlices(b *testing.B) {
	xs := make([]float64, 3200)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	ys := make([]float64, len(xs))
	b.Run("Tanh", func(b *testing.B) {
		for range b.N {
			Tanh(ys, xs)
		}
	})
	b.Run("Sigmoid", func(b *testing.B) {
		for range b.N {
			Sigmoid(ys, xs)
		}
	})
	b.Run("math.Exp", func(b *testing.B) {
		for range b.N {
			for i, x := range xs {
				ys[i] = 1 / (1 + math.Exp(-x))
			}
		}
	})
	b.Run("math.Tanh", func(b *testing.B) {
		for range b.N {
			for i, x := range xs {
				ys[i] = math.Tanh(x)
			}
		}
	})
}
