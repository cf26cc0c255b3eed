package runs

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
)

// MaxWFABasis bounds the basis lengths LRows and LColumns of the WFA
// specs: the Hankel blocks grow as the alphabet to that power.
const MaxWFABasis = 32

// WFALearnSpec is a spectral WFA learned from a string file (rtn wfa
// learn, wfa.Fit): with Rank set, one configuration; else the Hankel
// variant, basis and rank selected on held-out strings, and a mixture of
// the best candidates when it pays.
type WFALearnSpec struct {
	// Train is the string file (required), read in Format (PAutomaC, the
	// zero value, by default).
	Train  string
	Format datasets.StringFormat
	// Rank is the number of states; 0 selects the configuration.
	Rank int
	// Hankel is the Hankel variant: classic, prefix, suffix or factor.
	// If empty: classic with Rank, classic and factor when selecting.
	Hankel string
	// LRows is the longest basis prefix. If 0: 5 with Rank, {3, 4, 5}
	// when selecting.
	LRows int
	// LColumns is the longest basis suffix, with Rank only (the selection
	// uses lcolumns = lrows). If 0, it will be defaulted to LRows.
	LColumns int
	// The selection's settings, refused with Rank (no selection runs):
	// the cross-validation Folds (if 0, 1: ValidFraction of the strings
	// held out once), the held-out share ValidFraction (if 0, 0.2; with
	// Folds 1 only), the criterion Select (zll, nll, perplexity or loo; if
	// empty, zll), the largest Mixture of the best candidates (if 0, 8;
	// zll only) and the standard errors MixtureSE its gain must pass (if
	// 0, 1; Off or negative: any gain; zll only). See wfa.Config.
	Folds         int
	ValidFraction float64
	Select        string
	Mixture       int
	MixtureSE     float64
	// Seed draws the validation split and the randomized SVDs. If 0, it
	// will be defaulted to 1.
	Seed uint64
	// Out is the model file written (empty: none).
	Out string
	// Progress receives a progress line while the model is learned (nil:
	// none).
	Progress io.Writer `json:"-"`
	// Candidates receives a line per selection candidate with every
	// criterion's figure (nil: none); refused with Rank.
	Candidates io.Writer `json:"-"`
}

