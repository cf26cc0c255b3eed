package fastmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Bounds of ExpNeg4 against math.Exp: relative error in float64 (long),
// ulps of float32(math.Exp) (short).
const (
	expRelTol64 = 4 * 0x1p-52
	expULPTol32 = 1
)

// expInputs draws a >= 0 of every scale the read-outs see, with the edges
// of the reduction and of the clamp.
func expInputs(n int) []float64 {
	r := rand.New(rand.NewPCG(3, 5))
	as := []float64{0, 1e-300, 1e-17, 0.5 * math.Ln2, math.Ln2, 1, 20, 40, 87, 103, 699.9, clamp}
	for range n {
		as = append(as, math.Abs(r.NormFloat64())*math.Pow(10, 3*r.Float64()-1))
	}
	return as
}

func TestExpNeg4(t *testing.T) {
	for _, short := range []bool{false, true} {
		as := expInputs(40_000)
		for i := 0; i+4 <= len(as); i += 4 {
			got := [4]float64{}
			got[0], got[1], got[2], got[3] = ExpNeg4(as[i], as[i+1], as[i+2], as[i+3], short)
			for j, e := range got {
				a := as[i+j]
				want := math.Exp(-a)
				if short {
					g, w := float32(e), float32(want)
					if d := int64(math.Float32bits(g)) - int64(math.Float32bits(w)); d > expULPTol32 || d < -expULPTol32 {
						t.Errorf("short exp(-%v) = %v, float32(math.Exp) %v: %d ulps", a, g, w, d)
					}
					continue
				}
				if math.Abs(e-want) > expRelTol64*want {
					t.Errorf("exp(-%.17g) = %.17g, math.Exp %.17g", a, e, want)
				}
			}
		}
	}
}

func TestEdges(t *testing.T) {
	nan := math.NaN()
	for _, short := range []bool{false, true} {
		if e, _, _, _ := ExpNeg4(nan, 0, 0, 0, short); !math.IsNaN(e) {
			t.Errorf("short %v: exp(-NaN) = %v, want NaN", short, e)
		}
		// the short polynomial's relative error is below 1.5e-8
		if e, _, _, _ := ExpNeg4(math.Inf(1), 0, 0, 0, short); math.Abs(e-math.Exp(-clamp)) > 2e-8*math.Exp(-clamp) {
			t.Errorf("short %v: exp(-Inf) = %v, want exp(-%v)", short, e, float64(clamp))
		}
		y0, y1, y2, y3 := Tanh4(nan, math.Inf(1), math.Inf(-1), math.Copysign(0, -1), short)
		if !math.IsNaN(y0) || y1 != 1 || y2 != -1 || y3 != 0 || !math.Signbit(y3) {
			t.Errorf("short %v: tanh(NaN, +Inf, -Inf, -0) = %v %v %v %v", short, y0, y1, y2, y3)
		}
	}
}

func TestTanh4(t *testing.T) {
	for _, short := range []bool{false, true} {
		xs := expInputs(40_000)
		for i := 0; i+4 <= len(xs); i += 4 {
			x := [4]float64{xs[i], -xs[i+1], xs[i+2], -xs[i+3]}
			var y [4]float64
			y[0], y[1], y[2], y[3] = Tanh4(x[0], x[1], x[2], x[3], short)
			for j := range y {
				want := math.Tanh(x[j])
				if short {
					g, w := float32(y[j]), float32(want)
					if d := int64(math.Float32bits(g)) - int64(math.Float32bits(w)); d > 1 || d < -1 {
						t.Errorf("short tanh(%v) = %v, float32(math.Tanh) %v: %d ulps", x[j], g, w, d)
					}
					continue
				}
				if math.Abs(y[j]-want) > 2.5*0x1p-52*math.Abs(want) {
					t.Errorf("tanh(%.17g) = %.17g, math.Tanh %.17g", x[j], y[j], want)
				}
			}
		}
	}
}

