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
// (d_1 + ... + d_N + out) R parameters instead of d_1 ... d_N out. Apply
// costs R (d_1 + ... + d_N + out) multiplications per row.
type CP struct {
	factors
	rank int
}

var _ Weight = (*CP)(nil)

// NewCP adds the factors of a rank-R CP decomposition of a tensor
// [modes..., out] to p under name (zero; see Init).
func NewCP(p *params.Params, name string, modes []int, out, rank int) (*CP, error) {
	if err := check("CP", modes, out, []int{rank}, 1); err != nil {
		return nil, err
	}
	c := &CP{factors: factors{p: p, name: name, modes: slices.Clone(modes), out: out}, rank: rank}
	for k, d := range modes {
		if err := c.add(factor(k), d, rank); err != nil {
			return nil, err
		}
	}
	return c, c.add("O", rank, out)
}

func factor(k int) string { return fmt.Sprintf("F%d", k+1) }

// Rank is R.
func (c *CP) Rank() int { return c.rank }

// Init implements Weight: an entry of W sums R products of N+1 factors.
func (c *CP) Init(rng *rand.Rand, std float64) error {
	return initAll(c.p, c.names, rng, factorStd(std, c.rank, len(c.modes)+1))
}

// Apply implements Weight: (xs[0] F1 * ... * xs[N-1] FN) O, the products
// by rows elementwise.
func (c *CP) Apply(b *graph.Builder, xs ...*G.Node) *G.Node {
	if !checkInputs(b, "CP", c.modes, xs) {
		return nil
	}
	var z *G.Node
	for k, x := range xs {
		f := b.Mul(x, b.Param(c.p, c.Name(factor(k))))
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
	o := c.data("O")
	idx := make([]int, len(c.modes))
	for i := range n {
		unravel(i, c.modes, idx)
		for r := range c.rank {
			v := 1.0
			for k, ik := range idx {
				v *= c.data(factor(k))[ik*c.rank+r]
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
