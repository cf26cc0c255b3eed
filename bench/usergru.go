package bench

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// userGRU is a GRU written as a user would write a new cell: InitialState
// and Step as graph.Builder ops, and no kernel, so it runs on the tape
// (graph.CompileTape). It computes what rnn.GRU does (PyTorch's GRU, with
// a learned h0):
//
//	[r z n]_x = x W + b,  [r z n]_h = h U
//	r = sigmoid(r_x + r_h),  z = sigmoid(z_x + z_h)
//	n = tanh(n_x + r * (n_h + bh)),  h' = n + z * (h - n)
type userGRU struct {
	p          *params.Params
	name       string
	in, hidden int
}

var _ graph.Cell = (*userGRU)(nil)

// newUserGRU adds the cell's parameters to p: <name>/W [in, 3H], /U [H,
// 3H], /b [3H], /bh [H], /h0 [H].
func newUserGRU(p *params.Params, name string, in, hidden int) (*userGRU, error) {
	if in <= 0 || hidden <= 0 {
		return nil, errors.Errorf("bench: GRU sizes must be positive, got in %d, hidden %d", in, hidden)
	}
	c := &userGRU{p: p, name: name, in: in, hidden: hidden}
	h := hidden
	for _, s := range []struct {
		n     string
		shape []int
	}{{"W", []int{in, 3 * h}}, {"U", []int{h, 3 * h}}, {"b", []int{3 * h}}, {"bh", []int{h}}, {"h0", []int{h}}} {
		if _, err := p.Add(name+"/"+s.n, s.shape...); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// init draws W, U and the biases from U(-1/sqrt(H), 1/sqrt(H)), as
// rnn.GRU.Init does; h0 stays 0.
func (c *userGRU) init(rng *rand.Rand) error {
	a := 1 / math.Sqrt(float64(c.hidden))
	for _, n := range []string{"W", "U", "b", "bh"} {
		if err := c.p.InitUniform(c.name+"/"+n, rng, a); err != nil {
			return err
		}
	}
	return nil
}

func (c *userGRU) InputSize() int    { return c.in }
func (c *userGRU) StateSizes() []int { return []int{c.hidden} }

func (c *userGRU) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.LearnedState(c.p, c.name+"/h0", batch)}
}

func (c *userGRU) Step(b *graph.Builder, x *G.Node, s []*G.Node) []*G.Node {
	h, w := c.hidden, func(n string) *G.Node { return b.Param(c.p, c.name+"/"+n) }
	zx := b.AddRow(b.Mul(x, w("W")), w("b"))
	zh := b.Mul(s[0], w("U"))
	r := b.Sigmoid(b.Add(b.Cols(zx, 0, h), b.Cols(zh, 0, h)))
	z := b.Sigmoid(b.Add(b.Cols(zx, h, 2*h), b.Cols(zh, h, 2*h)))
	n := b.Tanh(b.Add(b.Cols(zx, 2*h, 3*h), b.Hadamard(r, b.AddRow(b.Cols(zh, 2*h, 3*h), w("bh")))))
	return []*G.Node{b.Add(n, b.Hadamard(z, b.Sub(s[0], n)))}
}
