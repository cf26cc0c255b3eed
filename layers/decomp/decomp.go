package decomp

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// Weight is a decomposed weight tensor W [d_1, ..., d_N, out] with N input
// modes and one output mode, held as factors in a params.Params set.
type Weight interface {
	// Modes lists d_1, ..., d_N.
	Modes() []int
	// Out is the output width.
	Out() int
	// Names lists the parameter names of the factors.
	Names() []string
	// Init draws the factors i.i.d. normal with the standard deviation
	// that gives the full tensor's entries variance std^2, the variance a
	// full weight initialised N(0, std^2) would have.
	Init(rng *rand.Rand, std float64) error
	// Apply contracts W with the rows of xs ([batch, d_k] each) without
	// forming W: y[b, j] = sum W[i_1, ..., i_N, j] xs[0][b, i_1] ...
	// xs[N-1][b, i_N], [batch, out].
	Apply(b *graph.Builder, xs ...*G.Node) *G.Node
	// Full returns W row-major, [d_1 ... d_N, out], for tests and export.
	Full() []float64
}

// factors is what the decompositions share: the set their factors live
// in, their name prefix, the input modes, the output width and the
// factors' names in order.
type factors struct {
	p     *params.Params
	name  string
	modes []int
	out   int
	names []string
}

// Name is the full parameter name of factor f ("F1", "C2", "G", ...).
func (f *factors) Name(t string) string { return f.name + "/" + t }

// Modes implements Weight.
func (f *factors) Modes() []int { return slices.Clone(f.modes) }

// Out implements Weight.
func (f *factors) Out() int { return f.out }

// Names implements Weight.
func (f *factors) Names() []string { return slices.Clone(f.names) }

// add adds the factor t of the given shape (zero) and records its name.
func (f *factors) add(t string, shape ...int) error {
	if _, err := f.p.Add(f.Name(t), shape...); err != nil {
		return err
	}
	f.names = append(f.names, f.Name(t))
	return nil
}

// data is factor t's values.
func (f *factors) data(t string) []float64 { return f.p.Data(f.Name(t)) }

// check validates modes, out and ranks.
func check(kind string, modes []int, out int, ranks []int, nRanks int) error {
	if len(modes) == 0 {
		return errors.Errorf("decomp: %s needs at least one input mode", kind)
	}
	for _, d := range append(slices.Clone(modes), out) {
		if d <= 0 {
			return errors.Errorf("decomp: %s mode sizes must be positive, got modes %v, out %d", kind, modes, out)
		}
	}
	if len(ranks) != nRanks {
		return errors.Errorf("decomp: %s with %d input modes needs %d ranks, got %v", kind, len(modes), nRanks, ranks)
	}
	for _, r := range ranks {
		if r <= 0 {
			return errors.Errorf("decomp: %s ranks must be positive, got %v", kind, ranks)
		}
	}
	return nil
}

// checkInputs reports a shape mismatch of Apply's inputs to b.
func checkInputs(b *graph.Builder, kind string, modes []int, xs []*G.Node) bool {
	if b.Err() != nil {
		return false
	}
	if len(xs) != len(modes) {
		b.Fail(errors.Errorf("%d inputs for %d modes", len(xs), len(modes)), "decomp: "+kind+".Apply")
		return false
	}
	for k, x := range xs {
		if x == nil {
			b.Fail(errors.Errorf("input %d is nil", k), "decomp: "+kind+".Apply")
			return false
		}
		if s := x.Shape(); s.Dims() != 2 || s[1] != modes[k] || s[0] != xs[0].Shape()[0] {
			b.Fail(errors.Errorf("input %d has shape %v, want [batch, %d]", k, s, modes[k]), "decomp: "+kind+".Apply")
			return false
		}
	}
	return true
}

// factorStd is the standard deviation of each of n i.i.d. factors whose
// products, summed over terms terms, have variance std^2:
// terms s^(2n) = std^2.
func factorStd(std float64, terms, n int) float64 {
	return math.Pow(std*std/float64(terms), 1/(2*float64(n)))
}

// initAll draws every named tensor of p from N(0, s^2).
func initAll(p *params.Params, names []string, rng *rand.Rand, s float64) error {
	if !(s > 0) || math.IsInf(s, 0) {
		return errors.Errorf("decomp: factor standard deviation %g is not positive and finite", s)
	}
	for _, n := range names {
		if err := p.InitNormal(n, rng, s); err != nil {
			return err
		}
	}
	return nil
}

func prod(xs []int) int {
	n := 1
	for _, x := range xs {
		n *= x
	}
	return n
}
