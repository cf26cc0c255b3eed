package optim

import (
	"math"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

func init() {
	Register("adamw", func(c Config) (Optimizer, error) { return NewAdamW(c) })
	Register("nadam", func(c Config) (Optimizer, error) { return NewNAdam(c) })
	Register("radam", func(c Config) (Optimizer, error) { return NewRAdam(c) })
}

// defaultAdamWDecay is AdamW's decoupled decay when Config leaves it 0,
// torch.optim.AdamW's default.
const defaultAdamWDecay = 0.01

// checkDecoupled validates Config.DecoupledDecay.
func checkDecoupled(c Config) error {
	if !(c.DecoupledDecay >= 0) || math.IsInf(c.DecoupledDecay, 0) {
		return errors.Errorf("optim: decoupled decay must be >= 0 and finite, got %v", c.DecoupledDecay)
	}
	return nil
}

// newAdamFamily applies the defaults and checks every Adam-like
// optimizer shares: lr, eps, clipping, coupled decay and the betas.
func newAdamFamily(c Config, lr float64) (Config, error) {
	c = c.withDefaults(lr)
	if err := c.checkCommon(); err != nil {
		return c, err
	}
	return c, checkBetas(c)
}

// AdamW is Adam with decoupled weight decay (Loshchilov and Hutter 2019,
// Algorithm 2, as torch.optim.AdamW): before Adam's step,
//
//	p ← p (1 − η λ)
//
// with λ = Config.DecoupledDecay (default 0.01). Its state is Adam's:
// "m/<param>", "v/<param>" and "t/<param>".
type AdamW struct {
	Adam
	decay float64
}

var _ Optimizer = (*AdamW)(nil)

// NewAdamW returns an AdamW optimizer configured by c; it uses LR
// (default 0.001), Beta1, Beta2, Eps, DecoupledDecay (default 0.01),
// WeightDecay and ClipNorm.
func NewAdamW(c Config) (*AdamW, error) {
	if c.DecoupledDecay == 0 {
		c.DecoupledDecay = defaultAdamWDecay
	}
	c, err := newAdamFamily(c, 0.001)
	if err != nil {
		return nil, err
	}
	if err := checkDecoupled(c); err != nil {
		return nil, err
	}
	a := Adam{base: newBase("adamw", c, true, "m", "v"), beta1: c.Beta1, beta2: c.Beta2, eps: c.Eps}
	return &AdamW{Adam: a, decay: c.DecoupledDecay}, nil
}

// Step implements Optimizer. It fails, changing nothing, if grads is not
// laid out like params, a parameter's shape differs from its state, or a
// gradient holds NaN or Inf.
func (o *AdamW) Step(params, grads *params.Params) error {
	return o.step(params, grads, o.update)
}

func (o *AdamW) update(p, g []float64, s [][]float64, t float64) {
	shrink := 1 - o.lr*o.decay
	for i := range p {
		p[i] *= shrink
	}
	o.Adam.update(p, g, s, t)
}

// NAdam is Adam with Nesterov momentum (Dozat 2016) in the form of
// torch.optim.NAdam, with its momentum schedule μ_t = β1 (1 − 0.96^(tψ)/2)
// and the product Π_t = μ_1 ⋯ μ_t:
//
//	m ← β1 m + (1−β1) g,  v ← β2 v + (1−β2) g²,  d = √(v / (1−β2ᵗ)) + ε
//	p ← p − η (1−μ_t) / (1−Π_t) g/d − η μ_{t+1} / (1−Π_t μ_{t+1}) m/d
//
// where ψ = Config.MomentumDecay. Its slots are "m/<param>", "v/<param>",
// the product "mu/<param>" and the step count "t/<param>".
type NAdam struct {
	base
	beta1, beta2, eps, psi float64
}

var _ Optimizer = (*NAdam)(nil)

// NewNAdam returns an NAdam optimizer configured by c; it uses LR
// (default 0.002), Beta1, Beta2, Eps, MomentumDecay (default 0.004),
// WeightDecay and ClipNorm.
func NewNAdam(c Config) (*NAdam, error) {
	if c.MomentumDecay == 0 {
		c.MomentumDecay = 0.004
	}
	c, err := newAdamFamily(c, 0.002)
	if err != nil {
		return nil, err
	}
	if !(c.MomentumDecay > 0) || math.IsInf(c.MomentumDecay, 0) {
		return nil, errors.Errorf("optim: momentum decay must be positive and finite, got %v", c.MomentumDecay)
	}
	b := newBase("nadam", c, true, "m", "v").withExtra(scalarSlot, "mu")
	return &NAdam{base: b, beta1: c.Beta1, beta2: c.Beta2, eps: c.Eps, psi: c.MomentumDecay}, nil
}

// Step implements Optimizer. It fails, changing nothing, if grads is not
// laid out like params, a parameter's shape differs from its state, or a
// gradient holds NaN or Inf.
func (o *NAdam) Step(params, grads *params.Params) error {
	return o.step(params, grads, o.update)
}

func (o *NAdam) update(p, g []float64, s [][]float64, t float64) {
	b1, b2 := o.beta1, o.beta2
	m, v, prod := s[0], s[1], s[2]
	if t == 1 {
		prod[0] = 1
	}
	mu := b1 * (1 - 0.5*math.Pow(0.96, t*o.psi))
	muNext := b1 * (1 - 0.5*math.Pow(0.96, (t+1)*o.psi))
	prod[0] *= mu
	prodNext := prod[0] * muNext
	c2 := 1 - math.Pow(b2, t)
	gStep := o.lr * (1 - mu) / (1 - prod[0])
	mStep := o.lr * muNext / (1 - prodNext)
	for i := range p {
		m[i] = b1*m[i] + (1-b1)*g[i]
		v[i] = b2*v[i] + (1-b2)*g[i]*g[i]
		d := math.Sqrt(v[i]/c2) + o.eps
		p[i] -= gStep * g[i] / d
		p[i] -= mStep * m[i] / d
	}
}

// RAdam is rectified Adam (Liu et al. 2020, Algorithm 2, as
// torch.optim.RAdam): with ρ∞ = 2/(1−β2) − 1 and
// ρ_t = ρ∞ − 2t β2ᵗ/(1−β2ᵗ), the variance of the adaptive rate is
// tractable only when ρ_t > 5; before that the step is momentum SGD:
//
//	m ← β1 m + (1−β1) g,  v ← β2 v + (1−β2) g²,  m̂ = m / (1−β1ᵗ)
//	ρ_t > 5:  r = √((ρ_t−4)(ρ_t−2)ρ∞ / ((ρ∞−4)(ρ∞−2)ρ_t))
//	          p ← p − η m̂ r √(1−β2ᵗ) / (√v + ε)
//	ρ_t ≤ 5:  p ← p − η m̂
//
// Its state is Adam's: "m/<param>", "v/<param>" and "t/<param>".
type RAdam struct {
	base
	beta1, beta2, eps float64
}

var _ Optimizer = (*RAdam)(nil)

// NewRAdam returns an RAdam optimizer configured by c; it uses LR
// (default 0.001), Beta1, Beta2, Eps, WeightDecay and ClipNorm.
func NewRAdam(c Config) (*RAdam, error) {
	c, err := newAdamFamily(c, 0.001)
	if err != nil {
		return nil, err
	}
	return &RAdam{base: newBase("radam", c, true, "m", "v"), beta1: c.Beta1, beta2: c.Beta2, eps: c.Eps}, nil
}

// Step implements Optimizer. It fails, changing nothing, if grads is not
// laid out like params, a parameter's shape differs from its state, or a
// gradient holds NaN or Inf.
func (o *RAdam) Step(params, grads *params.Params) error {
	return o.step(params, grads, o.update)
}

func (o *RAdam) update(p, g []float64, s [][]float64, t float64) {
	b1, b2 := o.beta1, o.beta2
	m, v := s[0], s[1]
	c1 := 1 - math.Pow(b1, t)
	c2 := 1 - math.Pow(b2, t)
	rhoInf := 2/(1-b2) - 1
	rho := rhoInf - 2*t*math.Pow(b2, t)/c2
	rect := 0.0
	if rho > 5 {
		rect = math.Sqrt((rho - 4) * (rho - 2) * rhoInf / ((rhoInf - 4) * (rhoInf - 2) * rho))
	}
	for i := range p {
		m[i] = b1*m[i] + (1-b1)*g[i]
		v[i] = b2*v[i] + (1-b2)*g[i]*g[i]
		mhat := m[i] / c1
		if rect > 0 {
			p[i] -= mhat * o.lr * (math.Sqrt(c2) / (math.Sqrt(v[i]) + o.eps)) * rect
		} else {
			p[i] -= mhat * o.lr
		}
	}
}
