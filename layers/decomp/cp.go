package decomp

import (
	"fmt"
	"math/rand/v2"
	"slices"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// CP is a rank-R CP (CANDECOMP/PARAFAC) decomposition,
//
//	W[i_1, ..., i_N, j] = sum_r F_1[i_1, r] ... F_N[i_N, r] O[r, j],
//
// with factors <name>/F1 ... <name>/FN [d_k, R] and <name>/O [R, out]:
// (N + out/sum d) R parameters instead of d_1 ... d_N out. Apply costs
// R (d_1 + ... + d_N + out) multiplications per row.
type CP struct {
	p     *params.Params
	name  string
	modes []int
	out   int
	rank  int
}

var _ Weight = (*CP)(nil)

// NewCP adds the factors of a rank-R CP decomposition of a tensor
// [modes..., out] to p under name (zero; see Init).
func NewCP(p *params.Params, name string, modes []int, out, rank int) (*CP, error) {
	if err := check("CP", modes, out, []int{rank}, 1); err != nil {
		return nil, err
	}
	c := &CP{p: p, name: name, modes: slices.Clone(modes), out: out, rank: rank}
	for k, d := range modes {
		if _, err := p.Add(c.factor(k), d, rank); err != nil {
			return nil, err
		}
	}
	if _, err := p.Add(c.Name("O"), rank, out); err != nil {
		return nil, err
	}
	return c, nil
}

// Name is the full parameter name of a factor ("F1", ..., "O").
func (c *CP) Name(f string) string { return c.name + "/" + f }

func (c *CP) factor(k int) string { return c.Name(fmt.Sprintf("F%d", k+1)) }

// Modes implements Weight.
func (c *CP) Modes() []int { return slices.Clone(c.modes) }

// Out implements Weight.
func (c *CP) Out() int { return c.out }

// Rank is R.
func (c *CP) Rank() int { return c.rank }

// Names implements Weight: F1, ..., FN, O.
func (c *CP) Names() []string {
	var n []string
	for k := range c.modes {
		n = append(n, c.factor(k))
	}
	return append(n, c.Name("O"))
}

// Init implements Weight: an entry of W sums R products of N+1 factors.
func (c *CP) Init(rng *rand.Rand, std float64) error {
	return initAll(c.p, c.Names(), rng, factorStd(std, c.rank, len(c.modes)+1))
}

// Apply implements Weight: (xs[0] F1 * ... * xs[N-1] FN) O, the products
// by rows elementwise.
func (c *CP) Apply(b *graph.Builder, xs ...*G.Node) *G.Node {
	if !checkInputs(b, "CP", c.modes, xs) {
		return nil
	}
	var z *G.Node
	for k, x := range xs {
		f := b.Mul(x, b.Param(c.p, c.factor(k)))
		if z == nil {
			z = f
		} else {
			z = b.Hadamard(z, f)
		}
	}
	return b.Mul(z, b.Param(c.p, c.Name("O")))
}

// Full implements Weight.
func (c *CP) Full() []float64 {
	n := prod(c.modes)
	w := make([]float64, n*c.out)
	o := c.p.Data(c.Name("O"))
	idx := make([]int, len(c.modes))
	for i := range n {
		unravel(i, c.modes, idx)
		for r := range c.rank {
			v := 1.0
			for k, ik := range idx {
				v *= c.p.Data(c.factor(k))[ik*c.rank+r]
			}
			for j := range c.out {
				w[i*c.out+j] += v * o[r*c.out+j]
			}
		}
	}
	return w
}

// unravel writes the row-major multi-index of flat index i into idx.
func unravel(i int, dims, idx []int) {
	for k := len(dims) - 1; k >= 0; k-- {
		idx[k] = i % dims[k]
		i /= dims[k]
	}
}
