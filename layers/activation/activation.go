// Package activation is the one list of nonlinearities rtn's recurrent
// models use, with their Go functions, derivatives and inverses. It imports
// nothing from gorgonia, so closed-form estimators (autoenc) and native
// kernels (pcnn) share it with graph cells; each model says which of them
// it supports.
package activation

import (
	"math"
	"strings"

	"github.com/pkg/errors"
)

// Activation is an elementwise nonlinearity s(z).
type Activation int

const (
	// Identity is s(z) = z (linear models).
	Identity Activation = iota
	// Tanh is s(z) = tanh(z).
	Tanh
	// SymSigmoid is the symmetric sigmoid (1 - e^-z)/(1 + e^-z) = tanh(z/2)
	// of the linear-autoencoder pre-training paper.
	SymSigmoid
	// Logistic is s(z) = 1/(1 + e^-z).
	Logistic
	// LeakyReLU is max(z, 0) + slope min(z, 0); the slope is a parameter of
	// the model that uses it (slope 1 is the identity).
	LeakyReLU
)

var names = [...]string{Identity: "identity", Tanh: "tanh", SymSigmoid: "symsigmoid", Logistic: "logistic", LeakyReLU: "leakyrelu"}

// aliases are other spellings Parse accepts.
var aliases = map[string]Activation{"linear": Identity, "sym-sigmoid": SymSigmoid, "leaky-relu": LeakyReLU, "sigmoid": Logistic}

// String is the activation's name as Parse reads it.
func (a Activation) String() string {
	if a < 0 || int(a) >= len(names) {
		return "unknown"
	}
	return names[a]
}

// Parse reads an activation's name (identity, tanh, symsigmoid, logistic,
// leakyrelu; also linear, sym-sigmoid, sigmoid and leaky-relu).
func Parse(s string) (Activation, error) {
	for a, n := range names {
		if n == s {
			return Activation(a), nil
		}
	}
	if a, ok := aliases[s]; ok {
		return a, nil
	}
	return 0, errors.Errorf("activation: unknown activation %q (known: %s)", s, strings.Join(names[:], ", "))
}

// ParseOneOf reads an activation's name and checks that it is one of the
// supported ones, for a model that implements only some; the error names
// them.
func ParseOneOf(s string, supported ...Activation) (Activation, error) {
	a, err := Parse(s)
	if err == nil {
		err = Check(a, supported...)
	}
	return a, err
}

// Check returns an error naming the supported activations when a is not
// one of them.
func Check(a Activation, supported ...Activation) error {
	for _, s := range supported {
		if a == s {
			return nil
		}
	}
	want := make([]string, len(supported))
	for i, s := range supported {
		want[i] = s.String()
	}
	return errors.Errorf("activation: %s is not supported here (want %s)", a, strings.Join(want, ", "))
}

// F is s(z); slope is LeakyReLU's negative slope and is ignored otherwise.
func (a Activation) F(z, slope float64) float64 {
	switch a {
	case Tanh:
		return math.Tanh(z)
	case SymSigmoid:
		return math.Tanh(z / 2)
	case Logistic:
		return 1 / (1 + math.Exp(-z)) // exp(-z) = +Inf gives 0, no overflow
	case LeakyReLU:
		if z < 0 {
			return slope * z
		}
	}
	return z
}

// Apply replaces every z in v by s(z).
func (a Activation) Apply(v []float64, slope float64) {
	if a == Identity {
		return
	}
	for i, z := range v {
		v[i] = a.F(z, slope)
	}
}

// DerivOut is the derivative s'(z) written through the output y = s(z), the
// form backpropagation uses. For LeakyReLU the sign of y is that of z.
func (a Activation) DerivOut(y, slope float64) float64 {
	switch a {
	case Tanh:
		return 1 - y*y
	case SymSigmoid:
		return (1 - y*y) / 2
	case Logistic:
		return y * (1 - y)
	case LeakyReLU:
		if y < 0 {
			return slope
		}
	}
	return 1
}

// Inverse is s^-1(y), and false when y is outside the range of s (or s is
// not invertible: LeakyReLU with slope <= 0).
func (a Activation) Inverse(y, slope float64) (float64, bool) {
	switch a {
	case Tanh:
		if !(y > -1 && y < 1) {
			return 0, false
		}
		return math.Atanh(y), true
	case SymSigmoid:
		if !(y > -1 && y < 1) {
			return 0, false
		}
		return 2 * math.Atanh(y), true
	case Logistic:
		if !(y > 0 && y < 1) {
			return 0, false
		}
		return math.Log(y / (1 - y)), true
	case LeakyReLU:
		if y < 0 {
			if slope <= 0 {
				return 0, false
			}
			return y / slope, true
		}
	}
	return y, true
}
