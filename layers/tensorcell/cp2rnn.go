package tensorcell

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/decomp"
	"github.com/rtnlab/rtn/params"
)

// CP2RNN is the second-order RNN
//
//	h_t = z(A(h_{t-1}, x_t) + b),   A(h, x)_j = sum_{i,c} A[i, c, j] h_i x_c,
//
// whose transition tensor A [H, in, H] is a rank-R CP decomposition
// (decomp.CP: <name>/A/F1 [H, R], <name>/A/F2 [in, R], <name>/A/O [R, H]),
// so A(h, x) = ((h F1) * (x F2)) O: R (2H + in) multiplications per row
// instead of H^2 in. z is tanh or the identity (the linear 2-RNN of the
// spectral paper). Its other parameters are <name>/b and <name>/h0 [H]
// (the learned initial state).
type CP2RNN struct {
	p          *params.Params
	name       string
	in, hidden int
	act        activation.Activation
	A          *decomp.CP
}

var _ graph.Cell = (*CP2RNN)(nil)

// NewCP2RNN adds the cell's parameters (zero) to p.
func NewCP2RNN(p *params.Params, name string, in, hidden, rank int, act activation.Activation) (*CP2RNN, error) {
	if in <= 0 || hidden <= 0 {
		return nil, errors.Errorf("tensorcell: cp2rnn sizes must be positive, got in %d, hidden %d", in, hidden)
	}
	if err := activation.Check(act, activation.Tanh, activation.Identity); err != nil {
		return nil, errors.Wrap(err, "tensorcell: cp2rnn")
	}
	a, err := decomp.NewCP(p, name+"/A", []int{hidden, in}, hidden, rank)
	if err != nil {
		return nil, err
	}
	c := &CP2RNN{p: p, name: name, in: in, hidden: hidden, act: act, A: a}
	return c, addAll(p, name, tensor{"b", []int{hidden}}, tensor{"h0", []int{hidden}})
}

// Name is the full parameter name of "b" or "h0".
func (c *CP2RNN) Name(t string) string { return c.name + "/" + t }

// Init draws A so that its entries have standard deviation 1/sqrt(H in)
// (the full 2-RNN's, twornn.Cell.Init), h0 from N(0, 1) and zeroes b.
func (c *CP2RNN) Init(rng *rand.Rand) error {
	if err := c.A.Init(rng, 1/math.Sqrt(float64(c.hidden*c.in))); err != nil {
		return err
	}
	if err := c.p.InitNormal(c.Name("h0"), rng, 1); err != nil {
		return err
	}
	return c.p.Fill(c.Name("b"), 0)
}

// InputSize implements graph.Cell.
func (c *CP2RNN) InputSize() int { return c.in }

// StateSizes implements graph.Cell.
func (c *CP2RNN) StateSizes() []int { return []int{c.hidden} }

// InitialState implements graph.Cell: h0 broadcast over the batch.
func (c *CP2RNN) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.LearnedState(c.p, c.Name("h0"), batch)}
}

// Step implements graph.Cell.
func (c *CP2RNN) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	pre := b.AddRow(c.A.Apply(b, h[0], x), b.Param(c.p, c.Name("b")))
	if c.act == activation.Identity {
		return []*G.Node{pre}
	}
	return []*G.Node{b.Tanh(pre)}
}
