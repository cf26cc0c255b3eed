package decomp

import (
	"fmt"
	"math/rand/v2"
	"slices"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// TT is a tensor-train (matrix product) decomposition with ranks r_1,
// ..., r_N,
//
//	W[i_1, ..., i_N, j] = C_1[i_1, :] C_2[:, i_2, :] ... C_N[:, i_N, :] O[:, j],
//
// with cores <name>/C1 [d_1, r_1], <name>/Ck [r_{k-1}, d_k, r_k] and
// <name>/O [r_N, out]. Apply carries a [batch, r] state through the cores
// (an Einsum per mode after the first): r_{k-1} d_k r_k multiplications
// per row for core k.
type TT struct {
	factors
	ranks []int
}

var _ Weight = (*TT)(nil)

// NewTT adds the cores of a tensor-train decomposition of a tensor
// [modes..., out] with ranks r_1, ..., r_N (one per input mode) to p under
// name (zero; see Init).
func NewTT(p *params.Params, name string, modes []int, out int, ranks []int) (*TT, error) {
	if err := check("TT", modes, out, ranks, len(modes)); err != nil {
		return nil, err
	}
	t := &TT{factors: factors{p: p, name: name, modes: slices.Clone(modes), out: out}, ranks: slices.Clone(ranks)}
	for k, d := range modes {
		shape := []int{d, ranks[0]}
		if k > 0 {
			shape = []int{ranks[k-1], d, ranks[k]}
		}
		if err := t.add(core(k), shape...); err != nil {
			return nil, err
		}
	}
	return t, t.add("O", ranks[len(ranks)-1], out)
}

func core(k int) string { return fmt.Sprintf("C%d", k+1) }

// Ranks lists r_1, ..., r_N.
func (t *TT) Ranks() []int { return slices.Clone(t.ranks) }

// Init implements Weight: an entry of W sums r_1 ... r_N products of N+1
// cores' entries.
func (t *TT) Init(rng *rand.Rand, std float64) error {
	return initAll(t.p, t.names, rng, factorStd(std, prod(t.ranks), len(t.modes)+1))
}

// Apply implements Weight: z = xs[0] C1, then z = einsum(br,bi,ris->bs;
// z, xs[k], Ck) for each further mode, and z O.
func (t *TT) Apply(b *graph.Builder, xs ...*G.Node) *G.Node {
	if !checkInputs(b, "TT", t.modes, xs) {
		return nil
	}
	z := b.Mul(xs[0], b.Param(t.p, t.Name(core(0))))
	for k := 1; k < len(xs); k++ {
		z = b.Einsum("br,bi,ris->bs", z, xs[k], b.Param(t.p, t.Name(core(k))))
	}
	return b.Mul(z, b.Param(t.p, t.Name("O")))
}

// Full implements Weight.
func (t *TT) Full() []float64 {
	n := len(t.modes)
	m := prod(t.modes)
	w := make([]float64, m*t.out)
	idx := make([]int, n)
	o := t.data("O")
	for i := range m {
		unravel(i, t.modes, idx)
		row := slices.Clone(t.data(core(0))[idx[0]*t.ranks[0] : (idx[0]+1)*t.ranks[0]])
		for k := 1; k < n; k++ {
			c, rp, d, r := t.data(core(k)), t.ranks[k-1], t.modes[k], t.ranks[k]
			next := make([]float64, r)
			for a := range rp {
				for s := range r {
					next[s] += row[a] * c[(a*d+idx[k])*r+s]
				}
			}
			row = next
		}
		for a, v := range row {
			for j := range t.out {
				w[i*t.out+j] += v * o[a*t.out+j]
			}
		}
	}
	return w
}
