package optim

import (
	"math"

	"github.com/rtnlab/rtn/params"
)

func init() {
	Register("adam", func(c Config) (Optimizer, error) { return NewAdam(c) })
	Register("adamax", func(c Config) (Optimizer, error) { return NewAdamax(c) })
}

// checkBetas validates Adam's and Adamax's moment decay rates.
func checkBetas(c Config) error {
	if err := checkUnit("beta1", c.Beta1); err != nil {
		return err
	}
	return checkUnit("beta2", c.Beta2)
}

// Adam is the bias-corrected Adam optimizer (Kingma and Ba 2015,
// Algorithm 1, with ε outside the square root as in PyTorch):
//
//	m ← β1 m + (1−β1) g,  v ← β2 v + (1−β2) g²
//	p ← p − η (m / (1−β1ᵗ)) / (√(v / (1−β2ᵗ)) + ε)
//
// where g is the gradient after clipping and (coupled, L2) weight decay,
// and t counts this parameter's steps. Its slots are "m/<param>", "v/<param>" and the step count "t/<param>".
type Adam struct {
	base
	beta1, beta2, eps float64
}

var _ Optimizer = (*Adam)(nil)

// NewAdam returns an Adam optimizer configured by c; it uses LR (default
// 0.001), Beta1, Beta2, Eps, WeightDecay and ClipNorm.
func NewAdam(c Config) (*Adam, error) {
	c = c.withDefaults(0.001)
	if err := c.checkCommon(); err != nil {
		return nil, err
	}
	if err := checkBetas(c); err != nil {
		return nil, err
	}
	return &Adam{base: newBase("adam", c, true, "m", "v"), beta1: c.Beta1, beta2: c.Beta2, eps: c.Eps}, nil
}

// Step implements Optimizer. It fails, changing nothing, if grads is not
// laid out like params, a parameter's shape differs from its state, or a
// gradient holds NaN or Inf.
func (o *Adam) Step(params, grads *params.Params) error {
	return o.step(params, grads, o.update)
}

func (o *Adam) update(p, g []float64, s [][]float64, t float64) {
	b1, b2 := o.beta1, o.beta2
	m, v := s[0], s[1]
	step := o.lr / (1 - math.Pow(b1, t))
	c2 := 1 - math.Pow(b2, t)
	for i := range p {
		m[i] = b1*m[i] + (1-b1)*g[i]
		v[i] = b2*v[i] + (1-b2)*g[i]*g[i]
		p[i] -= step * m[i] / (math.Sqrt(v[i]/c2) + o.eps)
	}
}

// Adamax is Adam with the infinity norm (Kingma and Ba 2015, Algorithm 2,
// with ε inside the max as in PyTorch so that a zero gradient is safe):
//
//	m ← β1 m + (1−β1) g,  u ← max(β2 u, |g| + ε)
//	p ← p − η (m / (1−β1ᵗ)) / u
//
// Its slots are "m/<param>", "u/<param>" and the step count "t/<param>".
type Adamax struct {
	base
	beta1, beta2, eps float64
}

var _ Optimizer = (*Adamax)(nil)

// NewAdamax returns an Adamax optimizer configured by c; it uses LR
// (default 0.002), Beta1, Beta2, Eps, WeightDecay and ClipNorm.
func NewAdamax(c Config) (*Adamax, error) {
	c = c.withDefaults(0.002)
	if err := c.checkCommon(); err != nil {
		return nil, err
	}
	if err := checkBetas(c); err != nil {
		return nil, err
	}
	return &Adamax{base: newBase("adamax", c, true, "m", "u"), beta1: c.Beta1, beta2: c.Beta2, eps: c.Eps}, nil
}

// Step implements Optimizer. It fails, changing nothing, if grads is not
// laid out like params, a parameter's shape differs from its state, or a
// gradient holds NaN or Inf.
func (o *Adamax) Step(params, grads *params.Params) error {
	return o.step(params, grads, o.update)
}

func (o *Adamax) update(p, g []float64, s [][]float64, t float64) {
	b1, b2 := o.beta1, o.beta2
	m, u := s[0], s[1]
	step := o.lr / (1 - math.Pow(b1, t))
	for i := range p {
		m[i] = b1*m[i] + (1-b1)*g[i]
		u[i] = math.Max(b2*u[i], math.Abs(g[i])+o.eps)
		p[i] -= step * m[i] / u[i]
	}
}
