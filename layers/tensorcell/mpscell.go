package tensorcell

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// mpsEps keeps the norm of a state away from zero.
const mpsEps = 1e-12

// MPSCell is the step of a uniform matrix product state (the u-MPS of
// layers/umps) as a recurrent cell: with the core A [D, in, D] (the
// layout of umps.MPS.A) and x_t a one-hot symbol or any features,
//
//	u_t = sum_{i,c} h_{t-1}[i] x_t[c] A[i, c, :],   h_t = u_t / sqrt(|u_t|^2 + eps),
//
// the state normalised at every step so that long strings neither
// overflow nor vanish (the u-MPS's own normalisation, where the Born
// machine reads |h A(c)|^2 for the next symbol, is replaced by the
// Sequence's softmax head). Parameters: <name>/A [D, in D] (read as [D in,
// D]) and <name>/h0 [D], the learned left boundary.
type MPSCell struct {
	p        *params.Params
	name     string
	in, bond int
}

var _ graph.Cell = (*MPSCell)(nil)

// NewMPSCell adds the cell's parameters (zero) to p; bond is D.
func NewMPSCell(p *params.Params, name string, in, bond int) (*MPSCell, error) {
	if in <= 0 || bond <= 0 {
		return nil, errors.Errorf("tensorcell: mpscell sizes must be positive, got in %d, bond %d", in, bond)
	}
	c := &MPSCell{p: p, name: name, in: in, bond: bond}
	return c, addAll(p, name, tensor{"A", []int{bond, in * bond}}, tensor{"h0", []int{bond}})
}

// Name is the full parameter name of "A" or "h0".
func (c *MPSCell) Name(t string) string { return c.name + "/" + t }

// Init sets every slice A(c) to the identity plus N(0, 0.25/D) noise (the
// u-MPS's near-identity start, with noise large enough for gradients to
// tell the symbols apart) and draws h0 from N(0, 1/D).
func (c *MPSCell) Init(rng *rand.Rand) error {
	a := c.p.Data(c.Name("A"))
	std := 0.5 / math.Sqrt(float64(c.bond))
	for i := range c.bond {
		for s := range c.in {
			for j := range c.bond {
				v := std * rng.NormFloat64()
				if i == j {
					v++
				}
				a[(i*c.in+s)*c.bond+j] = v
			}
		}
	}
	return c.p.InitNormal(c.Name("h0"), rng, 1/math.Sqrt(float64(c.bond)))
}

// InputSize implements graph.Cell.
func (c *MPSCell) InputSize() int { return c.in }

// StateSizes implements graph.Cell.
func (c *MPSCell) StateSizes() []int { return []int{c.bond} }

// InitialState implements graph.Cell: h0 broadcast over the batch.
func (c *MPSCell) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.LearnedState(c.p, c.Name("h0"), batch)}
}

// Step implements graph.Cell: u = Kron(h, x) A, then the normalisation.
func (c *MPSCell) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	a := b.Reshape(b.Param(c.p, c.Name("A")), c.bond*c.in, c.bond)
	u := b.Mul(b.Kron(h[0], x), a)
	inv := b.Exp(b.Scale(b.Log(b.Shift(b.Sum(b.Square(u), 1), mpsEps)), -0.5))
	return []*G.Node{b.MulCol(u, inv)}
}
