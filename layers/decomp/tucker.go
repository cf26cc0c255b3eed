package decomp

import (
	"fmt"
	"math/rand/v2"
	"slices"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// Tucker is a Tucker decomposition with ranks r_1, ..., r_N, r_out,
//
//	W[i_1, ..., i_N, j] = sum G[s_1, ..., s_N, q] U_1[i_1, s_1] ... U_N[i_N, s_N] V[q, j],
//
// with factors <name>/U1 ... <name>/UN [d_k, r_k], the core <name>/G
// [r_1, ..., r_N, r_out] and <name>/V [r_out, out]. Apply projects each
// input (x_k U_k), takes their row-wise Kronecker product and applies the
// core and V: r_1 ... r_N r_out multiplications per row for the core.
type Tucker struct {
	factors
	ranks []int // r_1, ..., r_N, r_out
}

var _ Weight = (*Tucker)(nil)

// NewTucker adds the factors of a Tucker decomposition of a tensor
// [modes..., out] with ranks (one per input mode, then the output's) to p
// under name (zero; see Init).
func NewTucker(p *params.Params, name string, modes []int, out int, ranks []int) (*Tucker, error) {
	if err := check("Tucker", modes, out, ranks, len(modes)+1); err != nil {
		return nil, err
	}
	t := &Tucker{factors: factors{p: p, name: name, modes: slices.Clone(modes), out: out}, ranks: slices.Clone(ranks)}
	for k, d := range modes {
		if err := t.add(tuckerFactor(k), d, ranks[k]); err != nil {
			return nil, err
		}
	}
	if err := t.add("G", ranks...); err != nil {
		return nil, err
	}
	return t, t.add("V", ranks[len(modes)], out)
}

func tuckerFactor(k int) string { return fmt.Sprintf("U%d", k+1) }

// Ranks lists r_1, ..., r_N, r_out.
func (t *Tucker) Ranks() []int { return slices.Clone(t.ranks) }

// Init implements Weight: an entry of W sums r_1 ... r_out products of
// N+2 factors.
func (t *Tucker) Init(rng *rand.Rand, std float64) error {
	return initAll(t.p, t.names, rng, factorStd(std, prod(t.ranks), len(t.modes)+2))
}

// Apply implements Weight: Kron(xs[0] U1, ..., xs[N-1] UN) G V, with G
// read as [r_1 ... r_N, r_out].
func (t *Tucker) Apply(b *graph.Builder, xs ...*G.Node) *G.Node {
	if !checkInputs(b, "Tucker", t.modes, xs) {
		return nil
	}
	var z *G.Node
	for k, x := range xs {
		f := b.Mul(x, b.Param(t.p, t.Name(tuckerFactor(k))))
		if z == nil {
			z = f
		} else {
			z = b.Kron(z, f)
		}
	}
	n := len(t.modes)
	core := b.Reshape(b.Param(t.p, t.Name("G")), prod(t.ranks[:n]), t.ranks[n])
	return b.Mul(b.Mul(z, core), b.Param(t.p, t.Name("V")))
}

// Full implements Weight.
func (t *Tucker) Full() []float64 {
	n := len(t.modes)
	rin, rout := prod(t.ranks[:n]), t.ranks[n]
	g, v := t.data("G"), t.data("V")
	m := prod(t.modes)
	w := make([]float64, m*t.out)
	idx, sdx := make([]int, n), make([]int, n)
	for i := range m {
		unravel(i, t.modes, idx)
		for s := range rin {
			unravel(s, t.ranks[:n], sdx)
			u := 1.0
			for k := range n {
				u *= t.data(tuckerFactor(k))[idx[k]*t.ranks[k]+sdx[k]]
			}
			for q := range rout {
				for j := range t.out {
					w[i*t.out+j] += u * g[s*rout+q] * v[q*t.out+j]
				}
			}
		}
	}
	return w
}
