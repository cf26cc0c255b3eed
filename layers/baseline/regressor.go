package baseline

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/rnn"
	"github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/losses"
	"github.com/rtnlab/rtn/params"
)

var _ twornn.Net = (*LSTMRegressor)(nil)

// LSTMRegressor is the spectral 2-RNN paper's baseline: one LSTM layer
// (tanh) read at the last step, then a linear output layer (out/W
// [hidden, out], out/b [out]). It is a twornn.Net, so twornn.Regression
// trains it on the same final-output data as a 2-RNN.
type LSTMRegressor struct {
	cell    *rnn.LSTM
	p       *params.Params
	in, out int
}

// NewLSTMRegressor returns the baseline for in-dimensional inputs and
// out-dimensional outputs with hidden units, initialised from rng: the
// cell as rnn.LSTM.Init, out/W from U(-1/sqrt(hidden), 1/sqrt(hidden)),
// out/b at zero.
func NewLSTMRegressor(in, out, hidden int, rng *rand.Rand) (*LSTMRegressor, error) {
	if in < 1 || out < 1 || hidden < 1 || rng == nil {
		return nil, errors.Errorf("lstm regressor: want in, out, hidden >= 1 and a random source, got %d, %d, %d", in, out, hidden)
	}
	p := params.New()
	cell, err := rnn.NewLSTM(p, "lstm", in, hidden)
	if err != nil {
		return nil, err
	}
	if _, err := p.Add("out/W", hidden, out); err != nil {
		return nil, err
	}
	if _, err := p.Add("out/b", out); err != nil {
		return nil, err
	}
	if err := cell.Init(rng); err != nil {
		return nil, err
	}
	if err := p.InitUniform("out/W", rng, 1/math.Sqrt(float64(hidden))); err != nil {
		return nil, err
	}
	return &LSTMRegressor{cell: cell, p: p, in: in, out: out}, nil
}

// Sizes implements twornn.Net.
func (n *LSTMRegressor) Sizes() (int, int) { return n.in, n.out }

// Parameters implements twornn.Net.
func (n *LSTMRegressor) Parameters() *params.Params { return n.p }

// Build implements twornn.Net.
func (n *LSTMRegressor) Build(b *graph.Builder, batch, steps int) ([]*G.Node, *G.Node, *G.Node, error) {
	u, err := graph.Unroll(b, n.cell, batch, steps, false)
	if err != nil {
		return nil, nil, nil, err
	}
	pred := b.AddRow(b.Mul(u.Outputs[steps-1], b.Param(n.p, "out/W")), b.Param(n.p, "out/b"))
	target := b.Input("y", batch, n.out)
	return u.Inputs, target, b.Sum(losses.MSE(b, pred, target)), b.Err()
}
