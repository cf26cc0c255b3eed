package rnn

import (
	"math/rand/v2"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/params"
)

// The cells of this package, registered with layers.RegisterCell as
// "rnn" (Elman; CellConfig.Activation tanh, the default, symsigmoid or
// identity), "lstm" and "gru" (no activation to choose). None reads Rank,
// Order or Lags.
func init() {
	layers.RegisterCell("rnn", func(p *params.Params, name string, cfg layers.CellConfig, rng *rand.Rand) (graph.Cell, error) {
		if err := cfg.CheckUnused("rnn", "rank", "order", "lags"); err != nil {
			return nil, err
		}
		act := activation.Tanh
		if cfg.Activation != "" {
			var err error
			if act, err = activation.ParseOneOf(cfg.Activation, ElmanActivations()...); err != nil {
				return nil, errors.Errorf("rnn: activation %q: want tanh, symsigmoid or identity", cfg.Activation)
			}
		}
		c, err := NewElman(p, name, cfg.In, cfg.Hidden, act)
		if err != nil {
			return nil, err
		}
		return c, c.Init(rng)
	})
	layers.RegisterCell("lstm", func(p *params.Params, name string, cfg layers.CellConfig, rng *rand.Rand) (graph.Cell, error) {
		if err := cfg.CheckUnused("lstm", "activation", "rank", "order", "lags"); err != nil {
			return nil, err
		}
		c, err := NewLSTM(p, name, cfg.In, cfg.Hidden)
		if err != nil {
			return nil, err
		}
		return c, c.Init(rng)
	})
	layers.RegisterCell("gru", func(p *params.Params, name string, cfg layers.CellConfig, rng *rand.Rand) (graph.Cell, error) {
		if err := cfg.CheckUnused("gru", "activation", "rank", "order", "lags"); err != nil {
			return nil, err
		}
		c, err := NewGRU(p, name, cfg.In, cfg.Hidden)
		if err != nil {
			return nil, err
		}
		return c, c.Init(rng)
	})
}

// The cells' parameter counts (layers.RegisterCellSize).
func init() {
	layers.RegisterCellSize("rnn", func(c layers.CellConfig) float64 { return float64(c.Hidden) * (float64(c.In) + float64(c.Hidden) + 2) })
	layers.RegisterCellSize("lstm", func(c layers.CellConfig) float64 {
		return float64(c.Hidden) * (4*(float64(c.In)+float64(c.Hidden)+1) + 2)
	})
	layers.RegisterCellSize("gru", func(c layers.CellConfig) float64 {
		return float64(c.Hidden) * (3*(float64(c.In)+float64(c.Hidden)+1) + 2)
	})
}
