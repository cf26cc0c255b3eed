package runs

import (
	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/wfa"
)

// BondAuto as UMPSSpec.Bond chooses the bond dimension from the training
// file with UMPSSpec.BondRule (string files only).
const BondAuto = -1

// GrowAuto as UMPSSpec.GrowFrom takes the bond rule's choice of a smaller
// model to grow the chosen one from (BondRule.GrowFrom).
const GrowAuto = -1

// BondRule chooses a u-MPS's bond dimension from its strings by the rank
// the spectral WFA learner selects on them (wfa.Fit with the WFA
// configuration, by default rtn wfa learn's: held-out likelihood over
// ranks 2..30, 35, 40, 50). A rank below the largest one the selection
// tried gives that rank, but at least Small; the largest one, which says
// the held-out likelihood of the spectral automaton was still improving
// at the end of its grid, gives Large. See docs/umps.md for the
// measurements behind it.
type BondRule struct {
	// Small is the smallest bond dimension and Large the one for a rank at
	// the top of the grid. If 0, they will be defaulted to 20 and 64.
	Small, Large int
	// GrowFrom is the bond dimension a model at Large is first trained at
	// before it is grown into Large (UMPSSpec.GrowFrom): started at
	// Large directly, the near-identity core can stay on a plateau for a
	// whole run. If 0, it will be defaulted to Small (no growth when
	// Small is Large); if negative, a model at Large is not grown.
	GrowFrom int
	// WFA configures the spectral selection (the zero value is
	// rtn wfa learn's default, seed 1, but with Mixture 1: the rule reads
	// the rank of the single best candidate, and a mixture would only
	// add refits).
	WFA wfa.Config
	// MaxStrings bounds the strings the selection reads: a file with more
	// is represented by MaxStrings of them, evenly spaced in file order,
	// so the rule's time and memory do not grow with the file. If 0, it
	// will be defaulted to DefaultBondStrings.
	MaxStrings int
}

// DefaultBondStrings is BondRule.MaxStrings' default: the size of a
// PAutomaC training file, which the rule therefore reads whole.
const DefaultBondStrings = 20000

// BondChoice is what BondRule.Choose decided.
type BondChoice struct {
	// Bond is the chosen bond dimension.
	Bond int
	// GrowFrom is the bond dimension to train first and grow into Bond
	// (0: none).
	GrowFrom int
	// Rank is the rank of the spectral selection and MaxRank the largest
	// rank it tried.
	Rank, MaxRank int
	// Seconds is the wall time of the spectral selection.
	Seconds float64
	// WFA is the automaton the selection chose, refitted on the strings
	// it read (the one rtn wfa learn -mixture 1 fits on a file of at most
	// MaxStrings strings).
	WFA *wfa.Model
}

// Choose returns the bond dimension for the strings of s.
func (r BondRule) Choose(s datasets.Symbols) (BondChoice, error) {
	if r.Small == 0 {
		r.Small = 20
	}
	if r.Large == 0 {
		r.Large = 64
	}
	if r.MaxStrings == 0 {
		r.MaxStrings = DefaultBondStrings
	}
	if r.GrowFrom == 0 {
		r.GrowFrom = r.Small
		if r.Small == r.Large {
			r.GrowFrom = -1
		}
	}
	if r.WFA.Mixture == 0 {
		r.WFA.Mixture = 1
	}
	if r.Small < 1 || r.Large < r.Small || r.MaxStrings < 0 {
		return BondChoice{}, errors.Errorf("bond rule: small %d, large %d and max strings %d, want 1 <= small <= large and max strings >= 0", r.Small, r.Large, r.MaxStrings)
	}
	if r.GrowFrom >= r.Large {
		return BondChoice{}, errors.Errorf("bond rule: grow from %d, want below large %d (or negative: no growth)", r.GrowFrom, r.Large)
	}
	if r.WFA.Spec.Rank != 0 {
		return BondChoice{}, errors.Errorf("bond rule: the spectral rank is fixed at %d, want it selected (0)", r.WFA.Spec.Rank)
	}
	s.Seqs = evenlySpaced(s.Seqs, r.MaxStrings)
	m, rep, err := wfa.Fit(s, r.WFA)
	if err != nil {
		return BondChoice{}, errors.Wrap(err, "bond rule: spectral selection")
	}
	c := BondChoice{Rank: rep.Chosen.Rank, Seconds: rep.SelectSeconds + rep.FitSeconds, WFA: m}
	for _, cand := range rep.Candidates {
		c.MaxRank = max(c.MaxRank, cand.Spec.Rank)
	}
	c.Bond = min(max(c.Rank, r.Small), r.Large)
	if c.Rank >= c.MaxRank {
		c.Bond = r.Large
		c.GrowFrom = max(r.GrowFrom, 0)
	}
	return c, nil
}

// chooseBond resolves BondAuto and GrowAuto in spec, the bond from the
// file's strings seqs (in file order, as rtn wfa learn reads them; nil
// for a built-in language); a fixed bond is left as it is and gives a
// zero choice. With a bond the rule chose, a GrowFrom given as a number
// applies when it is below that bond and means none otherwise; with a
// fixed bond, a GrowFrom not below it is an error.
func chooseBond(spec *UMPSSpec, seqs [][]int, alphabet []string) (BondChoice, error) {
	auto := spec.Bond == BondAuto
	c, err := chooseBondOnly(spec, seqs, alphabet)
	if err != nil {
		return c, err
	}
	switch {
	case spec.GrowFrom == GrowAuto:
		spec.GrowFrom = c.GrowFrom
	case auto && spec.GrowFrom >= spec.Bond:
		spec.GrowFrom = 0
	}
	if spec.GrowFrom < 0 || (spec.GrowFrom > 0 && spec.GrowFrom >= spec.Bond) {
		return BondChoice{}, errors.Errorf("grow from bond dimension %d, want 0 (none) or below the bond dimension %d", spec.GrowFrom, spec.Bond)
	}
	return c, nil
}

// chooseBondOnly resolves BondAuto in spec as chooseBond says.
func chooseBondOnly(spec *UMPSSpec, seqs [][]int, alphabet []string) (BondChoice, error) {
	if spec.Bond != BondAuto {
		return BondChoice{}, nil
	}
	if spec.Format == nil {
		return BondChoice{}, errors.Errorf("%s: the bond dimension is chosen from a string file only, give a number", spec.Data)
	}
	c, err := spec.BondRule.Choose(datasets.Symbols{Alphabet: alphabet, Seqs: seqs})
	if err != nil {
		return BondChoice{}, errors.Wrap(err, spec.Data)
	}
	spec.Bond = c.Bond
	return c, nil
}

// evenlySpaced returns n of seqs, evenly spaced in order (seqs itself when
// it has no more than n).
func evenlySpaced(seqs [][]int, n int) [][]int {
	if len(seqs) <= n {
		return seqs
	}
	out := make([][]int, n)
	for i := range out {
		out[i] = seqs[i*len(seqs)/n]
	}
	return out
}
