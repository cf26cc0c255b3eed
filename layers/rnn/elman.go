package rnn

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
)

// ElmanActivations lists the nonlinearities an Elman cell supports.
func ElmanActivations() []activation.Activation {
	return []activation.Activation{activation.Tanh, activation.SymSigmoid, activation.Identity}
}

// apply applies a supported activation to a node.
func apply(b *graph.Builder, a activation.Activation, z *G.Node) *G.Node {
	switch a {
	case activation.Tanh:
		return b.Tanh(z)
	case activation.SymSigmoid:
		return b.Tanh(b.Scale(z, 0.5))
	}
	return z
}

// Elman is the simple recurrent cell
//
//	h_t = f(x_t W + h_{t-1} U + bias),  h_0 learnable,
//
// with parameters <name>/W [in, hidden], <name>/U [hidden, hidden],
// <name>/b [hidden] and <name>/h0 [hidden].
type Elman struct {
	name       string
	in, hidden int
	act        activation.Activation
	params     *graph.Params
}

var _ graph.Cell = (*Elman)(nil)

// NewElman adds an Elman cell's parameters to p (zero-filled; see Init).
func NewElman(p *graph.Params, name string, in, hidden int, act activation.Activation) (*Elman, error) {
	if err := activation.Check(act, ElmanActivations()...); err != nil {
		return nil, errors.Wrap(err, "rnn: Elman")
	}
	if in <= 0 || hidden <= 0 {
		return nil, errors.Errorf("rnn: Elman sizes must be positive, got in %d, hidden %d", in, hidden)
	}
	c := &Elman{name: name, in: in, hidden: hidden, act: act, params: p}
	for _, s := range []struct {
		n     string
		shape []int
	}{{"W", []int{in, hidden}}, {"U", []int{hidden, hidden}}, {"b", []int{hidden}}, {"h0", []int{hidden}}} {
		if _, err := p.Add(c.Name(s.n), s.shape...); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Name returns the full parameter name of one of the cell's tensors
// ("W", "U", "b", "h0").
func (c *Elman) Name(tensor string) string { return c.name + "/" + tensor }

// Init draws W from U(-1/sqrt(in), 1/sqrt(in)) and U from
// U(-1/sqrt(hidden), 1/sqrt(hidden)) (PyTorch's default), and zeroes b
// and h0.
func (c *Elman) Init(rng *rand.Rand) error {
	if err := c.params.InitUniform(c.Name("W"), rng, 1/math.Sqrt(float64(c.in))); err != nil {
		return err
	}
	if err := c.params.InitUniform(c.Name("U"), rng, 1/math.Sqrt(float64(c.hidden))); err != nil {
		return err
	}
	if err := c.params.Fill(c.Name("b"), 0); err != nil {
		return err
	}
	return c.params.Fill(c.Name("h0"), 0)
}

// InputSize implements graph.Cell.
func (c *Elman) InputSize() int { return c.in }

// StateSizes implements graph.Cell: one state, h.
func (c *Elman) StateSizes() []int { return []int{c.hidden} }

// Activation is the cell's nonlinearity.
func (c *Elman) Activation() activation.Activation { return c.act }

// InitialState implements graph.Cell: h0 broadcast over the batch.
func (c *Elman) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.LearnedState(c.params, c.Name("h0"), batch)}
}

// Step implements graph.Cell.
func (c *Elman) Step(b *graph.Builder, x *G.Node, state []*G.Node) []*G.Node {
	w := b.Param(c.params, c.Name("W"))
	u := b.Param(c.params, c.Name("U"))
	bias := b.Param(c.params, c.Name("b"))
	z := b.AddRow(b.Add(b.Mul(x, w), b.Mul(state[0], u)), bias)
	return []*G.Node{apply(b, c.act, z)}
}