// WithDefaults returns the spec with its unset fields at their defaults,
// those of wfa.Config. The selection's settings stay unset with Rank, as
// do ValidFraction with several Folds and Mixture and MixtureSE with a
// criterion other than zll: they would have no effect.
func (s WFALearnSpec) WithDefaults() WFALearnSpec {
	d := wfa.Config{}.WithDefaults()
	if s.Seed == 0 {
		s.Seed = d.Seed
	}
	if s.Rank > 0 {
		if s.LRows == 0 {
			s.LRows = d.Spec.Rows
		}
		if s.LColumns == 0 {
			s.LColumns = s.LRows
		}
		return s
	}
	if s.Folds == 0 {
		s.Folds = d.Folds
	}
	if s.ValidFraction == 0 && s.Folds == 1 {
		s.ValidFraction = d.ValidFraction
	}
	s.Select = cmpOr(s.Select, d.Criterion.String())
	if s.Select != d.Criterion.String() {
		return s
	}
	if s.Mixture == 0 {
		s.Mixture = d.Mixture
	}
	if s.MixtureSE == 0 {
		s.MixtureSE = d.MixtureSE
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s WFALearnSpec) Validate() error {
	if s.Rank == 0 && s.LColumns != 0 {
		return fieldErr("LColumns", s.LColumns, "0 without {Rank}: the selection uses lcolumns = lrows")
	}
	if _, err := s.config(); err != nil {
		return err
	}
	return firstErr(
		checkRequired("Train", s.Train, "a string file"),
		checkStringFormat(s.Format),
		checkMin("Rank", s.Rank, 0),
		checkRange("LRows", s.LRows, 0, MaxWFABasis),
		checkRange("LColumns", s.LColumns, 0, MaxWFABasis),
		checkSeed("Seed", s.Seed),
		s.checkSelection(),
	)
}

// checkSelection checks the selection's settings: none with Rank, a
// held-out share with one fold only, a mixture with zll only. Their zero
// is unset (WithDefaults fills it where it applies), so a spec before
// WithDefaults passes with them at 0.
func (s WFALearnSpec) checkSelection() error {
	if s.Rank > 0 {
		const fixed = "unset with {Rank} (a selection setting: a fixed rank selects nothing)"
		return firstErr(
			checkUnset("Folds", s.Folds, fixed),
			checkUnset("ValidFraction", s.ValidFraction, fixed),
			checkUnset("Select", s.Select, fixed),
			checkUnset("Mixture", s.Mixture, fixed),
			checkUnset("MixtureSE", s.MixtureSE, fixed),
			checkUnset("Candidates", s.Candidates != nil, fixed),
		)
	}
	if err := checkFolds(s.Folds, s.ValidFraction); err != nil {
		return err
	}
	if s.Select != "" && s.Select != wfa.ValidZLL.String() {
		const zll = "unset with {Select} %s (a mixture is formed under zll only)"
		return firstErr(checkUnset("Mixture", s.Mixture, zll, s.Select), checkUnset("MixtureSE", s.MixtureSE, zll, s.Select))
	}
	if s.Mixture != 0 {
		if err := checkMin("Mixture", s.Mixture, 1); err != nil {
			return err
		}
	}
	return checkFinite("MixtureSE", s.MixtureSE)
}

// config is the wfa.Config of the spec, or a *FieldError of Hankel or
// Select.
func (s WFALearnSpec) config() (wfa.Config, error) {
	cfg, err := wfaFitConfig(s.Hankel, s.LRows, s.Folds, s.ValidFraction, s.Seed)
	if err != nil {
		return cfg, err
	}
	cfg.Spec.Rank, cfg.Spec.Cols = s.Rank, s.LColumns
	if s.Select != "" {
		if cfg.Criterion, err = wfa.ParseCriterion(s.Select); err != nil {
			return cfg, fieldCause("Select", err)
		}
	}
	cfg.Mixture, cfg.MixtureSE = s.Mixture, s.MixtureSE
	if cfg.Criterion != wfa.ValidZLL {
		cfg.Mixture = 1 // only zll forms mixtures
	}
	return cfg, nil
}

// wfaFitConfig is the wfa.Config of the settings learn and sweep share.
func wfaFitConfig(hankel string, lrows, folds int, valid float64, seed uint64) (wfa.Config, error) {
	cfg := wfa.Config{Folds: folds, ValidFraction: valid, Seed: seed,
		Spec: wfa.Spec{Variant: spectral.Classic, Rows: lrows, Cols: lrows}}
	if hankel != "" {
		v, err := spectral.ParseHankelVariant(hankel)
		if err != nil {
			return cfg, fieldCause("Hankel", err)
		}
		cfg.Spec.Variant = v
		cfg.Variants = []spectral.HankelVariant{v}
	}
	if lrows > 0 {
		cfg.Bases = []int{lrows}
	}
	return cfg, nil
}

// EstimateMemory counts, from the alphabet size the header of a counted
// Train file declares, the automata of the candidates and the result
// (wfaFitBytes). It reads the file's first line only.
func (s WFALearnSpec) EstimateMemory() (MemoryEstimate, error) {
	cfg, err := s.config()
	if err != nil {
		return MemoryEstimate{}, err
	}
	return wfaFitBytes(s.Train, s.Format, cfg), nil
}

// checkFolds checks the selection's folds and held-out share: a share in
// (0, 1) with one fold, none with several (each fold holds out its own);
// 0 is unset for both.
func checkFolds(folds int, valid float64) error {
	if folds != 0 {
		if err := checkMin("Folds", folds, 1); err != nil {
			return err
		}
	}
	if folds > 1 {
		return checkUnset("ValidFraction", valid, "unset with {Folds} %d (each of the %d folds holds out 1/%d of the strings)", folds, folds, folds)
	}
	if valid != 0 {
		return checkShare("ValidFraction", valid)
	}
	return nil
}

// WFASweepSpec lists the selection's candidates of wfa.Fit on a string
// file with every criterion's figure (rtn wfa sweep), and with Test and
// Solution each candidate's test perplexity (an oracle view: the
// selection never sees it).
type WFASweepSpec struct {
	// Train is the string file (required), read in Format.
	Train  string
	Format datasets.StringFormat
	// Hankel, LRows (lrows = lcolumns), Ranks: the grid. If empty or 0,
	// wfa.Config's: classic and factor, {3, 4, 5}, 2..30, 35, 40, 50.
	Hankel string
	LRows  int
	Ranks  []int
	// Folds, ValidFraction and Seed are as in WFALearnSpec (ValidFraction
	// with one fold only).
	Folds         int
	ValidFraction float64
	Seed          uint64
	// MaxRuledOut is the largest share of validation strings a candidate
	// may give a value <= 0. If 0, it will be defaulted to 0.5.
	MaxRuledOut float64
	// Test and Solution, given together, are test strings and their
	// PAutomaC solution file.
	Test, Solution string
	// Progress receives a progress line while the grid runs (nil: none).
	Progress io.Writer `json:"-"`
}

// WithDefaults returns the spec with its unset fields at their defaults,
// those of wfa.Config.
func (s WFASweepSpec) WithDefaults() WFASweepSpec {
	d := wfa.Config{}.WithDefaults()
	if s.Folds == 0 {
		s.Folds = d.Folds
	}
	if s.ValidFraction == 0 && s.Folds == 1 {
		s.ValidFraction = d.ValidFraction
	}
	if s.MaxRuledOut == 0 {
		s.MaxRuledOut = d.MaxFloored
	}
	if s.Seed == 0 {
		s.Seed = d.Seed
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s WFASweepSpec) Validate() error {
	if (s.Test == "") != (s.Solution == "") {
		return fieldErr("Test, Solution", nil, "given together: the test column needs both")
	}
	for i, r := range s.Ranks {
		if r < 1 {
			return fieldErr("Ranks", r, ">= 1 each")
		}
		if slices.Contains(s.Ranks[:i], r) {
			return fieldErr("Ranks", r, "distinct (%d appears twice)", r)
		}
	}
	_, err := s.config()
	return firstErr(
		checkRequired("Train", s.Train, "a string file"),
		checkStringFormat(s.Format),
		checkRange("LRows", s.LRows, 0, MaxWFABasis),
		checkFolds(s.Folds, s.ValidFraction),
		checkUnit("MaxRuledOut", s.MaxRuledOut),
		checkSeed("Seed", s.Seed),
		err,
	)
}

// config is the wfa.Config of the sweep: every figure, no mixture.
func (s WFASweepSpec) config() (wfa.Config, error) {
	cfg, err := wfaFitConfig(s.Hankel, s.LRows, s.Folds, s.ValidFraction, s.Seed)
	cfg.MaxFloored, cfg.AllFigures, cfg.Mixture, cfg.Ranks = s.MaxRuledOut, true, 1, s.Ranks
	return cfg, err
}

// EstimateMemory is WFALearnSpec's for the sweep's grid.
func (s WFASweepSpec) EstimateMemory() (MemoryEstimate, error) {
	cfg, err := s.config()
	if err != nil {
		return MemoryEstimate{}, err
	}
	return wfaFitBytes(s.Train, s.Format, cfg), nil
}

// wfaFitBytes estimates, from the header of a counted string file (the
// alphabet size it declares) and the learning configuration, the memory
// the automata of wfa.Fit need before the file is read: a transition
// matrix of R x R per symbol for the candidates (R the largest rank
// tried, several alive at once, and no more than the basis prefixes the
// alphabet allows) and of the result (R times the mixture's size when
// selecting), and each symbol's row offsets in the sparse Hankel blocks.
// A lines file declares no alphabet: its symbols are the file's own
// tokens, bounded by its size; it counts nothing, as does a file whose
// header does not parse (the reader reports it).
func wfaFitBytes(path string, fm datasets.StringFormat, cfg wfa.Config) MemoryEstimate {
	if fm == datasets.Lines || path == "" {
		return MemoryEstimate{}
	}
	symbols, ok := countedAlphabet(path)
	if !ok {
		return MemoryEstimate{}
	}
	// A rank is at most the Hankel matrix's, at most its rows: the
	// prefixes up to the longest basis length over the alphabet.
	basis := 5
	if cfg.Spec.Rank > 0 && cfg.Spec.Rows > 0 {
		basis = cfg.Spec.Rows
	} else if len(cfg.Bases) > 0 {
		basis = slices.Max(cfg.Bases)
	}
	rows, power := 1.0, 1.0
	for range basis {
		power *= float64(symbols)
		rows += power
	}
	r := cfg.Spec.Rank
	what := fmt.Sprintf("{Rank} %d", r)
	if r == 0 {
		r = 50
		if len(cfg.Ranks) > 0 {
			r = slices.Max(cfg.Ranks)
		}
		what = fmt.Sprintf("ranks up to %d", r)
		if cfg.Mixture > 1 {
			what += fmt.Sprintf(" and {Mixture} %d", cfg.Mixture)
		}
	}
	rf := min(float64(r), rows)
	states := rf
	if cfg.Spec.Rank == 0 {
		states *= float64(max(cfg.Mixture, 1))
	}
	perSymbol := float64s(64 + 4*rf*rf + 2*states*states)
	return MemoryEstimate{What: fmt.Sprintf("{Train} %s (alphabet %d) with %s", path, symbols, what), Bytes: float64(symbols) * perSymbol}
}

// countedAlphabet reads the alphabet size from the header line "N d" of
// a PAutomaC or SPiCe file. A pipe or another file that is not regular is
// not opened: it can be read once only, by the reader.
func countedAlphabet(path string) (int, bool) {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return 0, false
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, false
	}
	fields := strings.Fields(sc.Text())
	if len(fields) != 2 {
		return 0, false
	}
	d, err := strconv.Atoi(fields[1])
	return d, err == nil && d > 0
}

// WFAFinetuneSpec fine-tunes a spectral WFA, as a linear 2-RNN, by
// maximum likelihood on a string file (rtn wfa finetune, wfa.Finetune).
type WFAFinetuneSpec struct {
	// Model is the model file to start from (required, rtn wfa learn
	// -out); Train the string file (required), read in Format.
	Model, Train string
	Format       datasets.StringFormat
	// Out is the fine-tuned model file written (empty: none).
	Out string
	// Finetune sets the training; its zero fields take wfa's defaults
	// (Adam at 3e-5, batches of 64, 20 epochs, patience 1, a tenth held
	// out, the zll check at 2 standard errors; CheckSE is refused with the
	// check none, Off asks for any gain). With Resume and no
	// Train.CheckpointPath the checkpoints go on to the Resume file.
	Finetune wfa.FinetuneConfig
}

// WithDefaults returns the spec with its unset fields at wfa's defaults;
// Finetune.CheckSE stays unset with the check none (it has no effect).
func (s WFAFinetuneSpec) WithDefaults() WFAFinetuneSpec {
	se := s.Finetune.CheckSE
	s.Finetune = s.Finetune.WithDefaults()
	if s.Finetune.Check == wfa.CheckNone {
		s.Finetune.CheckSE = se
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s WFAFinetuneSpec) Validate() error {
	c := s.Finetune
	if !contains(optim.Names(), c.Optimizer) {
		return fieldErr("Finetune.Optimizer", c.Optimizer, "a registered optimizer (%s)", strings.Join(optim.Names(), ", "))
	}
	if c.Check != wfa.CheckZLL && c.Check != wfa.CheckNone {
		return fieldErr("Finetune.Check", c.Check, "%s or %s", wfa.CheckZLL, wfa.CheckNone)
	}
	if c.Check == wfa.CheckNone {
		if err := checkUnset("Finetune.CheckSE", c.CheckSE, "unset with {Finetune.Check} %s (it sets the %s check)", wfa.CheckNone, wfa.CheckZLL); err != nil {
			return err
		}
	}
	return firstErr(
		checkRequired("Model", s.Model, "a model file"),
		checkRequired("Train", s.Train, "a string file"),
		checkStringFormat(s.Format),
		checkPositive("Finetune.Optim.LR", c.Optim.LR),
		checkNonNeg("Finetune.Optim.ClipNorm", c.Optim.ClipNorm),
		checkMin("Finetune.Epochs", c.Epochs, 1),
		checkMin("Finetune.BatchSize", c.BatchSize, 1),
		checkMin("Finetune.Patience", c.Patience, 1),
		checkShare("Finetune.ValidFraction", c.ValidFraction),
		checkSeed("Finetune.Seed", c.Seed),
		checkFinite("Finetune.CheckSE", c.CheckSE),
	)
}

// checkRequired refuses an empty path.
func checkRequired(field, path, what string) error {
	if path == "" {
		return fieldErr(field, nil, "%s (required)", what)
	}
	return nil
}

// checkStringFormat refuses a string format datasets does not know.
func checkStringFormat(f datasets.StringFormat) error {
	if f != datasets.PAutomaC && f != datasets.SPiCe && f != datasets.Lines {
		return fieldErr("Format", int(f), "pautomac, spice or lines")
	}
	return nil
}

// checkShare refuses a share outside (0, 1).
func checkShare(field string, v float64) error {
	if !(v > 0 && v < 1) {
		return fieldErr(field, v, "in (0, 1)")
	}
	return nil
}

// checkUnit refuses a share outside [0, 1].
func checkUnit(field string, v float64) error {
	if !(v >= 0 && v <= 1) {
		return fieldErr(field, v, "in [0, 1]")
	}
	return nil
}

// checkFinite refuses NaN and the infinities.
func checkFinite(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fieldErr(field, v, "a finite number")
	}
	return nil
}
