package wfa

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/spectral"
)

// Criterion is what the selection minimises on the validation strings.
type Criterion int

const (
	// ValidZLL is the mean negative log-likelihood of the validation
	// strings with the scoring rule's floored values and the automaton's
	// mass as normaliser, -log(max(f(x), Floor) / Z) (nats per string; a
	// candidate whose mass is <= 0 is rejected). It is the default: it
	// scores a candidate as the test does (same floor), with an exact
	// normaliser instead of a sum over the validation strings.
	ValidZLL Criterion = iota
	// ValidNLL is the mean negative log-likelihood of the validation
	// strings under the automaton read as a distribution by its
	// next-symbol probabilities (NLL, the fine-tuning objective: weights
	// in absolute value, normalised, and the floor's cost or more for a
	// string of value not above 0).
	ValidNLL
	// ValidPerplexity is EvalSet.Perplexity: the PAutomaC score with the
	// validation frequencies standing for the solution, values floored
	// and normalised over the distinct validation strings.
	ValidPerplexity
	// ValidLOO is EvalSet.LOO: floored values normalised over the
	// distinct validation strings, each weighted by its count minus one,
	// so that, as the rare test strings in the PAutomaC score, the
	// strings seen once weigh nothing. Weighing only the frequent
	// strings, it favours lower ranks than ValidZLL
	// (on PAutomaC it wins on some problems and loses on as many: see
	// docs/wfa.md).
	ValidLOO
)

var criterionNames = [...]string{ValidZLL: "zll", ValidNLL: "nll", ValidPerplexity: "perplexity", ValidLOO: "loo"}

// String returns the criterion's flag name.
func (c Criterion) String() string {
	if c < 0 || int(c) >= len(criterionNames) {
		return fmt.Sprintf("Criterion(%d)", int(c))
	}
	return criterionNames[c]
}

// ParseCriterion maps zll, nll, perplexity or loo to its criterion.
func ParseCriterion(name string) (Criterion, error) {
	for c, n := range criterionNames {
		if n == name {
			return Criterion(c), nil
		}
	}
	return 0, errors.Errorf("wfa: unknown selection criterion %q (known: zll, nll, perplexity, loo)", name)
}

// Config sets Fit. The zero value selects the variant, basis and rank on a
// validation split with seed 1.
type Config struct {
	// Spec fixes the configuration when Spec.Rank > 0; its zero Rows and
	// Cols are defaulted to 5. When Spec.Rank is 0 the configuration is
	// selected (see Variants, Bases, Ranks).
	Spec Spec
	// Variants are the Hankel variants tried by the selection. If empty,
	// it will be defaulted to {Classic, Factor}, scikit-splearn's reference
	// grid (Prefix and Suffix cost as much as Factor and did not win on
	// PAutomaC).
	Variants []spectral.HankelVariant
	// Bases are the lrows = lcolumns values tried by the selection. If
	// empty, it will be defaulted to {3, 4, 5}.
	Bases []int
	// Ranks are the ranks tried by the selection (those above a Hankel
	// matrix's usable rank are skipped). If empty, it will be defaulted to
	// scikit-splearn's reference grid 2..30, 35, 40, 50.
	Ranks []int
	// Folds is the number of cross-validation folds of the selection. If
	// 0, it will be defaulted to 1: ValidFraction of the strings is held
	// out once. With Folds >= 2 the strings are shuffled by the seed and
	// cut into Folds parts, every candidate is fitted on all parts but one
	// and scored on that one, and its figure is the mean over the parts
	// (on PAutomaC, 5 folds cost five times the selection and did not
	// select better: see docs/wfa.md).
	Folds int
	// ValidFraction is the share of the strings held out when Folds is 1.
	// If 0, it will be defaulted to 0.2 (on PAutomaC, 0.1 let noise pick
	// the rank: see docs/wfa.md).
	ValidFraction float64
	// AllFigures makes the selection compute every criterion's figure for
	// every candidate, not only its own (for inspection; ValidNLL costs
	// more than the others together).
	AllFigures bool
	// MaxFloored is the largest share of validation strings (by count) an
	// automaton may give a value <= 0 and still be selected. If 0, it will
	// be defaulted to 0.5: good spectral automata of some PAutomaC problems
	// rule out 10-20 % of the strings (the floor takes care of them), but
	// one that rules out most strings is not a model of the data.
	MaxFloored float64
	// Criterion is what the selection minimises (ValidZLL by default).
	Criterion Criterion
	// Mixture is the largest number of selection candidates (the best by
	// ValidZLL) averaged into the returned automaton. If 0, it will be
	// defaulted to 8; 1 returns the single best candidate. The weights
	// minimise ValidZLL of the mixture on the validation strings (see
	// Fit); the mixture is kept only when that figure beats the best
	// single candidate's by more than MixtureSE standard errors. Only
	// ValidZLL forms mixtures: with another Criterion, Mixture is ignored.
	Mixture int
	// MixtureSE is how many standard errors the mixture's validation gain
	// over the best candidate (the mean of the paired per-string
	// differences of their floored log-values) must exceed for the
	// mixture to be kept: a mixture has more states, so it costs more to
	// fit and to fine-tune, and a gain within the noise of the validation
	// strings does not pay for that. If 0, it will be defaulted to 1 (the
	// one-standard-error rule); a negative value keeps any gain.
	MixtureSE float64
	// OnCandidate, when not nil, is called with every candidate and its
	// automaton (fitted on the training part), for inspection.
	OnCandidate func(c Candidate, w spectral.WFA)
	// Seed draws the validation split and the randomized SVDs. If 0, it
	// will be defaulted to 1.
	Seed uint64
}

