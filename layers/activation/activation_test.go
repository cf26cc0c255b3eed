package activation

import (
	"math"
	"strings"
	"testing"
)

const (
	fdStep = 1e-6
	fdTol  = 1e-8 // central differences of smooth O(1) functions at h = 1e-6
)

// TestDerivAndInverse checks DerivOut against central differences of F and
// Inverse against F, for every activation at points on both sides of 0.
func TestDerivAndInverse(t *testing.T) {
	const slope = 0.3
	for a := Identity; a <= LeakyReLU; a++ {
		for _, z := range []float64{-2.5, -0.7, -0.01, 0.02, 0.9, 3} {
			num := (a.F(z+fdStep, slope) - a.F(z-fdStep, slope)) / (2 * fdStep)
			if got := a.DerivOut(a.F(z, slope), slope); math.Abs(got-num) > fdTol {
				t.Errorf("%v at %v: derivative %v, finite differences %v", a, z, got, num)
			}
			back, ok := a.Inverse(a.F(z, slope), slope)
			if !ok || math.Abs(back-z) > 1e-12*math.Max(1, math.Abs(z)) {
				t.Errorf("%v at %v: inverse gives %v, %v", a, z, back, ok)
			}
		}
	}
	if math.Abs(SymSigmoid.F(1.3, 0)-(1-math.Exp(-1.3))/(1+math.Exp(-1.3))) > 1e-15 {
		t.Error("SymSigmoid is not (1-e^-z)/(1+e^-z)")
	}
	if Logistic.F(-800, 0) != 0 || Logistic.F(800, 0) != 1 {
		t.Error("Logistic overflows")
	}
	for _, y := range []float64{-1, 1, math.NaN()} {
		if _, ok := Tanh.Inverse(y, 0); ok {
			t.Errorf("Tanh.Inverse(%v) accepted", y)
		}
	}
	if _, ok := LeakyReLU.Inverse(-1, 0); ok {
		t.Error("LeakyReLU with slope 0 inverted a negative value")
	}
}

func TestParse(t *testing.T) {
	for a := Identity; a <= LeakyReLU; a++ {
		if got, err := Parse(a.String()); err != nil || got != a {
			t.Errorf("Parse(%q) = %v, %v", a, got, err)
		}
	}
	if got, err := Parse("linear"); err != nil || got != Identity {
		t.Errorf("alias linear: %v %v", got, err)
	}
	if _, err := Parse("relu"); err == nil || !strings.Contains(err.Error(), "known: identity, tanh, symsigmoid, logistic, leakyrelu") {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := ParseOneOf("logistic", Tanh, Identity); err == nil || !strings.Contains(err.Error(), "logistic is not supported here (want tanh, identity)") {
		t.Errorf("unsupported: %v", err)
	}
	v := []float64{-1, 2}
	LeakyReLU.Apply(v, 0.5)
	if v[0] != -0.5 || v[1] != 2 {
		t.Errorf("Apply: %v", v)
	}
}
