package runs

import (
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/pfa"
	"github.com/rtnlab/rtn/wfa"
)

// String model starts and refinements of StringsFitSpec.
const (
	StartSpectral = "spectral"
	StartRandom   = "random"
	// StartGridBest marks a candidate that continues a family's best of
	// the scan on the whole training split (StringsFitSpec.GridStrings).
	StartGridBest = "grid-best"

	MethodEM       = "em"
	MethodGradient = "gradient"
	MethodBoth     = "em+gradient"
	// MethodMixture marks the candidate that mixes the trained ones.
	MethodMixture = "mixture"
)

// StringsFitSpec configures rtn strings fit: the default string learner.
// It fits the spectral WFA on the training part of a split, starts every
// candidate family and size from it, refines each, and keeps the one of
// the best validation likelihood (never the test).
type StringsFitSpec struct {
	// Train is the training string file; Format its format.
	Train  string
	Format datasets.StringFormat
	// Strings, when not nil, are used instead of reading Train (the Go
	// API's way in).
	Strings *datasets.Symbols
	// Families are the candidate families (FamilyPFA, FamilyHMM, or
	// FamilyWFA alone: the spectral WFA's floored values are not a
	// distribution, so its validation figure, wfa.EvalSet.ZLL, is not
	// comparable with an automaton's likelihood). Their sizes are tried in
	// turn, so that the budget is shared between them. If nil, they will
	// be defaulted to pfa and hmm.
	Families []string
	// States, when not nil, are the candidate numbers of states of the
	// automata (a fixed grid). When nil, the number of states grows from
	// StatesFrom by the factor StatesGrowth (rounded up) until
	// StatesPatience sizes in a row do not improve the family's best
	// validation loss, or above StatesMax.
	States []int
	// StatesFrom, StatesGrowth and StatesMax set the growing grid, which
	// stops after StatesPatience sizes in a row without improvement. If 0,
	// they will be defaulted to 8, 1.5, 128 and 2.
	StatesFrom     int
	StatesGrowth   float64
	StatesMax      int
	StatesPatience int
	// Start is StartSpectral or StartRandom. If empty, it will be
	// defaulted to StartSpectral.
	Start string
	// Spectral sets the spectral start (k-means iterations, pseudo-count,
	// metric); its zero value is pfa.SpectralStart's defaults.
	Spectral pfa.SpectralConfig
	// Method refines a start: MethodEM, MethodGradient or MethodBoth (EM,
	// then the gradient from EM's result). If empty, it will be defaulted
	// to MethodBoth.
	Method string
	// Training holds the gradient's and EM's settings (optimizer, rate,
	// epochs, batch size, patience, EM's tolerance and acceleration); its
	// Seed and Jobs are set from the fields below. If Training.Tolerance
	// is 0, it will be defaulted to 1e-5. EMIterations caps EM's passes
	// over the training strings. If 0, it will be defaulted to 200.
	Training     pfa.TrainConfig
	EMIterations int
	// GridStrings, when below the training split's size, makes the grid
	// two passes: a scan whose candidates train on the split's first
	// GridStrings strings (it is shuffled) and may start until 40% of the
	// budget, then a grid on the whole split in which each family first
	// trains its best automaton of the scan on all the strings, then grows
	// from its size with its own patience, until the budget ends. If 0, it
	// will be defaulted to 20000 (PAutomaC's smaller training sets, whose
	// 18,000-string splits are thus trained in one pass).
	GridStrings int
	// ValidFraction is the share of the strings held out for selection
	// and early stopping. If 0, it will be defaulted to 0.1.
	ValidFraction float64
	// Seed draws the split, the starts and the batches. If 0, it will be
	// defaulted to 1.
	Seed uint64
	// Single keeps the best candidate alone; by default the fit also
	// tries the mixture of the trained automata and a one-state unigram
	// (pfa.Unigram), its weights fitted on the validation split, and keeps
	// it when its validation loss is lower.
	Single bool
	// Jobs is the number of workers; the model is the same for any. If
	// 0, it will be defaulted to 1.
	Jobs int
	// Budget is the wall time after which no further candidate starts and
	// the one in training stops at its next epoch (the model then depends
	// on the machine's speed). If 0, it will be defaulted to 10 minutes.
	Budget time.Duration
	// Out is the model file written (empty: none).
	Out string
	// Log receives one line per candidate (nil: none).
	Log io.Writer
}