// WithDefaults returns the config with its unset fields at the defaults
// their comments give.
func (c Config) WithDefaults() Config {
	if c.Spec.Rows == 0 {
		c.Spec.Rows = 5
	}
	if c.Spec.Cols == 0 {
		c.Spec.Cols = 5
	}
	if len(c.Variants) == 0 {
		c.Variants = []spectral.HankelVariant{spectral.Classic, spectral.Factor}
	}
	if len(c.Bases) == 0 {
		c.Bases = []int{3, 4, 5}
	}
	if len(c.Ranks) == 0 {
		for r := 2; r <= 30; r++ {
			c.Ranks = append(c.Ranks, r)
		}
		c.Ranks = append(c.Ranks, 35, 40, 50)
	}
	if c.Folds == 0 {
		c.Folds = 1
	}
	if c.ValidFraction == 0 {
		c.ValidFraction = 0.2
	}
	if c.MaxFloored == 0 {
		c.MaxFloored = 0.5
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Mixture == 0 {
		c.Mixture = 8
	}
	if c.MixtureSE == 0 {
		c.MixtureSE = 1
	}
	return c
}

// withDefaults is WithDefaults and the checks of the fields Fit reads.
func (c Config) withDefaults() (Config, error) {
	c = c.WithDefaults()
	if c.Mixture < 1 {
		return c, errors.Errorf("wfa: mixture of %d candidates, want >= 1", c.Mixture)
	}
	if math.IsNaN(c.MixtureSE) || math.IsInf(c.MixtureSE, 0) {
		return c, errors.Errorf("wfa: mixture gate of %g standard errors, want a finite number", c.MixtureSE)
	}
	if c.Spec.Rank < 0 {
		return c, errors.Errorf("wfa: rank %d, want >= 1 (or 0 to select it)", c.Spec.Rank)
	}
	if c.Folds < 1 {
		return c, errors.Errorf("wfa: %d folds, want >= 1", c.Folds)
	}
	for _, r := range c.Ranks {
		if r < 1 {
			return c, errors.Errorf("wfa: candidate rank %d, want >= 1", r)
		}
	}
	if !(c.ValidFraction > 0 && c.ValidFraction < 1) || !(c.MaxFloored > 0 && c.MaxFloored <= 1) {
		return c, errors.Errorf("wfa: validation fraction %g and floored share %g, want both in (0, 1)", c.ValidFraction, c.MaxFloored)
	}
	return c, nil
}

// Candidate is one configuration tried by the selection.
type Candidate struct {
	Spec Spec
	// Perplexity is the normalised validation perplexity
	// (EvalSet.Perplexity), LOO, NLL and ZLL the validation figures of
	// ValidLOO, ValidNLL and ValidZLL (nats per string), each the mean
	// over the folds weighted by their sizes. NLL is NaN unless it is the
	// criterion or Config.AllFigures is set.
	Perplexity, LOO, NLL, ZLL float64
	// Radius is the spectral radius of sum_s A_s; Floored the share of
	// validation strings given a value <= 0 (the largest over the folds).
	Radius, Floored float64
	// Rejected says why the candidate cannot be selected ("" if it can).
	Rejected string
	// vals are the values f(x)/Z on the distinct validation strings of
	// every fold in turn, Z the mass of the automaton fitted without that
	// fold (for the mixture; dropped when Fit returns).
	vals []float64
}

// Report describes a Fit.
type Report struct {
	// Candidates lists the selection's candidates (nil with a fixed rank).
	Candidates []Candidate
	// Chosen is the configuration of the returned model (of its first
	// component when it is a mixture).
	Chosen Spec
	// Components are the mixture's components, nil when the model is a
	// single automaton (see Model.Components).
	Components []Component
	// SelectSeconds is the wall time of the selection (fits on the
	// training part and validation scoring); FitSeconds that of the final
	// fit on all the strings (Hankel matrices, SVD and automaton).
	SelectSeconds, FitSeconds float64
}

// Fit learns a spectral WFA from the strings of s. With cfg.Spec.Rank > 0
// it fits that configuration on all strings (a rank above the Hankel
// matrix's is a *spectral.HankelRankError). Otherwise it scores every
// candidate on held-out strings (one split, or cfg.Folds folds), keeps
// those that are not rejected on any fold (spectral radius of sum_s A_s >= 1, a mass outside
// [MinMass, MaxMass], or a value <= 0 on more than MaxFloored of the
// validation strings), and refits the one with the best mean validation
// figure (cfg.Criterion) on all strings; a refit that fails the same
// checks (on all the strings) is rejected and the next best is refitted.
//
// With the ValidZLL criterion and cfg.Mixture > 1 it first tries a
// mixture of the cfg.Mixture best candidates: weights on the simplex
// minimising the ValidZLL of sum_i w_i f_i / Z_i on the validation strings
// (Frank-Wolfe from the best candidate alone, so the figure never gets
// worse than its), weights below MinMixtureWeight dropped and the rest
// rescaled to sum 1. When more than one component is left and the
// mixture's figure is below the best candidate's by more than
// cfg.MixtureSE standard errors of the gain, each component is
// refitted on all strings and the mixture of the refits (Mix) returned,
// unless a refit or the mixture fails the checks above; then Fit falls
// back to the single best candidate.
// When the selection fails the report still lists the candidates.
func Fit(s datasets.Symbols, cfg Config) (*Model, *Report, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	if err := s.ValidateStrings(); err != nil {
		return nil, nil, err
	}
	rep := &Report{}
	if cfg.Spec.Rank > 0 {
		start := time.Now()
		w, err := FitSpec(s.Seqs, len(s.Alphabet), cfg.Spec, rand.New(rand.NewPCG(cfg.Seed, 2)))
		if err != nil {
			return nil, nil, err
		}
		rep.FitSeconds, rep.Chosen = time.Since(start).Seconds(), cfg.Spec
		return &Model{WFA: w, Alphabet: slices.Clone(s.Alphabet), Spec: cfg.Spec}, rep, nil
	}
	start := time.Now()
	var validWeights []float64
	var nValid int
	if rep.Candidates, validWeights, nValid, err = selectSpec(s, cfg); err != nil {
		return nil, rep, err
	}
	defer func() {
		for i := range rep.Candidates {
			rep.Candidates[i].vals = nil
		}
	}()
	rep.SelectSeconds = time.Since(start).Seconds()
	order := make([]int, 0, len(rep.Candidates))
	for i, c := range rep.Candidates {
		if c.Rejected == "" {
			order = append(order, i)
		}
	}
	// Stable: ties go to the first candidate in grid order.
	slices.SortStableFunc(order, func(i, j int) int {
		return cmp.Compare(rep.Candidates[i].value(cfg.Criterion), rep.Candidates[j].value(cfg.Criterion))
	})
	all := NewEvalSet(s.Seqs)
	if cfg.Criterion == ValidZLL && cfg.Mixture > 1 {
		m, err := fitMixture(s, cfg, rep, order, validWeights, nValid, all)
		if m != nil || err != nil {
			return m, rep, err
		}
	}
	for _, i := range order {
		spec := rep.Candidates[i].Spec
		start := time.Now()
		w, err := FitSpec(s.Seqs, len(s.Alphabet), spec, rand.New(rand.NewPCG(cfg.Seed, 2)))
		if err != nil {
			return nil, nil, err
		}
		rep.FitSeconds = time.Since(start).Seconds()
		if why := refitRejected(w, all, cfg); why != "" {
			rep.Candidates[i].Rejected = why
			continue
		}
		rep.Chosen = spec
		return &Model{WFA: w, Alphabet: slices.Clone(s.Alphabet), Spec: spec}, rep, nil
	}
	return nil, rep, errors.Errorf("wfa: all %d candidate automata diverge, have a mass outside [%g, %g] or give a value <= 0 to more than %g of the validation strings, on a fold or refitted on all strings", len(rep.Candidates), MinMass, MaxMass, cfg.MaxFloored)
}

// refitRejected applies judge's checks to an automaton refitted on all the
// strings (all): why it cannot be returned, or "".
func refitRejected(w spectral.WFA, all *EvalSet, cfg Config) string {
	rad, err := w.SpectralRadius()
	z, zerr := w.Mass()
	switch {
	case err != nil || !(rad < 1):
		return "refit diverges"
	case zerr != nil || !(z >= MinMass && z <= MaxMass):
		return "refit mass out of range"
	}
	if _, floored, _, _ := all.scores(w); floored > cfg.MaxFloored {
		return "refit rules out too many strings"
	}
	return ""
}

// FitSpec learns the spectral WFA of one configuration from seqs over
// symbols symbols; rng seeds the randomized SVD.
func FitSpec(seqs [][]int, symbols int, spec Spec, rng *rand.Rand) (spectral.WFA, error) {
	if rng == nil {
		return spectral.WFA{}, errors.New("wfa: FitSpec needs a random generator (the randomized SVD's)")
	}
	h, err := spectral.NewStringHankel(seqs, symbols, spectral.StringHankelConfig{Variant: spec.Variant, Rows: spec.Rows, Cols: spec.Cols})
	if err != nil {
		return spectral.WFA{}, err
	}
	return fitHankel(h, spec.Rank, rng)
}

// FitSpecs learns the spectral WFA of each configuration from seqs, as
// FitSpec with the generator rand.New(rand.NewPCG(seed, 2)) for each, bit
// for bit, but with one Hankel build per variant, at the longest bases
// asked for (the others are its leading blocks). With the seed of
// Config.Seed these are the automata that Fit mixes.
func FitSpecs(seqs [][]int, symbols int, specs []Spec, seed uint64) ([]spectral.WFA, error) {
	ws := make([]spectral.WFA, len(specs))
	err := fitEach(seqs, symbols, specs, seed, func(i int, w spectral.WFA) bool {
		ws[i] = w
		return true
	})
	if err != nil {
		return nil, err
	}
	return ws, nil
}

// fitEach fits the configurations in order as FitSpecs does and passes
// each automaton to keep, stopping without error when keep returns false.
func fitEach(seqs [][]int, symbols int, specs []Spec, seed uint64, keep func(i int, w spectral.WFA) bool) error {
	resolved := slices.Clone(specs)
	for i, sp := range resolved {
		c, err := spectral.StringHankelConfig{Variant: sp.Variant, Rows: sp.Rows, Cols: sp.Cols}.WithDefaults()
		if err != nil {
			return err
		}
		resolved[i].Rows, resolved[i].Cols = c.Rows, c.Cols
	}
	hs := newSharedHankels(seqs, symbols, resolved)
	for i, spec := range resolved {
		h, err := hs.get(spec)
		if err != nil {
			return err
		}
		w, err := fitHankel(h, spec.Rank, rand.New(rand.NewPCG(seed, 2)))
		if err != nil {
			return err
		}
		if !keep(i, w) {
			return nil
		}
	}
	return nil
}

// fitHankel is the spectral WFA of rank rank from the Hankel matrices h.
func fitHankel(h *spectral.StringHankel, rank int, rng *rand.Rand) (spectral.WFA, error) {
	f, err := h.Factorize(rank, rng)
	if err != nil {
		return spectral.WFA{}, err
	}
	return f.WFA(rank)
}

// sharedHankels serves the Hankel matrices of one sample at several
// configurations from one build per variant, at the longest bases asked
// for (Restrict gives the others the matrices of their own build, bit for
// bit).
type sharedHankels struct {
	seqs    [][]int
	symbols int
	longest map[spectral.HankelVariant][2]int
	built   map[spectral.HankelVariant]*spectral.StringHankel
}

// newSharedHankels prepares the matrices of seqs for specs, whose bases
// are set (StringHankelConfig.WithDefaults).
func newSharedHankels(seqs [][]int, symbols int, specs []Spec) *sharedHankels {
	sh := &sharedHankels{seqs: seqs, symbols: symbols, longest: map[spectral.HankelVariant][2]int{}, built: map[spectral.HankelVariant]*spectral.StringHankel{}}
	for _, sp := range specs {
		l := sh.longest[sp.Variant]
		sh.longest[sp.Variant] = [2]int{max(l[0], sp.Rows), max(l[1], sp.Cols)}
	}
	return sh
}

// get returns the Hankel matrices of spec, one of those given to
// newSharedHankels.
func (sh *sharedHankels) get(spec Spec) (*spectral.StringHankel, error) {
	l := sh.longest[spec.Variant]
	h := sh.built[spec.Variant]
	if h == nil {
		var err error
		if h, err = spectral.NewStringHankel(sh.seqs, sh.symbols, spectral.StringHankelConfig{Variant: spec.Variant, Rows: l[0], Cols: l[1]}); err != nil {
			return nil, err
		}
		sh.built[spec.Variant] = h
	}
	if spec.Rows == l[0] && spec.Cols == l[1] {
		return h, nil
	}
	return h.Restrict(spec.Rows, spec.Cols)
}

// folds returns the validation indices of each fold: with cfg.Folds = 1 a
// ValidFraction split, else the parts of a shuffle.
func folds(n int, cfg Config) ([][]int, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	if cfg.Folds == 1 {
		_, va, _, err := datasets.Split(n, cfg.ValidFraction, 0, rng)
		if err != nil {
			return nil, err
		}
		if len(va) == 0 {
			return nil, errors.Errorf("wfa: %d strings leave no validation strings at fraction %g", n, cfg.ValidFraction)
		}
		return [][]int{va}, nil
	}
	if cfg.Folds > n/2 {
		return nil, errors.Errorf("wfa: %d strings are too few for %d folds", n, cfg.Folds)
	}
	out := make([][]int, cfg.Folds)
	for i, j := range datasets.Shuffle(rng, n) {
		out[i%cfg.Folds] = append(out[i%cfg.Folds], j)
	}
	return out, nil
}

// selectSpec scores every candidate on every fold and returns them in
// grid order (variant, basis, rank), their figures the size-weighted means
// over the folds, the weights of the candidates' vals (the frequencies of
// the distinct validation strings of every fold in turn, each fold's
// scaled by its share) and the number of validation strings.
func selectSpec(s datasets.Symbols, cfg Config) ([]Candidate, []float64, int, error) {
	parts, err := folds(len(s.Seqs), cfg)
	if err != nil {
		return nil, nil, 0, err
	}
	nValid := 0
	for _, va := range parts {
		nValid += len(va)
	}
	var weights []float64
	var cands []Candidate
	index := map[Spec]int{}
	usable := 0 // the largest rank a Hankel matrix of the first fold allowed
	for k, va := range parts {
		held := make([]bool, len(s.Seqs))
		for _, j := range va {
			held[j] = true
		}
		var train [][]int
		for j, x := range s.Seqs {
			if !held[j] {
				train = append(train, x)
			}
		}
		valid := NewEvalSet(pick(s.Seqs, va))
		share := float64(len(va)) / float64(len(s.Seqs))
		if cfg.Folds == 1 {
			share = 1
		}
		for _, p := range valid.Weights {
			weights = append(weights, share*p)
		}
		seen := map[Spec]bool{}
		for _, v := range cfg.Variants {
			for _, b := range cfg.Bases {
				// Each basis is built on its own, so that one set of
				// matrices is alive during an SVD, the memory peak on
				// large samples.
				h, err := spectral.NewStringHankel(train, len(s.Alphabet), spectral.StringHankelConfig{Variant: v, Rows: b, Cols: b})
				if err != nil {
					return nil, nil, 0, err
				}
				if k == 0 {
					usable = max(usable, h.MaxRank()-1)
				}
				var ranks []int
				for _, r := range cfg.Ranks {
					if r < h.MaxRank() {
						ranks = append(ranks, r)
					}
				}
				if len(ranks) == 0 {
					continue
				}
				f, err := h.Factorize(slices.Max(ranks), rand.New(rand.NewPCG(cfg.Seed, uint64(3+k))))
				if err != nil {
					return nil, nil, 0, err
				}
				for _, r := range ranks {
					w, err := f.WFA(r)
					if err != nil {
						return nil, nil, 0, err
					}
					spec := Spec{Variant: v, Rows: b, Cols: b, Rank: r}
					c := judge(w, spec, valid, cfg)
					if cfg.OnCandidate != nil {
						cfg.OnCandidate(c, w)
					}
					seen[spec] = true
					i, ok := index[spec]
					if !ok {
						if k > 0 {
							continue // above the Hankel rank of an earlier fold
						}
						i = len(cands)
						index[spec] = i
						cands = append(cands, Candidate{Spec: spec})
					}
					cands[i].add(c, share, k)
				}
			}
		}
		for spec, i := range index {
			if !seen[spec] && cands[i].Rejected == "" {
				cands[i].Rejected = fmt.Sprintf("above the Hankel matrix's rank on fold %d", k+1)
			}
		}
	}
	if len(cands) == 0 {
		return nil, nil, 0, &NoCandidateError{Smallest: slices.Min(cfg.Ranks), Usable: usable}
	}
	return cands, weights, nValid, nil
}

// NoCandidateError is Fit's error when every rank of the selection's grid
// is above what the Hankel matrices of its training strings allow.
type NoCandidateError struct {
	// Smallest is the smallest rank tried, Usable the largest rank the
	// Hankel matrices of the first fold's training strings allow.
	Smallest, Usable int
}

// Error says which ranks were tried and which were possible.
func (e *NoCandidateError) Error() string {
	return fmt.Sprintf("wfa: no candidate automaton: every rank tried (smallest %d) is above the largest the Hankel matrices of the selection's training strings allow (%d)", e.Smallest, e.Usable)
}

// add accumulates fold k's judgement c with weight share.
func (c *Candidate) add(f Candidate, share float64, k int) {
	c.Perplexity += share * f.Perplexity
	c.LOO += share * f.LOO
	c.NLL += share * f.NLL
	c.ZLL += share * f.ZLL
	c.Radius, c.Floored = max(c.Radius, f.Radius), max(c.Floored, f.Floored)
	c.vals = append(c.vals, f.vals...)
	if c.Rejected == "" && f.Rejected != "" {
		c.Rejected = f.Rejected
		if k > 0 {
			c.Rejected += fmt.Sprintf(" on fold %d", k+1)
		}
	}
}

// MinMass and MaxMass bound the mass sum_x f(x) = alpha^T (I - S)^-1 omega
// of a selectable automaton. The Hankel entries are frequencies, so a
// spectral automaton that models the sample has a mass near 1; one whose
// mass is tiny makes every floored value look likely under ValidZLL (all
// values floored, Z = 5e-17 on problem 5), one whose mass is large wastes
// it on strings never seen.
const (
	MinMass float64 = 0.5
	MaxMass float64 = 2
)

// value is the candidate's figure under the criterion.
func (c Candidate) value(cr Criterion) float64 {
	switch cr {
	case ValidPerplexity:
		return c.Perplexity
	case ValidZLL:
		return c.ZLL
	case ValidLOO:
		return c.LOO
	}
	return c.NLL
}

// judge scores one candidate on the validation strings.
func judge(w spectral.WFA, spec Spec, valid *EvalSet, cfg Config) Candidate {
	c := Candidate{Spec: spec}
	rad, err := w.SpectralRadius()
	c.Radius = rad
	z, zerr := w.Mass()
	c.vals = valid.values(w)
	c.Perplexity, c.Floored, c.ZLL, c.LOO = valid.scoreValues(c.vals, z, zerr == nil)
	for i := range c.vals {
		c.vals[i] /= z
	}
	c.NLL = math.NaN()
	if cfg.Criterion == ValidNLL || cfg.AllFigures {
		c.NLL = NLL(w, valid)
	}
	switch v := c.value(cfg.Criterion); {
	case err != nil || !(rad < 1):
		c.Rejected = "diverges"
	case zerr != nil || !(z >= MinMass && z <= MaxMass):
		c.Rejected = "mass out of range"
	case c.Floored > cfg.MaxFloored:
		c.Rejected = "rules out too many strings"
	case math.IsNaN(v) || math.IsInf(v, 0):
		c.Rejected = "no finite validation score"
	}
	return c
}

func pick(seqs [][]int, idx []int) [][]int {
	out := make([][]int, len(idx))
	for i, j := range idx {
		out[i] = seqs[j]
	}
	return out
}
