package tensorcell

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/decomp"
	"github.com/rtnlab/rtn/params"
)

// HOTRNN is the higher-order tensor-train RNN of Yu et al. ("Long-term
// forecasting using higher-order tensor RNNs", 2017, Eq. 3-5): with
// s_t = [1, h_{t-1}, ..., h_{t-L}] (width D = L H + 1) the lagged states
// and a constant 1 (which carries the bias and every lower-order term),
//
//	h_t = tanh(x_t W + A(s_t, ..., s_t)),
//
// A [D, ..., D, H] of order P (P copies of s_t) held as a tensor train of
// rank R (decomp.TT: <name>/A/C1 [D, R], <name>/A/Ck [R, D, R],
// <name>/A/O [R, H]), W [in, H]. Its state is the L last h, state 0 the
// newest; each has a learned initial value <name>/h0_1 ... <name>/h0_L.
type HOTRNN struct {
	p                      *params.Params
	name                   string
	in, hidden, order, lag int
	A                      *decomp.TT
}

var _ graph.Cell = (*HOTRNN)(nil)

// MaxHOTOrder is the largest order of a HOTRNN: Yu et al. use 2 and 3,
// and the entries of a tensor train of order P are products of P+1
// factors, whose scale at initialisation underflows for large P.
const MaxHOTOrder = 4

// NewHOTRNN adds the cell's parameters (zero) to p: order P in [1,
// MaxHOTOrder] (the paper uses 2 and 3), lags L >= 1, rank R >= 1.
func NewHOTRNN(p *params.Params, name string, in, hidden, order, lags, rank int) (*HOTRNN, error) {
	if in <= 0 || hidden <= 0 || lags <= 0 {
		return nil, errors.Errorf("tensorcell: hotrnn sizes must be positive, got in %d, hidden %d, lags %d", in, hidden, lags)
	}
	if order < 1 || order > MaxHOTOrder {
		return nil, errors.Errorf("tensorcell: hotrnn order must be in [1, %d], got %d", MaxHOTOrder, order)
	}
	d := lags*hidden + 1
	modes, ranks := make([]int, order), make([]int, order)
	for k := range modes {
		modes[k], ranks[k] = d, rank
	}
	a, err := decomp.NewTT(p, name+"/A", modes, hidden, ranks)
	if err != nil {
		return nil, err
	}
	c := &HOTRNN{p: p, name: name, in: in, hidden: hidden, order: order, lag: lags, A: a}
	if _, err := p.Add(c.Name("W"), in, hidden); err != nil {
		return nil, err
	}
	for l := range lags {
		if _, err := p.Add(c.h0(l), hidden); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Name is the full parameter name of "W" or "h0_1" ... "h0_L".
func (c *HOTRNN) Name(t string) string { return c.name + "/" + t }

func (c *HOTRNN) h0(l int) string { return c.Name(fmt.Sprintf("h0_%d", l+1)) }

// Init draws W from U(-1/sqrt(H), 1/sqrt(H)), A with entries of standard
// deviation 1/sqrt(D^P) (so that A(s, ..., s) has about unit scale for
// states of unit scale) and zeroes the initial states.
func (c *HOTRNN) Init(rng *rand.Rand) error {
	if err := c.p.InitUniform(c.Name("W"), rng, 1/math.Sqrt(float64(c.hidden))); err != nil {
		return err
	}
	d := float64(c.lag*c.hidden + 1)
	if err := c.A.Init(rng, math.Pow(d, -float64(c.order)/2)); err != nil {
		return err
	}
	for l := range c.lag {
		if err := c.p.Fill(c.h0(l), 0); err != nil {
			return err
		}
	}
	return nil
}

// InputSize implements graph.Cell.
func (c *HOTRNN) InputSize() int { return c.in }

// StateSizes implements graph.Cell: L states of width H.
func (c *HOTRNN) StateSizes() []int {
	s := make([]int, c.lag)
	for i := range s {
		s[i] = c.hidden
	}
	return s
}

// InitialState implements graph.Cell.
func (c *HOTRNN) InitialState(b *graph.Builder, batch int) []*G.Node {
	s := make([]*G.Node, c.lag)
	for l := range s {
		s[l] = b.LearnedState(c.p, c.h0(l), batch)
	}
	return s
}

// Step implements graph.Cell: the new state is [h_t, h_{t-1}, ...,
// h_{t-L+1}].
func (c *HOTRNN) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	batch := x.Shape()[0]
	ones := make([]float64, batch)
	for i := range ones {
		ones[i] = 1
	}
	s := b.Concat(1, append([]*G.Node{b.Constant(ones, batch, 1)}, h...)...)
	xs := make([]*G.Node, c.order)
	for k := range xs {
		xs[k] = s
	}
	next := b.Tanh(b.Add(b.Mul(x, b.Param(c.p, c.Name("W"))), c.A.Apply(b, xs...)))
	return append([]*G.Node{next}, h[:c.lag-1]...)
}