// WithDefaults fills in the defaults.
func (s StringsFitSpec) WithDefaults() StringsFitSpec {
	if s.Families == nil {
		s.Families = []string{FamilyPFA, FamilyHMM}
	}
	if s.StatesFrom == 0 {
		s.StatesFrom = 8
	}
	if s.StatesGrowth == 0 {
		s.StatesGrowth = 1.5
	}
	if s.StatesMax == 0 {
		s.StatesMax = 128
	}
	if s.StatesPatience == 0 {
		s.StatesPatience = 2
	}
	if s.Training.Tolerance == 0 {
		s.Training.Tolerance = 1e-5
	}
	if s.Start == "" {
		s.Start = StartSpectral
	}
	if s.Method == "" {
		s.Method = MethodBoth
	}
	if s.EMIterations == 0 {
		s.EMIterations = 200
	}
	if s.GridStrings == 0 {
		s.GridStrings = 20000
	}
	if s.ValidFraction == 0 {
		s.ValidFraction = 0.1
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.Jobs == 0 {
		s.Jobs = 1
	}
	if s.Budget == 0 {
		s.Budget = 10 * time.Minute
	}
	s.Training.Seed, s.Training.Jobs = s.Seed, s.Jobs
	s.Training = s.Training.WithDefaults()
	s.Spectral = s.Spectral.WithDefaults()
	return s
}

// Validate checks the spec (after WithDefaults): a *FieldError naming
// the first bad field.
func (s StringsFitSpec) Validate() error {
	if s.Train == "" && s.Strings == nil {
		return fieldErr("Train", nil, "a string file (required)")
	}
	if err := s.checkFamilies(); err != nil {
		return err
	}
	if s.States != nil && len(s.States) == 0 {
		return fieldErr("States", nil, "a list of at least one number of states")
	}
	for _, n := range s.States {
		if err := checkRange("States", n, 1, pfa.MaxStates); err != nil {
			return err
		}
	}
	if s.StatesFrom > s.StatesMax {
		return fieldErr("StatesFrom", s.StatesFrom, "at most {StatesMax} %d", s.StatesMax)
	}
	if !(s.StatesGrowth > 1) || math.IsInf(s.StatesGrowth, 0) {
		return fieldErr("StatesGrowth", s.StatesGrowth, "a finite factor above 1")
	}
	if s.Start != StartSpectral && s.Start != StartRandom {
		return fieldErr("Start", s.Start, "%s or %s", StartSpectral, StartRandom)
	}
	if s.Method != MethodEM && s.Method != MethodGradient && s.Method != MethodBoth {
		return fieldErr("Method", s.Method, "%s, %s or %s", MethodEM, MethodGradient, MethodBoth)
	}
	if s.GridStrings < 1 {
		return fieldErr("GridStrings", s.GridStrings, ">= 1")
	}
	if s.Budget < 0 {
		return fieldErr("Budget", s.Budget, ">= 0")
	}
	if t := s.Training.Tolerance; !(t >= 0 && t < 1) {
		return fieldErr("Training.Tolerance", t, "in [0, 1)")
	}
	if a := s.Training.EMAccel; a != pfa.EMPlain && a != pfa.EMSquarem {
		return fieldErr("Training.EMAccel", a, "%s or %s", pfa.EMPlain, pfa.EMSquarem)
	}
	err := firstErr(
		checkRange("StatesFrom", s.StatesFrom, 1, pfa.MaxStates),
		checkRange("StatesMax", s.StatesMax, 1, pfa.MaxStates),
		checkMin("StatesPatience", s.StatesPatience, 1),
		checkRange("Spectral.SuffixLength", s.Spectral.SuffixLength, -1, 4),
		checkShare("ValidFraction", s.ValidFraction),
		checkRange("Jobs", s.Jobs, 1, MaxJobs),
		checkMin("EMIterations", s.EMIterations, 1),
		checkMin("Training.Epochs", s.Training.Epochs, 0),
		checkMin("Training.BatchSize", s.Training.BatchSize, 0),
		checkPositive("Training.Optim.LR", s.Training.Optim.LR),
	)
	if err != nil {
		return err
	}
	return s.Training.Validate()
}

// checkFamilies refuses an empty list of families, an unknown family and
// wfa beside another.
func (s StringsFitSpec) checkFamilies() error {
	if len(s.Families) == 0 {
		return fieldErr("Families", nil, "a list of at least one family")
	}
	for _, f := range s.Families {
		if f != FamilyPFA && f != FamilyHMM && f != FamilyWFA {
			return fieldErr("Families", f, "%s, %s or %s", FamilyPFA, FamilyHMM, FamilyWFA)
		}
	}
	if len(s.Families) > 1 && slices.Contains(s.Families, FamilyWFA) {
		return fieldErr("Families", strings.Join(s.Families, ","), "wfa alone or without wfa (its floored values are not a distribution, so its validation figure does not compare with an automaton's)")
	}
	return nil
}

// StringsCandidate is one family and size tried by the fit.
type StringsCandidate struct {
	Family string `json:"family"`
	States int    `json:"states"`
	Start  string `json:"start"`
	Method string `json:"method"`
	// StartValid and Valid are the validation losses (nats per string) of
	// the start and of the refined model; ValidPerSymbol is Valid in nats
	// per symbol (the end counted).
	StartValid     float64 `json:"start_valid"`
	Valid          float64 `json:"valid"`
	ValidPerSymbol float64 `json:"valid_nats_per_symbol"`
	// TrainStrings is the number of training strings it was trained on
	// (fewer than the split's for the grid's candidates when GridStrings
	// is below it).
	TrainStrings int `json:"train_strings"`
	// Components is the number of automata of a mixture (0 otherwise).
	Components int `json:"components,omitempty"`
	// EMIterations and Epochs are the EM iterations and gradient epochs run.
	EMIterations int `json:"em_iterations"`
	Epochs       int `json:"epochs"`
	// Seconds is the wall time (left out of model files, which are the
	// same bit for bit for a seed).
	Seconds float64 `json:"seconds,omitempty"`
	// Skipped says why the candidate was not trained (the budget).
	Skipped string `json:"skipped,omitempty"`
}

// StringsFitSummary is the report of a fit, also stored in the model file.
type StringsFitSummary struct {
	// Spectral is the spectral WFA's configuration.
	Spectral string `json:"spectral"`
	// Candidates are in the order tried; Chosen indexes the kept one.
	Candidates []StringsCandidate `json:"candidates"`
	Chosen     int                `json:"chosen"`
	Seed       uint64             `json:"seed"`
	Strings    int                `json:"strings"`
	// Seconds is the wall time (left out of model files).
	Seconds float64 `json:"seconds,omitempty"`
	// FamilyBest holds, in the summary FitStrings returns, the model of
	// each family's best candidate (the mixture aside): what each family
	// reaches after refinement. Files never hold it.
	FamilyBest map[string]*StringsModel `json:"-"`
}

// untimed returns a copy of the summary without its timings: what the
// model file stores.
func (s *StringsFitSummary) untimed() *StringsFitSummary {
	c := *s
	c.Seconds, c.FamilyBest = 0, nil
	c.Candidates = slices.Clone(s.Candidates)
	for i := range c.Candidates {
		c.Candidates[i].Seconds = 0
	}
	return &c
}

// FitStrings runs the spec and returns the chosen model (written to
// spec.Out when it is set; its Fit is the summary without timings) and
// the summary with them.
func FitStrings(spec StringsFitSpec) (*StringsModel, *StringsFitSummary, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, nil, err
	}
	began := time.Now()
	deadline := began.Add(spec.Budget)
	var data datasets.Symbols
	if spec.Strings != nil {
		data = *spec.Strings
	} else {
		var err error
		if data, err = datasets.ReadStringsFile(spec.Train, spec.Format, nil); err != nil {
			return nil, nil, err
		}
	}
	if err := data.ValidateStrings(); err != nil {
		return nil, nil, err
	}
	train, valid, err := pfa.Split(data.Seqs, spec.ValidFraction, spec.Seed)
	if err != nil {
		return nil, nil, errors.Wrap(err, "strings fit: split")
	}
	w, _, err := wfa.Fit(datasets.Symbols{Alphabet: data.Alphabet, Seqs: train}, wfa.Config{Seed: spec.Seed})
	if err != nil {
		return nil, nil, errors.Wrap(err, "strings fit: spectral estimate")
	}
	sum := &StringsFitSummary{Spectral: w.Spec.String(), Seed: spec.Seed, Strings: len(data.Seqs), Chosen: -1, FamilyBest: map[string]*StringsModel{}}
	if len(w.Components) > 1 {
		sum.Spectral = fmt.Sprintf("mixture of %d, first %v", len(w.Components), w.Spec)
	}
	g := &stringsGrid{spec: spec, w: w, train: train, valid: valid, d: len(data.Alphabet), deadline: deadline, sum: sum, bestLoss: math.Inf(1), famLoss: map[string]float64{}}
	sample := len(train) > spec.GridStrings && !slices.Equal(spec.Families, []string{FamilyWFA})
	if sample {
		g.train = train[:spec.GridStrings]
		g.deadline = began.Add(spec.Budget * 4 / 10)
	}
	fams := make([]*familyGrid, len(spec.Families))
	for k, name := range spec.Families {
		fams[k] = &familyGrid{name: name, best: math.Inf(1)}
	}
	if err := g.run(fams); err != nil {
		return nil, nil, err
	}
	if sample {
		g.train, g.deadline = train, deadline
		if err := g.run(g.growFrom(fams)); err != nil {
			return nil, nil, err
		}
	}
	if g.best == nil {
		return nil, nil, errors.New("strings fit: no candidate was trained within the budget")
	}
	if !spec.Single && len(g.trained) > 0 {
		m, c, err := mixCandidates(append(g.trained, pfa.Unigram(train, g.d)), valid, spec)
		if err != nil {
			return nil, nil, err
		}
		if m != nil {
			if spec.Log != nil {
				fmt.Fprintf(spec.Log, "strings fit: mixture of %d automata, %d states: valid %.5f nats/string, %.4f nats/symbol, %.1fs\n",
					c.Components, c.States, c.Valid, c.ValidPerSymbol, c.Seconds)
			}
			g.add(*c, m)
		}
	}
	for _, m := range append(slices.Collect(maps.Values(sum.FamilyBest)), g.best) {
		m.Alphabet = slices.Clone(data.Alphabet)
		m.Format = StringsModelFormat
	}
	best := g.best
	sum.Seconds = time.Since(began).Seconds()
	best.Fit = sum.untimed()
	if spec.Out != "" {
		if err := best.Save(spec.Out); err != nil {
			return nil, nil, err
		}
	}
	return best, sum, nil
}

