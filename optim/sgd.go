package optim

import (
	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

func init() {
	Register("sgd", func(c Config) (Optimizer, error) { return NewSGD(c) })
}

// SGD is stochastic gradient descent with optional (Nesterov) momentum, in
// the formulation of PyTorch's torch.optim.SGD:
//
//	b ← μ b + g,  p ← p − η b          (momentum)
//	b ← μ b + g,  p ← p − η (g + μ b)  (Nesterov)
//
// Here and in the other optimizers of this package g is the gradient
// preprocessed as Config describes: first rescaled so that its global norm
// over all parameters of the step is at most ClipNorm, then increased by
// WeightDecay times the parameter. With momentum SGD keeps one slot per
// parameter, "mom/<param>".
type SGD struct {
	base
	momentum float64
	nesterov bool
}

var _ Optimizer = (*SGD)(nil)

// NewSGD returns an SGD optimizer configured by c; it uses LR (default
// 0.01), Momentum, Nesterov, WeightDecay and ClipNorm.
func NewSGD(c Config) (*SGD, error) {
	c = c.withDefaults(0.01)
	if err := c.checkCommon(); err != nil {
		return nil, err
	}
	if err := checkUnit("momentum", c.Momentum); err != nil {
		return nil, err
	}
	if c.Nesterov && c.Momentum == 0 {
		return nil, errors.New("optim: nesterov needs momentum > 0")
	}
	var slots []string
	if c.Momentum > 0 {
		slots = []string{"mom"}
	}
	return &SGD{base: newBase("sgd", c, false, slots...), momentum: c.Momentum, nesterov: c.Nesterov}, nil
}

// Step implements Optimizer. It fails, changing nothing, if grads is not
// laid out like params, a parameter's shape differs from its state, or a
// gradient holds NaN or Inf.
func (o *SGD) Step(params, grads *params.Params) error {
	return o.step(params, grads, o.update)
}

func (o *SGD) update(p, g []float64, s [][]float64, _ float64) {
	lr, mu := o.lr, o.momentum
	if mu == 0 {
		for i := range p {
			p[i] -= lr * g[i]
		}
		return
	}
	b := s[0]
	for i := range p {
		b[i] = mu*b[i] + g[i]
		if o.nesterov {
			p[i] -= lr * (g[i] + mu*b[i])
		} else {
			p[i] -= lr * b[i]
		}
	}
}
