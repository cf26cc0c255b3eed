package optim

import "github.com/rtnlab/rtn/params"

func init() {
	Register("lion", func(c Config) (Optimizer, error) { return NewLion(c) })
}

// Lion is the sign-momentum optimizer found by program search (Chen et
// al. 2023, Program 1): the step is the sign of an interpolation of the
// momentum and the gradient, with decoupled weight decay λ:
//
//	c = β1 m + (1−β1) g
//	p ← p (1 − η λ) − η sign(c)
//	m ← β2 m + (1−β2) g
//
// Every coordinate moves by η (or not at all where c is 0), so Lion wants
// a rate 3-10 times smaller than AdamW's and a λ as many times larger.
// Its slot is "m/<param>".
type Lion struct {
	base
	beta1, beta2, decay float64
}

var _ Optimizer = (*Lion)(nil)

// NewLion returns a Lion optimizer configured by c; it uses LR (default
// 0.0001), Beta1 (default 0.9), Beta2 (default 0.99), DecoupledDecay
// (default 0), WeightDecay and ClipNorm.
func NewLion(c Config) (*Lion, error) {
	if c.Beta2 == 0 {
		c.Beta2 = 0.99
	}
	c, err := newAdamFamily(c, 0.0001)
	if err != nil {
		return nil, err
	}
	if err := checkDecoupled(c); err != nil {
		return nil, err
	}
	return &Lion{base: newBase("lion", c, false, "m"), beta1: c.Beta1, beta2: c.Beta2, decay: c.DecoupledDecay}, nil
}

// Step implements Optimizer. It fails, changing nothing, if grads is not
// laid out like params, a parameter's shape differs from its state, or a
// gradient holds NaN or Inf.
func (o *Lion) Step(params, grads *params.Params) error {
	return o.step(params, grads, o.update)
}

func (o *Lion) update(p, g []float64, s [][]float64, _ float64) {
	b1, b2 := o.beta1, o.beta2
	m := s[0]
	shrink := 1 - o.lr*o.decay
	for i := range p {
		c := b1*m[i] + (1-b1)*g[i]
		p[i] = p[i]*shrink - o.lr*sign(c)
		m[i] = b2*m[i] + (1-b2)*g[i]
	}
}

// sign is −1, 0 or 1.
func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