// stringsGrid is a fit's state while it tries the candidates: the best
// so far and the trained automata.
type stringsGrid struct {
	spec         StringsFitSpec
	w            *wfa.Model
	train, valid [][]int
	d            int
	deadline     time.Time
	sum          *StringsFitSummary
	best         *StringsModel
	bestLoss     float64
	famLoss      map[string]float64
	trained      []*pfa.Model
}

// add records a candidate and keeps its model if it is the best so far,
// or its family's best.
func (g *stringsGrid) add(c StringsCandidate, m *StringsModel) {
	g.sum.Candidates = append(g.sum.Candidates, c)
	if l, ok := g.famLoss[c.Family]; c.Method != MethodMixture && (!ok || c.Valid < l) {
		g.famLoss[c.Family], g.sum.FamilyBest[c.Family] = c.Valid, m
	}
	if c.Valid < g.bestLoss {
		g.bestLoss, g.best, g.sum.Chosen = c.Valid, m, len(g.sum.Candidates)-1
	}
}

// familyGrid is one family's place in its grid: the index and size of
// its last candidate, its best validation loss, the sizes since it last
// improved, and whether it has stopped; warm, when set, is an automaton of
// n states that its next candidate trains on instead of a new start.
type familyGrid struct {
	name  string
	i, n  int
	warm  *pfa.Model
	best  float64
	since int
	done  bool
}

