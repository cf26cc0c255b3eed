package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// elementwiseCase is an elementwise function and its plain loop.
type elementwiseCase[F Float] struct {
	name  string
	fn    func(d, a, b []F, s F)
	plain func(d, a, b []F, s F)
}

func elementwiseCases[F Float]() []elementwiseCase[F] {
	return []elementwiseCase[F]{
		{"Add", func(d, a, b []F, _ F) { Add(d, a, b) }, func(d, a, b []F, _ F) {
			for j := range d {
				d[j] = a[j] + b[j]
			}
		}},
		{"Sub", func(d, a, b []F, _ F) { Sub(d, a, b) }, func(d, a, b []F, _ F) {
			for j := range d {
				d[j] = a[j] - b[j]
			}
		}},
		{"Mul", func(d, a, b []F, _ F) { Mul(d, a, b) }, func(d, a, b []F, _ F) {
			for j := range d {
				d[j] = a[j] * b[j]
			}
		}},
		{"MulAdd", func(d, a, b []F, _ F) { MulAdd(d, a, b) }, func(d, a, b []F, _ F) {
			for j := range d {
				d[j] += a[j] * b[j]
			}
		}},
		{"AddTo", func(d, a, _ []F, _ F) { AddTo(d, a) }, func(d, a, _ []F, _ F) {
			for j := range d {
				d[j] += a[j]
			}
		}},
		{"Scale", func(d, a, _ []F, s F) { Scale(d, a, s) }, func(d, a, _ []F, s F) {
			for j := range d {
				d[j] = a[j] * s
			}
		}},
		{"ScaleAdd", func(d, a, _ []F, s F) { ScaleAdd(d, a, s) }, func(d, a, _ []F, s F) {
			for j := range d {
				d[j] += a[j] * s
			}
		}},
		{"SigmoidGrad", func(d, a, b []F, _ F) { SigmoidGrad(d, a, b, false) }, func(d, a, b []F, _ F) {
			for j := range d {
				d[j] = a[j] * b[j] * (1 - b[j])
			}
		}},
		{"SigmoidGradAdd", func(d, a, b []F, _ F) { SigmoidGrad(d, a, b, true) }, func(d, a, b []F, _ F) {
			for j := range d {
				d[j] += a[j] * b[j] * (1 - b[j])
			}
		}},
		{"TanhGrad", func(d, a, b []F, _ F) { TanhGrad(d, a, b, false) }, func(d, a, b []F, _ F) {
			for j := range d {
				d[j] = a[j] * (1 - b[j]*b[j])
			}
		}},
		{"TanhGradAdd", func(d, a, b []F, _ F) { TanhGrad(d, a, b, true) }, func(d, a, b []F, _ F) {
			for j := range d {
				d[j] += a[j] * (1 - b[j]*b[j])
			}
		}},
	}
}

// TestElementwise checks every elementwise function against its plain
// loop, bit for bit (NaN for NaN), over lengths 0 to 40 at every offset
// of a vector (unaligned starts), on values of every scale with some
// infinities and NaNs, in float64 and float32; entries past len(d) stay
// untouched.
func TestElementwise(t *testing.T) {
	testElementwise[float64](t)
	testElementwise[float32](t)
}

func testElementwise[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func(n int) []F {
		s := make([]F, n)
		for i := range s {
			switch rng.IntN(20) {
			case 0:
				s[i] = F(math.Inf(1 - 2*rng.IntN(2)))
			case 1:
				s[i] = F(math.NaN())
			default:
				s[i] = F(math.Ldexp(rng.NormFloat64(), rng.IntN(40)-20))
			}
		}
		return s
	}
	same := func(x, y F) bool {
		return math.Float64bits(float64(x)) == math.Float64bits(float64(y)) || x != x && y != y
	}
	for _, c := range elementwiseCases[F]() {
		for n := range 41 {
			for off := range width[F]() {
				a, b, d0 := draw(off+n+3), draw(off+n+3), draw(off+n+3)
				s := F(rng.NormFloat64())
				got, want := append([]F(nil), d0...), append([]F(nil), d0...)
				c.fn(got[off:off+n], a[off:], b[off:], s)
				c.plain(want[off:off+n], a[off:], b[off:], s)
				for i := range got {
					if !same(got[i], want[i]) {
						t.Fatalf("%s %T n=%d offset %d: entry %d is %v, the plain loop's %v", c.name, s, n, off, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// BenchmarkElementwise times Mul and MulAdd on a step's row of 100 values
// against the plain loops.
func BenchmarkElementwise(b *testing.B) {
	for _, n := range []int{100, 3200} {
		x, y, d := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = float64(i), 1/float64(i+1)
		}
		b.Run(fmt.Sprintf("MulAdd/%d", n), func(b *testing.B) {
			for b.Loop() {
				MulAdd(d, x, y)
			}
		})
		b.Run(fmt.Sprintf("plain/%d", n), func(b *testing.B) {
			for b.Loop() {
				for j := range d {
					d[j] += x[j] * y[j]
				}
			}
		})
	}
}
