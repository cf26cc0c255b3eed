package optim

import (
	"math"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

func init() {
	Register("rmsprop", func(c Config) (Optimizer, error) { return NewRMSProp(c) })
}

// RMSProp divides the gradient by a running root mean square (Tieleman and
// Hinton 2012), optionally with momentum, as PyTorch's torch.optim.RMSprop:
//
//	v ← ρ v + (1−ρ) g²
//	p ← p − η g / (√v + ε)                      (no momentum)
//	b ← μ b + g / (√v + ε),  p ← p − η b         (momentum μ)
//
// Its slots are "v/<param>" and, with momentum, "mom/<param>".
type RMSProp struct {
	base
	rho, momentum, eps float64
}

var _ Optimizer = (*RMSProp)(nil)

// NewRMSProp returns an RMSProp optimizer configured by c; it uses LR
// (default 0.001), Rho, Momentum, Eps, WeightDecay and ClipNorm.
func NewRMSProp(c Config) (*RMSProp, error) {
	c = c.withDefaults(0.001)
	if err := c.checkCommon(); err != nil {
		return nil, err
	}
	if !(c.Rho > 0 && c.Rho < 1) {
		return nil, errors.Errorf("optim: rho must be in (0, 1), got %v", c.Rho)
	}
	if err := checkUnit("momentum", c.Momentum); err != nil {
		return nil, err
	}
	slots := []string{"v"}
	if c.Momentum > 0 {
		slots = append(slots, "mom")
	}
	return &RMSProp{base: newBase("rmsprop", c, false, slots...), rho: c.Rho, momentum: c.Momentum, eps: c.Eps}, nil
}

// Step implements Optimizer. It fails, changing nothing, if grads is not
// laid out like params, a parameter's shape differs from its state, or a
// gradient holds NaN or Inf.
func (o *RMSProp) Step(params, grads *params.Params) error {
	return o.step(params, grads, o.update)
}

func (o *RMSProp) update(p, g []float64, s [][]float64, _ float64) {
	rho, mu, lr := o.rho, o.momentum, o.lr
	v := s[0]
	for i := range p {
		v[i] = rho*v[i] + (1-rho)*g[i]*g[i]
		d := g[i] / (math.Sqrt(v[i]) + o.eps)
		if mu > 0 {
			b := s[1]
			b[i] = mu*b[i] + d
			d = b[i]
		}
		p[i] -= lr * d
	}
}