// run tries the families' sizes in turn, smallest first (the first
// family's first size, the second family's first size, then each one's
// second size, and so on), so that the budget is shared between the
// families. A family stops at the end of its grid (the fixed one, or the
// growing one once StatesPatience sizes in a row do not improve on the
// family's best); when the budget is spent, the next candidate is
// recorded as skipped and the search ends.
func (g *stringsGrid) run(fams []*familyGrid) error {
	for left := len(fams); left > 0; {
		for _, f := range fams {
			if f.done {
				continue
			}
			stop, err := g.next(f)
			if err != nil || stop {
				return err
			}
			if f.done {
				left--
			}
		}
	}
	return nil
}

// next trains family f's next candidate, if it has one; stop reports that
// the budget is spent.
func (g *stringsGrid) next(f *familyGrid) (stop bool, err error) {
	spec := g.spec
	n := f.n
	if f.warm == nil {
		var ok bool
		if n, ok = spec.candidateStates(f.name, g.w, f.i, f.n); !ok {
			f.done = true
			return false, nil
		}
	}
	f.i, f.n = f.i+1, n
	c := StringsCandidate{Family: f.name, States: n, Start: spec.Start, Method: spec.Method}
	switch {
	case f.name == FamilyWFA:
		c.Start, c.Method = StartSpectral, "none"
	case f.warm != nil:
		c.Start = StartGridBest
	}
	if time.Now().After(g.deadline) {
		c.Skipped = "budget"
		g.sum.Candidates = append(g.sum.Candidates, c)
		return true, nil
	}
	var m *StringsModel
	if f.warm != nil {
		began := time.Now()
		m, err = refineCandidate(&c, f.warm, g.train, g.valid, spec, g.deadline)
		c.Seconds = time.Since(began).Seconds()
		f.warm = nil
	} else {
		m, err = fitCandidate(&c, g.w, g.train, g.valid, g.d, spec, g.deadline)
	}
	if err != nil {
		return false, err
	}
	if spec.Log != nil {
		fmt.Fprintf(spec.Log, "strings fit: %s states %d start %s %s: valid %.5f nats/string (start %.5f), %.4f nats/symbol, %.1fs\n",
			c.Family, c.States, c.Start, c.Method, c.Valid, c.StartValid, c.ValidPerSymbol, c.Seconds)
	}
	g.add(c, m)
	if m.PFA != nil && !math.IsInf(c.Valid, 0) {
		g.trained = append(g.trained, m.PFA)
	}
	if c.Valid < f.best {
		f.best, f.since = c.Valid, 0
		return false, nil
	}
	f.since++
	if spec.States == nil && f.since >= spec.StatesPatience {
		f.done = true
	}
	return false, nil
}

