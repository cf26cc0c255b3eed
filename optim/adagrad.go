package optim

import (
	"math"

	"github.com/rtnlab/rtn/params"
)

func init() {
	Register("adagrad", func(c Config) (Optimizer, error) { return NewAdaGrad(c) })
}

// AdaGrad scales each coordinate by the root of its accumulated squared
// gradients (Duchi, Hazan and Singer 2011):
//
//	a ← a + g²,  p ← p − η g / (√a + ε)
//
// Its slot is "sum/<param>".
type AdaGrad struct {
	base
	eps float64
}

var _ Optimizer = (*AdaGrad)(nil)

// NewAdaGrad returns an AdaGrad optimizer configured by c; it uses LR
// (default 0.01), Eps, WeightDecay and ClipNorm.
func NewAdaGrad(c Config) (*AdaGrad, error) {
	c = c.withDefaults(0.01)
	if err := c.checkCommon(); err != nil {
		return nil, err
	}
	return &AdaGrad{base: newBase("adagrad", c, false, "sum"), eps: c.Eps}, nil
}

// Step implements Optimizer. It fails, changing nothing, if grads is not
// laid out like params, a parameter's shape differs from its state, or a
// gradient holds NaN or Inf.
func (o *AdaGrad) Step(params, grads *params.Params) error {
	return o.step(params, grads, o.update)
}

func (o *AdaGrad) update(p, g []float64, s [][]float64, _ float64) {
	a := s[0]
	for i := range p {
		a[i] += g[i] * g[i]
		p[i] -= o.lr * g[i] / (math.Sqrt(a[i]) + o.eps)
	}
}
