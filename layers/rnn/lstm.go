package rnn

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// LSTM is the long short-term memory cell (without peepholes)
//
//	[i f g o] = x_t W + h_{t-1} U + bias
//	c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(g)
//	h_t = sigmoid(o) * tanh(c_t)
//
// with learnable initial h0 and c0. Parameters: <name>/W [in, 4H],
// <name>/U [H, 4H], <name>/b [4H], <name>/h0 [H], <name>/c0 [H]; the gate
// blocks of W, U and b are in the order i, f, g, o.
type LSTM struct {
	name       string
	in, hidden int
	params     *params.Params
}

var _ graph.Cell = (*LSTM)(nil)

// NewLSTM adds an LSTM cell's parameters to p (zero-filled; see Init).
func NewLSTM(p *params.Params, name string, in, hidden int) (*LSTM, error) {
	if in <= 0 || hidden <= 0 {
		return nil, errors.Errorf("rnn: LSTM sizes must be positive, got in %d, hidden %d", in, hidden)
	}
	c := &LSTM{name: name, in: in, hidden: hidden, params: p}
	h := hidden
	if err := addTensors(p, name, []tensorSpec{{"W", []int{in, 4 * h}}, {"U", []int{h, 4 * h}}, {"b", []int{4 * h}}, {"h0", []int{h}}, {"c0", []int{h}}}); err != nil {
		return nil, err
	}
	return c, nil
}

// Name returns the full parameter name of one of the cell's tensors.
func (c *LSTM) Name(tensor string) string { return c.name + "/" + tensor }

// Init draws W and U from U(-1/sqrt(H), 1/sqrt(H)) (PyTorch's default),
// sets the forget-gate bias to 1 and the other biases, h0 and c0 to 0.
func (c *LSTM) Init(rng *rand.Rand) error {
	a := 1 / math.Sqrt(float64(c.hidden))
	if err := c.params.InitUniform(c.Name("W"), rng, a); err != nil {
		return err
	}
	if err := c.params.InitUniform(c.Name("U"), rng, a); err != nil {
		return err
	}
	bias := c.params.Data(c.Name("b"))
	for i := range bias {
		bias[i] = 0
		if i >= c.hidden && i < 2*c.hidden {
			bias[i] = 1
		}
	}
	if err := c.params.Fill(c.Name("h0"), 0); err != nil {
		return err
	}
	return c.params.Fill(c.Name("c0"), 0)
}

// InputSize implements graph.Cell.
func (c *LSTM) InputSize() int { return c.in }

// StateSizes implements graph.Cell: h then c.
func (c *LSTM) StateSizes() []int { return []int{c.hidden, c.hidden} }

// InitialState implements graph.Cell.
func (c *LSTM) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{
		b.LearnedState(c.params, c.Name("h0"), batch),
		b.LearnedState(c.params, c.Name("c0"), batch),
	}
}

// Step implements graph.Cell.
func (c *LSTM) Step(b *graph.Builder, x *G.Node, state []*G.Node) []*G.Node {
	h := c.hidden
	w := b.Param(c.params, c.Name("W"))
	u := b.Param(c.params, c.Name("U"))
	bias := b.Param(c.params, c.Name("b"))
	z := b.AddRow(b.Add(b.Mul(x, w), b.Mul(state[0], u)), bias)
	i := b.Sigmoid(b.Cols(z, 0, h))
	f := b.Sigmoid(b.Cols(z, h, 2*h))
	g := b.Tanh(b.Cols(z, 2*h, 3*h))
	o := b.Sigmoid(b.Cols(z, 3*h, 4*h))
	cNext := b.Add(b.Hadamard(f, state[1]), b.Hadamard(i, g))
	hNext := b.Hadamard(o, b.Tanh(cNext))
	return []*G.Node{hNext, cNext}
}

// tensorSpec names one tensor of a cell and its shape.
type tensorSpec struct {
	name  string
	shape []int
}

// addTensors adds a cell's tensors to p as <cell>/<name>, zero-filled.
func addTensors(p *params.Params, cell string, specs []tensorSpec) error {
	for _, s := range specs {
		if _, err := p.Add(cell+"/"+s.name, s.shape...); err != nil {
			return err
		}
	}
	return nil
}
