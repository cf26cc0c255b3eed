package umps

import (
	"math/rand/v2"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/params"
)

// Grow returns a u-MPS of bond dimension bond that holds m in the top-left
// block of its core and boundary vectors, every other entry drawn from
// N(0, sd^2):
//
//	A(c) = [ A_m(c)  E12 ]    alpha = [ alpha_m ]    omega = [ omega_m ]
//	       [ E21     E22 ],           [ e_a     ],           [ e_o     ].
//
// With sd = 0 the amplitude f(s) of every string is m's, so are Z_n, Z_*
// and every probability; a small sd moves them by O(sd). Training a model
// grown from a trained smaller one starts a large bond dimension where the
// small one ended rather than at the uniform model, which a large D leaves
// slowly (docs/umps.md, "Growing at the top of the grid").
func Grow(m *MPS, bond int, sd float64, rng *rand.Rand) (*MPS, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if bond < m.Bond {
		return nil, errors.Errorf("umps: grow to bond dimension %d, below the model's %d", bond, m.Bond)
	}
	if !(sd >= 0) || sd > 1 {
		return nil, errors.Errorf("umps: grow noise %v, want in [0, 1]", sd)
	}
	if rng == nil {
		return nil, errors.New("umps: nil random source")
	}
	D, d := m.Bond, m.Symbols
	g := &MPS{Bond: bond, Symbols: d,
		A: make([]float64, bond*d*bond), Alpha: make([]float64, bond), Omega: make([]float64, bond)}
	for i := 0; i < bond; i++ {
		for c := 0; c < d; c++ {
			row := g.A[(i*d+c)*bond : (i*d+c+1)*bond]
			for j := range row {
				if i < D && j < D {
					row[j] = m.A[(i*d+c)*D+j]
				} else {
					row[j] = sd * rng.NormFloat64()
				}
			}
		}
	}
	for _, v := range []struct{ to, from []float64 }{{g.Alpha, m.Alpha}, {g.Omega, m.Omega}} {
		copy(v.to, v.from)
		for i := D; i < bond; i++ {
			v.to[i] = sd * rng.NormFloat64()
		}
	}
	return g, g.Validate()
}

// GrowParams returns the parameter set of the model p stands for
// (Contracted) grown to bond dimension bond by Grow. When p has
// ParamGamma (a P_*-trained core), so does the result, with its
// contraction bound set to lambda of the grown core, so that the
// contraction leaves that core as it is and the grown parameters stand
// for the same distribution up to the noise; when noise pushes lambda to
// the bound's cap, the core is scaled to the cap (a change of O(sd)).
func GrowParams(p *params.Params, bond int, sd float64, rng *rand.Rand) (*params.Params, error) {
	m, err := Contracted(p)
	if err != nil {
		return nil, err
	}
	g, err := Grow(m, bond, sd, rng)
	if err != nil {
		return nil, err
	}
	out, err := NewParamsFrom(g)
	if err != nil || !p.Has(ParamGamma) {
		return out, err
	}
	lam, _, err := coreBound(g.A, g.Bond, g.Symbols)
	if err != nil {
		return nil, err
	}
	const capBound = maxBound * (1 - 1e-9)
	return out, AddGamma(out, min(lam, capBound))
}
