package twornn

import (
	"math/rand/v2"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/params"
)

// The 2-RNN cell is registered with layers.RegisterCell as "2rnn":
// CellConfig.Hidden is the number of states n, Activation tanh (the
// default) or identity (the LeakyReLU's slope is not a trained parameter,
// so a model file could not restore it). It reads no Rank, Order or Lags.
func init() {
	layers.RegisterCell("2rnn", func(p *params.Params, name string, cfg layers.CellConfig, rng *rand.Rand) (graph.Cell, error) {
		if err := cfg.CheckUnused("2rnn", "rank", "order", "lags"); err != nil {
			return nil, err
		}
		act := activation.Tanh
		if cfg.Activation != "" {
			var err error
			if act, err = activation.ParseOneOf(cfg.Activation, activation.Tanh, activation.Identity); err != nil {
				return nil, errors.Errorf("2rnn: activation %q: want tanh or identity", cfg.Activation)
			}
		}
		c, err := NewCell(p, name, cfg.In, cfg.Hidden, act)
		if err != nil {
			return nil, err
		}
		return c, c.Init(rng)
	})
}

// The 2-RNN's parameter count (layers.RegisterCellSize): A and h0.
func init() {
	layers.RegisterCellSize("2rnn", func(c layers.CellConfig) float64 {
		return float64(c.Hidden) * (float64(c.In)*float64(c.Hidden) + 1)
	})
}
