package tensorcell

import (
	"math/rand/v2"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/params"
)

// Defaults of the registered cells' sizes (CellConfig fields left 0).
const (
	// DefaultHOTOrder is hotrnn's order P (the paper uses 2 and 3).
	DefaultHOTOrder = 2
	// DefaultHOTLags is hotrnn's number of lagged states L.
	DefaultHOTLags = 2
	// DefaultHOTRank is hotrnn's tensor-train rank.
	DefaultHOTRank = 4
)

// The cells are registered with layers.RegisterCell:
//
//   - cp2rnn: Hidden H, Rank R (0: H), Activation tanh (the default) or
//     identity; no Order or Lags;
//   - hotrnn: Hidden H, Order P (0: 2), Lags L (0: 2), Rank R (0: 4); no
//     Activation (tanh);
//   - mirnn: Hidden H only;
//   - mpscell: Hidden is the bond dimension D; nothing else.
func init() {
	layers.RegisterCell("cp2rnn", func(p *params.Params, name string, cfg layers.CellConfig, rng *rand.Rand) (graph.Cell, error) {
		if err := cfg.CheckUnused("cp2rnn", "order", "lags"); err != nil {
			return nil, err
		}
		act := activation.Tanh
		if cfg.Activation != "" {
			var err error
			if act, err = activation.ParseOneOf(cfg.Activation, activation.Tanh, activation.Identity); err != nil {
				return nil, errors.Errorf("cp2rnn: activation %q: want tanh or identity", cfg.Activation)
			}
		}
		c, err := NewCP2RNN(p, name, cfg.In, cfg.Hidden, or(cfg.Rank, cfg.Hidden), act)
		return initialised(c, err, rng)
	})
	layers.RegisterCell("hotrnn", func(p *params.Params, name string, cfg layers.CellConfig, rng *rand.Rand) (graph.Cell, error) {
		if err := cfg.CheckUnused("hotrnn", "activation"); err != nil {
			return nil, err
		}
		c, err := NewHOTRNN(p, name, cfg.In, cfg.Hidden, or(cfg.Order, DefaultHOTOrder), or(cfg.Lags, DefaultHOTLags), or(cfg.Rank, DefaultHOTRank))
		return initialised(c, err, rng)
	})
	layers.RegisterCell("mirnn", func(p *params.Params, name string, cfg layers.CellConfig, rng *rand.Rand) (graph.Cell, error) {
		if err := cfg.CheckUnused("mirnn", "activation", "rank", "order", "lags"); err != nil {
			return nil, err
		}
		c, err := NewMIRNN(p, name, cfg.In, cfg.Hidden)
		return initialised(c, err, rng)
	})
	layers.RegisterCell("mpscell", func(p *params.Params, name string, cfg layers.CellConfig, rng *rand.Rand) (graph.Cell, error) {
		if err := cfg.CheckUnused("mpscell", "activation", "rank", "order", "lags"); err != nil {
			return nil, err
		}
		c, err := NewMPSCell(p, name, cfg.In, cfg.Hidden)
		return initialised(c, err, rng)
	})
}

// The cells' parameter counts (layers.RegisterCellSize), defaults
// applied as their factories apply them.
func init() {
	layers.RegisterCellSize("cp2rnn", func(c layers.CellConfig) float64 {
		r, h := float64(or(c.Rank, c.Hidden)), float64(c.Hidden)
		return r*(2*h+float64(c.In)) + 2*h
	})
	layers.RegisterCellSize("hotrnn", func(c layers.CellConfig) float64 {
		p, l, r := or(c.Order, DefaultHOTOrder), or(c.Lags, DefaultHOTLags), or(c.Rank, DefaultHOTRank)
		h, fr, fl := float64(c.Hidden), float64(r), float64(l)
		d := fl*h + 1
		return fr*d + float64(p-1)*fr*fr*d + fr*h + (float64(c.In)+fl)*h
	})
	layers.RegisterCellSize("mirnn", func(c layers.CellConfig) float64 { return float64(c.Hidden) * (float64(c.In) + float64(c.Hidden) + 5) })
	layers.RegisterCellSize("mpscell", func(c layers.CellConfig) float64 {
		return float64(c.Hidden) * (float64(c.In)*float64(c.Hidden) + 1)
	})
}

// tensor is a parameter of a cell: its name under the cell's and its
// shape.
type tensor struct {
	name  string
	shape []int
}

// addAll adds the tensors to p (zero), named name/t.name.
func addAll(p *params.Params, name string, ts ...tensor) error {
	for _, t := range ts {
		if _, err := p.Add(name+"/"+t.name, t.shape...); err != nil {
			return err
		}
	}
	return nil
}

// initialised returns c after initialising it from rng, or err.
func initialised(c interface {
	graph.Cell
	Init(*rand.Rand) error
}, err error, rng *rand.Rand) (graph.Cell, error) {
	if err != nil {
		return nil, err
	}
	return c, c.Init(rng)
}

// or is v, or def when v is 0.
func or(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