// candidateStates returns the number of states of the family's i-th
// candidate (prev: the (i-1)-th) and whether there is one: the WFA's own
// size once for wfa, the fixed grid when States is set, else the growing
// grid.
func (s StringsFitSpec) candidateStates(fam string, w *wfa.Model, i, prev int) (int, bool) {
	switch {
	case fam == FamilyWFA:
		return w.WFA.States, i == 0
	case s.States != nil:
		if i >= len(s.States) {
			return 0, false
		}
		return s.States[i], true
	case i == 0:
		return s.StatesFrom, true
	}
	n := int(math.Ceil(float64(prev) * s.StatesGrowth))
	return n, n <= s.StatesMax
}

// growFrom returns the families' grids on the whole training split after
// the scan on its first GridStrings strings: each family that trained a
// candidate starts from its best one, which it trains on on the whole
// split first (start StartGridBest), then grows from its size as the grid
// does, with its own patience.
func (g *stringsGrid) growFrom(scan []*familyGrid) []*familyGrid {
	var fams []*familyGrid
	for _, f := range scan {
		best := g.sum.FamilyBest[f.name]
		if best == nil || best.PFA == nil {
			continue
		}
		n := best.PFA.States
		i := 1 // the growing grid: any index past the first takes the size after n
		if g.spec.States != nil {
			i = slices.Index(g.spec.States, n)
		}
		fams = append(fams, &familyGrid{name: f.name, i: i, n: n, warm: best.PFA, best: math.Inf(1)})
	}
	return fams
}

