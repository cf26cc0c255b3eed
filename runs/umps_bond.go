package runs

import (
	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/wfa"
)

// BondAuto as UMPSSpec.Bond chooses the bond dimension from the training
// file with UMPSSpec.BondRule (string files only).
const BondAuto = -1

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
	// WFA configures the spectral selection (the zero value is
	// rtn wfa learn's default, seed 1).
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
	// Rank is the rank of the spectral selection and MaxRank the largest
	// rank it tried.
	Rank, MaxRank int
	// Seconds is the wall time of the spectral selection.
	Seconds float64
	// WFA is the automaton the selection chose, refitted on the strings
	// it read (the one rtn wfa learn fits on a file of at most
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
	if r.Small < 1 || r.Large < r.Small || r.MaxStrings < 0 {
		return BondChoice{}, errors.Errorf("bond rule: small %d, large %d and max strings %d, want 1 <= small <= large and max strings >= 0", r.Small, r.Large, r.MaxStrings)
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
	}
	return c, nil
}

// chooseBond resolves BondAuto in spec from the file's strings seqs (in
// file order, as rtn wfa learn reads them; nil for a built-in language);
// a fixed bond is left as it is and gives a zero choice.
func chooseBond(spec *UMPSSpec, seqs [][]int, alphabet []string) (BondChoice, error) {
	if spec.Bond != BondAuto {
		return BondChoice{}, nil
	}
	if seqs == nil {
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
