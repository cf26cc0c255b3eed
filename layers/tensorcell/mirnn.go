package tensorcell

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// MIRNN is the tanh RNN with multiplicative integration in its general
// form (Wu et al., "On multiplicative integration with recurrent neural
// networks", NeurIPS 2016, Eq. 3):
//
//	h_t = tanh(alpha * (x_t W) * (h_{t-1} U) + beta1 * (h_{t-1} U) + beta2 * (x_t W) + b),
//
// * elementwise, with parameters <name>/W [in, H], <name>/U [H, H],
// <name>/alpha, <name>/beta1, <name>/beta2, <name>/b and <name>/h0 [H].
// alpha = 0 gives back the additive RNN (with beta1 = beta2 = 1).
type MIRNN struct {
	p          *params.Params
	name       string
	in, hidden int
}

var _ graph.Cell = (*MIRNN)(nil)

// NewMIRNN adds the cell's parameters (zero) to p.
func NewMIRNN(p *params.Params, name string, in, hidden int) (*MIRNN, error) {
	if in <= 0 || hidden <= 0 {
		return nil, errors.Errorf("tensorcell: mirnn sizes must be positive, got in %d, hidden %d", in, hidden)
	}
	c := &MIRNN{p: p, name: name, in: in, hidden: hidden}
	h := []int{hidden}
	return c, addAll(p, name, tensor{"W", []int{in, hidden}}, tensor{"U", []int{hidden, hidden}},
		tensor{"alpha", h}, tensor{"beta1", h}, tensor{"beta2", h}, tensor{"b", h}, tensor{"h0", h})
}

// Name is the full parameter name of a tensor ("W", "U", "alpha", ...).
func (c *MIRNN) Name(t string) string { return c.name + "/" + t }

// Init draws W and U from U(-1/sqrt(H), 1/sqrt(H)) (PyTorch's RNN
// default), sets alpha to 1 and beta1, beta2 to 0.5, and zeroes b and h0.
// The gate values are this package's choice: the paper tunes them per
// task.
func (c *MIRNN) Init(rng *rand.Rand) error {
	a := 1 / math.Sqrt(float64(c.hidden))
	for _, n := range []string{"W", "U"} {
		if err := c.p.InitUniform(c.Name(n), rng, a); err != nil {
			return err
		}
	}
	for n, v := range map[string]float64{"alpha": 1, "beta1": 0.5, "beta2": 0.5, "b": 0, "h0": 0} {
		if err := c.p.Fill(c.Name(n), v); err != nil {
			return err
		}
	}
	return nil
}

// InputSize implements graph.Cell.
func (c *MIRNN) InputSize() int { return c.in }

// StateSizes implements graph.Cell.
func (c *MIRNN) StateSizes() []int { return []int{c.hidden} }

// InitialState implements graph.Cell: h0 broadcast over the batch.
func (c *MIRNN) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.LearnedState(c.p, c.Name("h0"), batch)}
}

// Step implements graph.Cell. The x parts (x W and its gated copy) are
// the tape's input projection.
func (c *MIRNN) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	wx := b.Mul(x, b.Param(c.p, c.Name("W")))
	uh := b.Mul(h[0], b.Param(c.p, c.Name("U")))
	gate := b.AddRow(b.MulRow(wx, b.Param(c.p, c.Name("alpha"))), b.Param(c.p, c.Name("beta1")))
	pre := b.Add(b.Hadamard(gate, uh), b.AddRow(b.MulRow(wx, b.Param(c.p, c.Name("beta2"))), b.Param(c.p, c.Name("b"))))
	return []*G.Node{b.Tanh(pre)}
}