// TestSlices checks Tanh and Sigmoid over slices (lengths with tails of 0
// to 3): float64 within a few ulps of math's value (2.5 for tanh, 4 for
// the sigmoid), float32 within one float32 ulp of math's value rounded.
func TestSlices(t *testing.T) {
	xs := expInputs(4_001)
	for i := range xs {
		if i%2 == 1 {
			xs[i] = -xs[i]
		}
	}
	for _, n := range []int{0, 1, 2, 3, 4, 7, len(xs)} {
		x64 := xs[:n]
		x32 := make([]float32, n)
		for i, v := range x64 {
			x32[i] = float32(v)
		}
		for _, f := range []struct {
			name string
			s64  func(dst, src []float64)
			s32  func(dst, src []float32)
			ref  func(float64) float64
			ulps float64 // float64's bound, relative to the reference's ulp
		}{
			{"tanh", Tanh[float64], Tanh[float32], math.Tanh, 2.5},
			{"sigmoid", Sigmoid[float64], Sigmoid[float32], func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, 4},
		} {
			y64 := make([]float64, n)
			f.s64(y64, x64)
			for i, x := range x64 {
				if want := f.ref(x); math.Abs(y64[i]-want) > f.ulps*0x1p-52*math.Abs(want) {
					t.Errorf("%s float64(%v) = %v, want %v within %g ulps", f.name, x, y64[i], want, f.ulps)
				}
			}
			y32 := append([]float32(nil), x32...)
			f.s32(y32, y32) // in place
			for i, x := range x32 {
				want := float32(f.ref(float64(x)))
				if d := int64(math.Float32bits(y32[i])) - int64(math.Float32bits(want)); d > 1 || d < -1 {
					t.Errorf("%s float32(%v) = %v, want %v: %d ulps", f.name, x, y32[i], want, d)
				}
			}
		}
	}
}

// TestSlicesSameBits checks that the slice functions (four lanes at once
// in assembly where it runs) give, value by value, the bits of Tanh4 and
// of sigmoidOf on ExpNeg4's value (long in float64, short and rounded in
// float32), NaN for NaN, over every scale, the clamp's edge, infinities,
// zeros and NaNs.
func TestSlicesSameBits(t *testing.T) {
	xs := append(expInputs(40_000), 0, math.Copysign(0, -1), 350, -350, 700, -700, 701, 1e300, -1e300,
		math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, -5e-324)
	for i := range xs {
		if i%3 == 1 {
			xs[i] = -xs[i]
		}
	}
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) || x != x && y != y }
	tanh, sig, en := make([]float64, len(xs)), make([]float64, len(xs)), make([]float64, len(xs))
	Tanh(tanh, xs)
	Sigmoid(sig, xs)
	ExpNegAbs(en, xs)
	for i, x := range xs {
		wt, _, _, _ := Tanh4(x, 0, 0, 0, false)
		e, _, _, _ := ExpNeg4(math.Abs(x), 0, 0, 0, false)
		if !same(en[i], e) {
			t.Errorf("ExpNegAbs(%v) = %v, ExpNeg4 %v", x, en[i], e)
		}
		ws := sigmoidOf(x, e)
		if !same(tanh[i], wt) {
			t.Errorf("Tanh(%v) = %v, Tanh4 %v", x, tanh[i], wt)
		}
		if !same(sig[i], ws) {
			t.Errorf("Sigmoid(%v) = %v, ExpNeg4 then sigmoidOf %v", x, sig[i], ws)
		}
	}
	x32 := make([]float32, len(xs))
	for i, x := range xs {
		x32[i] = float32(x)
	}
	tanh32, sig32 := make([]float32, len(xs)), make([]float32, len(xs))
	Tanh(tanh32, x32)
	Sigmoid(sig32, x32)
	ExpNegAbs(en, x32)
	for i, x := range x32 {
		wt, _, _, _ := Tanh4(float64(x), 0, 0, 0, true)
		e, _, _, _ := ExpNeg4(math.Abs(float64(x)), 0, 0, 0, true)
		if !same(en[i], e) {
			t.Errorf("float32 ExpNegAbs(%v) = %v, ExpNeg4 short %v", x, en[i], e)
		}
		ws := sigmoidOf(float64(x), e)
		if !same(float64(tanh32[i]), float64(float32(wt))) {
			t.Errorf("float32 Tanh(%v) = %v, Tanh4 short %v", x, tanh32[i], float32(wt))
		}
		if !same(float64(sig32[i]), float64(float32(ws))) {
			t.Errorf("float32 Sigmoid(%v) = %v, ExpNeg4 short then sigmoidOf %v", x, sig32[i], float32(ws))
		}
	}
}
