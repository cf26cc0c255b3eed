package twornn

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/spectral"
)

// Activations lists the state nonlinearities z of Eq. (1) a cell
// supports: the identity (the linear 2-RNN that spectral learns), tanh, and
// a LeakyReLU whose slope is set by Cell.SetSlope (slope 1 is the identity).
func Activations() []activation.Activation {
	return []activation.Activation{activation.Identity, activation.Tanh, activation.LeakyReLU}
}

// Cell is the 2-RNN step h_t = z(A .1 h_{t-1} .2 x_t), i.e.
// h_t[j] = z(sum_{i,c} h_{t-1}[i] x_t[c] A[i,c,j]). Its parameters are
// <name>/A [n, d*n] (A[i,c,j] at row i, column c*n+j: the layout of
// spectral.RNN.A) and <name>/h0 [n]. The LeakyReLU slope lives in a
// separate, untrained set (Fixed), so changing it needs no new graph.
type Cell struct {
	name      string
	in, n     int
	act       activation.Activation
	params    *params.Params
	fixed     *params.Params
	slopeName string
}

var _ graph.Cell = (*Cell)(nil)

// NewCell adds the cell's parameters (zero) to p; in is d, states n.
func NewCell(p *params.Params, name string, in, states int, act activation.Activation) (*Cell, error) {
	if in <= 0 || states <= 0 {
		return nil, errors.Errorf("twornn: cell sizes must be positive, got in %d, states %d", in, states)
	}
	if err := activation.Check(act, Activations()...); err != nil {
		return nil, errors.Wrap(err, "twornn")
	}
	c := &Cell{name: name, in: in, n: states, act: act, params: p, fixed: params.New(), slopeName: name + "/slope"}
	if _, err := p.Add(c.Name("A"), states, in*states); err != nil {
		return nil, err
	}
	if _, err := p.Add(c.Name("h0"), states); err != nil {
		return nil, err
	}
	if _, err := c.fixed.Add(c.slopeName, states); err != nil {
		return nil, err
	}
	if err := c.fixed.Fill(c.slopeName, 1); err != nil {
		return nil, err
	}
	return c, nil
}

// Name returns the full parameter name of "A" or "h0".
func (c *Cell) Name(t string) string { return c.name + "/" + t }

// Fixed is the untrained parameter set holding the LeakyReLU slope
// (<name>/slope, n copies of the slope).
func (c *Cell) Fixed() *params.Params { return c.fixed }

// SetSlope sets the LeakyReLU negative slope s (1 = linear); graphs
// already built see the new value at their next run. A schedule moves it
// with a training hook.
func (c *Cell) SetSlope(s float64) error {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return errors.Errorf("twornn: slope %g is not finite", s)
	}
	return c.fixed.Fill(c.slopeName, s)
}

// Slope is the current LeakyReLU slope.
func (c *Cell) Slope() float64 { return c.fixed.Data(c.slopeName)[0] }

// Init draws A from N(0, std^2) with std = 1/sqrt(d n) (so that
// h_{t-1} A x_t keeps the scale of h for unit inputs) and h0 from N(0, 1).
func (c *Cell) Init(rng *rand.Rand) error {
	if err := c.params.InitNormal(c.Name("A"), rng, 1/math.Sqrt(float64(c.in*c.n))); err != nil {
		return err
	}
	return c.params.InitNormal(c.Name("h0"), rng, 1)
}

// InputSize implements graph.Cell.
func (c *Cell) InputSize() int { return c.in }

// StateSizes implements graph.Cell: one state, h.
func (c *Cell) StateSizes() []int { return []int{c.n} }

// Activation is the cell's nonlinearity.
func (c *Cell) Activation() activation.Activation { return c.act }

// InitialState implements graph.Cell: h0 broadcast over the batch.
func (c *Cell) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.LearnedState(c.params, c.Name("h0"), batch)}
}

// Step implements graph.Cell: A [n, d n] read as [n d, n] (row i d + c,
// column j) is the matrix of the bilinear map, so
// h_t = z(Kron(h_{t-1}, x_t) A).
func (c *Cell) Step(b *graph.Builder, x *G.Node, state []*G.Node) []*G.Node {
	d, n := c.in, c.n
	pre := b.Mul(b.Kron(state[0], x), b.Reshape(b.Param(c.params, c.Name("A")), n*d, n))
	switch c.act {
	case activation.Tanh:
		return []*G.Node{b.Tanh(pre)}
	case activation.LeakyReLU:
		// relu(z) + s (z - relu(z)), with s a row of the fixed set.
		r := b.Rectify(pre)
		neg := b.Sub(pre, r)
		return []*G.Node{b.Add(r, b.MulRow(neg, b.Param(c.fixed, c.slopeName)))}
	}
	return []*G.Node{pre}
}

// SetFromRNN copies the linear 2-RNN m's Alpha into h0 and A into A (the
// layouts agree); m must have the cell's d and n.
func (c *Cell) SetFromRNN(m spectral.RNN) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if m.In != c.in || m.States != c.n {
		return errors.Errorf("twornn: 2-RNN with d = %d, n = %d for a cell with d = %d, n = %d", m.In, m.States, c.in, c.n)
	}
	if err := c.params.Set(c.Name("h0"), m.Alpha); err != nil {
		return err
	}
	return c.params.Set(c.Name("A"), m.A)
}