// fitCandidate starts and refines one candidate, filling in c.
func fitCandidate(c *StringsCandidate, w *wfa.Model, train, valid [][]int, d int, spec StringsFitSpec, deadline time.Time) (*StringsModel, error) {
	began := time.Now()
	if c.Family == FamilyWFA {
		e := wfa.NewEvalSet(valid)
		c.StartValid = e.ZLL(w.WFA)
		c.Valid, c.TrainStrings = c.StartValid, len(train)
		c.ValidPerSymbol = c.Valid * float64(len(valid)) / symbolsOf(valid)
		c.Seconds = time.Since(began).Seconds()
		return &StringsModel{Family: FamilyWFA, WFA: w}, nil
	}
	kind := pfa.Kind(c.Family)
	rng := rand.New(rand.NewPCG(spec.Seed, uint64(c.States)))
	var start *pfa.Model
	if c.Start == StartRandom {
		start = pfa.Random(kind, c.States, d, rng)
	} else {
		var err error
		if start, err = pfa.SpectralStart(w.WFA, train, kind, c.States, spec.Spectral, rng); err != nil {
			return nil, err
		}
	}
	m, err := refineCandidate(c, start, train, valid, spec, deadline)
	c.Seconds = time.Since(began).Seconds()
	return m, err
}

// refineCandidate trains the automaton start on train by c.Method (EM,
// the gradient, or EM then the gradient) until deadline, filling in c's
// losses and iteration counts.
func refineCandidate(c *StringsCandidate, start *pfa.Model, train, valid [][]int, spec StringsFitSpec, deadline time.Time) (*StringsModel, error) {
	c.TrainStrings = len(train)
	m := start
	tc := spec.Training
	tc.Deadline = deadline
	c.StartValid = math.NaN()
	if c.Method != MethodGradient {
		ec := tc
		ec.Epochs = spec.EMIterations
		ec.Patience = 0
		var rep *pfa.Report
		var err error
		if m, rep, err = pfa.EM(m, train, valid, ec); err != nil {
			return nil, err
		}
		c.StartValid, c.Valid, c.EMIterations = rep.StartValid, rep.BestValid, rep.Epochs
	}
	if c.Method != MethodEM {
		var rep *pfa.Report
		var err error
		if m, rep, err = pfa.Train(m, train, valid, tc); err != nil {
			return nil, err
		}
		if math.IsNaN(c.StartValid) {
			c.StartValid = rep.StartValid
		}
		c.Valid, c.Epochs = min(rep.BestValid, rep.StartValid), rep.Epochs
	}
	c.ValidPerSymbol = c.Valid * float64(len(valid)) / symbolsOf(valid)
	return &StringsModel{Family: c.Family, PFA: m}, nil
}

// mixMinWeight is the smallest weight a component keeps in the mixture
// of the candidates (lighter ones are dropped, the rest renormalised).
const mixMinWeight = 1e-3

// mixCandidates returns the mixture of the automata (the trained ones
// and a one-state unigram that keeps every string possible) with weights
// fitted by EM on the validation strings (100 iterations), and its
// candidate line; nil when fewer than two components keep a weight.
func mixCandidates(trained []*pfa.Model, valid [][]int, spec StringsFitSpec) (*StringsModel, *StringsCandidate, error) {
	began := time.Now()
	uniq, counts := pfa.Compress(valid)
	logp := make([][]float64, len(trained))
	for i, m := range trained {
		logp[i] = m.LogProbs(uniq, spec.Jobs)
	}
	w := pfa.MixtureWeights(logp, counts, 100)
	var comps []*pfa.Model
	var weights []float64
	for i, v := range w {
		if v >= mixMinWeight {
			comps, weights = append(comps, trained[i]), append(weights, v)
		}
	}
	if len(comps) < 2 {
		return nil, nil, nil
	}
	mix, err := pfa.Mixture(comps, weights)
	if err != nil {
		return nil, nil, err
	}
	c := &StringsCandidate{Family: FamilyPFA, States: mix.States, Start: spec.Start, Method: MethodMixture, Components: len(comps)}
	loss := 0.0
	for i, lp := range mix.LogProbs(uniq, spec.Jobs) {
		loss -= counts[i] * lp
	}
	c.StartValid = loss / float64(len(valid))
	c.Valid = c.StartValid
	c.ValidPerSymbol = c.Valid * float64(len(valid)) / symbolsOf(valid)
	c.Seconds = time.Since(began).Seconds()
	return &StringsModel{Family: FamilyPFA, PFA: mix}, c, nil
}

// symbolsOf counts the symbols of seqs, one end per string.
func symbolsOf(seqs [][]int) float64 {
	n := 0
	for _, x := range seqs {
		n += len(x) + 1
	}
	return float64(n)
}
