package rnn

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// GRU is the gated recurrent unit in PyTorch's convention
//
//	[r z n]_x = x_t W + bias,  [r z n]_h = h_{t-1} U
//	r = sigmoid(r_x + r_h),  z = sigmoid(z_x + z_h)
//	n = tanh(n_x + r * (n_h + bh))
//	h_t = (1 - z) * n + z * h_{t-1}
//
// with a learnable initial h0. Parameters: <name>/W [in, 3H], <name>/U
// [H, 3H], <name>/b [3H], <name>/bh [H] (the hidden bias of the candidate,
// inside the reset gate) and <name>/h0 [H]; the gate blocks of W, U and b
// are in the order r, z, n.
type GRU struct {
	name       string
	in, hidden int
	params     *params.Params
}

var _ graph.Cell = (*GRU)(nil)

// NewGRU adds a GRU cell's parameters to p (zero-filled; see Init).
func NewGRU(p *params.Params, name string, in, hidden int) (*GRU, error) {
	if in <= 0 || hidden <= 0 {
		return nil, errors.Errorf("rnn: GRU sizes must be positive, got in %d, hidden %d", in, hidden)
	}
	c := &GRU{name: name, in: in, hidden: hidden, params: p}
	h := hidden
	if err := addTensors(p, name, []tensorSpec{{"W", []int{in, 3 * h}}, {"U", []int{h, 3 * h}}, {"b", []int{3 * h}}, {"bh", []int{h}}, {"h0", []int{h}}}); err != nil {
		return nil, err
	}
	return c, nil
}

// Name returns the full parameter name of one of the cell's tensors.
func (c *GRU) Name(tensor string) string { return c.name + "/" + tensor }

// Init draws W, U and the biases from U(-1/sqrt(H), 1/sqrt(H)) (PyTorch's
// default) and sets h0 to 0.
func (c *GRU) Init(rng *rand.Rand) error {
	a := 1 / math.Sqrt(float64(c.hidden))
	for _, n := range []string{"W", "U", "b", "bh"} {
		if err := c.params.InitUniform(c.Name(n), rng, a); err != nil {
			return err
		}
	}
	return c.params.Fill(c.Name("h0"), 0)
}

// InputSize implements graph.Cell.
func (c *GRU) InputSize() int { return c.in }

// StateSizes implements graph.Cell.
func (c *GRU) StateSizes() []int { return []int{c.hidden} }

// InitialState implements graph.Cell: h0 broadcast over the batch.
func (c *GRU) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.LearnedState(c.params, c.Name("h0"), batch)}
}

// Step implements graph.Cell.
func (c *GRU) Step(b *graph.Builder, x *G.Node, state []*G.Node) []*G.Node {
	h := c.hidden
	zx := b.AddRow(b.Mul(x, b.Param(c.params, c.Name("W"))), b.Param(c.params, c.Name("b")))
	zh := b.Mul(state[0], b.Param(c.params, c.Name("U")))
	r := b.Sigmoid(b.Add(b.Cols(zx, 0, h), b.Cols(zh, 0, h)))
	z := b.Sigmoid(b.Add(b.Cols(zx, h, 2*h), b.Cols(zh, h, 2*h)))
	nh := b.AddRow(b.Cols(zh, 2*h, 3*h), b.Param(c.params, c.Name("bh")))
	n := b.Tanh(b.Add(b.Cols(zx, 2*h, 3*h), b.Hadamard(r, nh)))
	// (1 - z) * n + z * h = n + z * (h - n)
	return []*G.Node{b.Add(n, b.Hadamard(z, b.Sub(state[0], n)))}
}
