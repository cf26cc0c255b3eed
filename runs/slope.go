package runs

import (
	"math"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/optim"
)

// SlopeSchedule returns a Trainer hook that moves a LeakyReLU 2-RNN cell's
// negative slope linearly from `from` (1 is the linear 2-RNN) to `to` over
// the first `epochs` epochs, then holds it: the paper's suggested path from
// a spectral (linear) initialisation to a nonlinear 2-RNN. The slope set
// after epoch e is from + (to - from) min(1, e/epochs); a resumed run sets
// it from the epoch count alone, so it continues exactly.
func SlopeSchedule(c *twornn.Cell, from, to float64, epochs int) (optim.Hook, error) {
	if c.Activation() != activation.LeakyReLU {
		return optim.Hook{}, errors.Errorf("slope schedule needs a LeakyReLU cell, got %v", c.Activation())
	}
	if epochs < 1 || math.IsNaN(from) || math.IsNaN(to) || math.IsInf(from, 0) || math.IsInf(to, 0) {
		return optim.Hook{}, errors.Errorf("slope schedule: need finite slopes and epochs >= 1, got %g -> %g over %d", from, to, epochs)
	}
	if err := c.SetSlope(from); err != nil {
		return optim.Hook{}, err
	}
	return optim.Hook{
		Name:       "leaky-relu slope",
		EveryEpoch: true,
		Fn: func(s *optim.State) error {
			f := math.Min(1, float64(s.Epoch)/float64(epochs))
			return c.SetSlope(from + (to-from)*f)
		},
	}, nil
}
