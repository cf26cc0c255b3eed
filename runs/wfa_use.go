package runs

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/floats"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
)

// The specs below use a learned WFA model file (rtn wfa learn -out). An
// output that may go to standard output (Out "" or "-") is written to the
// spec's Stdout.

// WFAScoreSpec scores a WFA on test strings (rtn wfa score): the log-loss
// in nats per symbol and, with Solution, the PAutomaC perplexity.
type WFAScoreSpec struct {
	// Model is the model file and Test the strings (both required), read
	// in Format; Solution is the PAutomaC solution file of Test (empty:
	// no perplexity).
	Model, Test, Solution string
	Format                datasets.StringFormat
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s WFAScoreSpec) Validate() error {
	return firstErr(checkRequired("Model", s.Model, "a model file"), checkRequired("Test", s.Test, "a string file"), checkStringFormat(s.Format))
}

// WFAScoreReport is the result of ScoreWFA.
type WFAScoreReport struct {
	// Strings is the number of test strings.
	Strings int
	// LogLoss is wfa.LogLoss's figure (nats per symbol, not finite for a
	// model of huge or non-finite weights) and Normaliser its normaliser:
	// "sample" when the model has no usable mass.
	LogLoss    float64
	Normaliser string
	// Perplexity is the PAutomaC score, with Solution (NaN without).
	Perplexity float64
}

// ScoreWFA scores the spec's model on its test strings.
func ScoreWFA(spec WFAScoreSpec) (*WFAScoreReport, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	m, err := wfa.Load(spec.Model)
	if err != nil {
		return nil, err
	}
	s, err := datasets.ReadStringsFile(spec.Test, spec.Format, m.Alphabet)
	if err != nil {
		return nil, err
	}
	if len(s.Seqs) == 0 {
		return nil, errors.Errorf("%s: no strings to score", spec.Test)
	}
	var sol []float64
	if spec.Solution != "" {
		if sol, err = readSolution(spec.Solution, spec.Test, len(s.Seqs)); err != nil {
			return nil, err
		}
		if sum := floats.Sum(sol); !(sum > 0) || math.IsInf(sum, 0) {
			return nil, errors.Errorf("%s: the probabilities sum to %g, want a positive finite sum", spec.Solution, sum)
		}
	}
	ll, err := wfa.LogLoss(m, s.Seqs)
	if err != nil {
		return nil, err
	}
	rep := &WFAScoreReport{Strings: len(s.Seqs), LogLoss: ll.NatsPerSymbol, Normaliser: ll.Normaliser, Perplexity: math.NaN()}
	if sol != nil {
		if rep.Perplexity, err = wfa.Score(m, s.Seqs, sol); err != nil {
			return nil, errors.Wrap(err, spec.Model) // the solution was checked above
		}
	}
	return rep, nil
}

// WFARankSpec ranks the likeliest next symbols after each prefix of a
// SPiCe prefix file (rtn wfa rank) and, with Targets, scores the rankings
// by NDCG@5.
type WFARankSpec struct {
	// Model is the model file and Prefixes the prefixes (both required),
	// read in Format; Targets is a SPiCe target file (empty: no score).
	Model, Prefixes, Targets string
	Format                   datasets.StringFormat
	// K is the number of symbols ranked per prefix. If 0, it will be
	// defaulted to 5.
	K int
	// Out is the rankings file, one line per prefix (RankEnd for the end
	// of the string); "" writes them to Stdout without Targets, and
	// nowhere with Targets; "-" writes them to Stdout.
	Out    string
	Stdout io.Writer
}

// RankEnd is what WFARankSpec's rankings write for the end of the string.
var RankEnd = strconv.Itoa(wfa.End)

// WithDefaults returns the spec with its unset fields at their defaults.
func (s WFARankSpec) WithDefaults() WFARankSpec {
	if s.K == 0 {
		s.K = 5
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s WFARankSpec) Validate() error {
	if s.Out == "-" && s.Targets != "" {
		return fieldErr("Out", s.Out, "a file with {Targets}: the rankings and the score would share standard output")
	}
	return firstErr(checkRequired("Model", s.Model, "a model file"), checkRequired("Prefixes", s.Prefixes, "a prefix file"),
		checkStringFormat(s.Format), checkMin("K", s.K, 1))
}

// WFARankReport is the result of RankWFA and of RunStringsRank.
type WFARankReport struct {
	// Prefixes is the number of prefixes ranked.
	Prefixes int
	// NDCG5 is the score of the rankings, with Targets.
	NDCG5 float64
}

// RankWFA ranks the next symbols of the spec's prefixes and writes the
// rankings. With Targets they are scored before anything is written, so
// that a targets file that does not match the prefixes leaves no
// rankings file behind.
func RankWFA(spec WFARankSpec) (*WFARankReport, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := CheckStdoutOrFile("{Out}", spec.Out, spec.Model, spec.Prefixes, spec.Targets); err != nil {
		return nil, err
	}
	var t []wfa.Target
	if spec.Targets != "" {
		var err error
		if t, err = wfa.ReadTargetsFile(spec.Targets); err != nil {
			return nil, err
		}
	}
	m, err := wfa.Load(spec.Model)
	if err != nil {
		return nil, err
	}
	if slices.Contains(m.Alphabet, RankEnd) {
		return nil, errors.Errorf("%s: the alphabet holds a symbol named %s, which rank writes for the end of the string", spec.Model, RankEnd)
	}
	s, err := datasets.ReadStringsFile(spec.Prefixes, spec.Format, m.Alphabet)
	if err != nil {
		return nil, err
	}
	if spec.Targets != "" && len(t) != len(s.Seqs) {
		return nil, errors.Errorf("%s: %d targets for the %d prefixes of %s", spec.Targets, len(t), len(s.Seqs), spec.Prefixes)
	}
	ranks, err := wfa.Rank(m, s.Seqs, spec.K)
	if err != nil {
		return nil, err
	}
	return reportRanks(ranks, m.Alphabet, t, spec.Targets, spec.Out, spec.Stdout)
}

// reportRanks scores ranks (of the symbols of alphabet) by NDCG@5 against
// t, with targets, and writes them to out (or stdout; with targets and no
// out, nowhere): one line per prefix, the symbols' names, RankEnd for the
// end of the string.
func reportRanks(ranks [][]int, alphabet []string, t []wfa.Target, targets, out string, stdout io.Writer) (*WFARankReport, error) {
	rep := &WFARankReport{Prefixes: len(ranks)}
	if targets != "" {
		var err error
		if rep.NDCG5, err = wfa.NDCG5(SpiceRanks(ranks, alphabet), t); err != nil {
			return nil, err
		}
		if out == "" {
			return rep, nil
		}
	}
	return rep, WriteOut(out, stdout, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		for _, r := range ranks {
			f := make([]string, len(r))
			for i, v := range r {
				f[i] = RankName(alphabet, v)
			}
			fmt.Fprintln(bw, strings.Join(f, " "))
		}
		return bw.Flush()
	})
}

// RankName is what a ranking writes for the symbol id: its name in
// alphabet, or RankEnd for wfa.End.
func RankName(alphabet []string, id int) string {
	if id == wfa.End {
		return RankEnd
	}
	return alphabet[id]
}

// SpiceRanks turns rankings of symbol ids into the symbols of a SPiCe
// target file, which are numbers: the number a symbol is named by (symbol
// "7" is 7), wfa.End for the end. A symbol whose name is not a number
// becomes wfa.End-1, which no target holds, so NDCG5 scores the rankings
// as SPiCe scores the lines RankWFA writes.
func SpiceRanks(ranks [][]int, alphabet []string) [][]int {
	number := make([]int, len(alphabet))
	for i, a := range alphabet {
		n, ok := datasets.SymbolNumber(a)
		if !ok {
			n = wfa.End - 1
		}
		number[i] = n
	}
	out := make([][]int, len(ranks))
	for i, r := range ranks {
		out[i] = make([]int, len(r))
		for j, id := range r {
			out[i][j] = wfa.End
			if id != wfa.End {
				out[i][j] = number[id]
			}
		}
	}
	return out
}

// WriteOut writes through fn to path atomically, or to stdout when path
// is empty or "-" (nothing when stdout is nil).
func WriteOut(path string, stdout io.Writer, fn func(io.Writer) error) error {
	if path == "" || path == "-" {
		if stdout == nil {
			return nil
		}
		return fn(stdout)
	}
	return params.WriteFileAtomic(path, fn)
}

// SampleOptions are the settings of a sampler of strings, shared by
// WFASampleSpec and StringsSampleSpec.
type SampleOptions struct {
	// Model is the model file (required).
	Model string
	// Count is the number of strings drawn. If 0, it will be defaulted to
	// 10.
	Count int
	// MaxLen is the longest string: a draw that does not end within it is
	// drawn again. If 0, it will be defaulted to 100.
	MaxLen int
	// Seed draws the strings. If 0, it will be defaulted to 1.
	Seed uint64
	// Format is the output's format: PAutomaC and SPiCe write symbols as
	// numbers, Lines any name.
	Format datasets.StringFormat
	// Out is the output file ("" or "-": standard output).
	Out string
}

// WithDefaults returns the options with their unset fields at their
// defaults.
func (s SampleOptions) WithDefaults() SampleOptions {
	if s.Count == 0 {
		s.Count = 10
	}
	if s.MaxLen == 0 {
		s.MaxLen = 100
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	return s
}

// Validate checks the options' values (a *FieldError); it reads no file.
func (s SampleOptions) Validate() error {
	return firstErr(checkRequired("Model", s.Model, "a model file"), checkMin("Count", s.Count, 1), checkMin("MaxLen", s.MaxLen, 1),
		checkSeed("Seed", s.Seed), checkStringFormat(s.Format))
}

// WFASampleSpec draws strings from a WFA (rtn wfa sample).
type WFASampleSpec struct {
	SampleOptions
	Stdout io.Writer
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s WFASampleSpec) WithDefaults() WFASampleSpec {
	s.SampleOptions = s.SampleOptions.WithDefaults()
	return s
}

// EstimateMemory counts the strings drawn, each of MaxLen + 1 ints at
// most, twice over for the growth of their slices.
func (s WFASampleSpec) EstimateMemory() (MemoryEstimate, error) {
	return MemoryEstimate{What: fmt.Sprintf("{Count} %d {MaxLen} %d", s.Count, s.MaxLen),
		Bytes: float64s(2 * float64(s.Count) * (float64(s.MaxLen) + 1))}, nil
}

// WFASampleReport is the outcome of SampleWFA.
type WFASampleReport struct {
	// Mass is false when the model has no usable mass (spectral radius
	// >= 1): its strings are then drawn from next-symbol weights that do
	// not describe a distribution.
	Mass bool
	// Redrawn is the number of draws that did not end within MaxLen and
	// were drawn again (drawWithin).
	Redrawn int
}

// SampleWFA draws the spec's strings, by the samplers' rule for MaxLen
// (drawWithin: a draw that does not end within MaxLen is redrawn, a
// *MaxLenError when too few do), and writes them.
func SampleWFA(spec WFASampleSpec) (rep WFASampleReport, err error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return rep, err
	}
	if err := CheckStdoutOrFile("{Out}", spec.Out, spec.Model); err != nil {
		return rep, err
	}
	if err := checkEstimate(spec.EstimateMemory()); err != nil {
		return rep, err
	}
	m, err := wfa.Load(spec.Model)
	if err != nil {
		return rep, err
	}
	if spec.Format != datasets.Lines {
		for _, a := range m.Alphabet {
			if _, ok := datasets.SymbolNumber(a); !ok {
				return rep, fieldCause("Format", errors.Errorf("%s writes symbols as numbers and %s has a symbol named %q (lines writes any name)", spec.Format, spec.Model, a))
			}
		}
	}
	if _, err := m.WFA.Stop(); err != nil {
		return rep, errors.WithMessage(err, spec.Model)
	}
	r, err := m.WFA.SpectralRadius()
	rep.Mass = err == nil && r < 1
	rng := rand.New(rand.NewPCG(spec.Seed, 0))
	s := datasets.Symbols{Alphabet: m.Alphabet}
	s.Seqs, rep.Redrawn, err = drawWithin(spec.Count, spec.MaxLen, func(limit int) ([]int, error) { return m.WFA.Sample(rng, limit) }, nil)
	if err != nil {
		return rep, err
	}
	return rep, WriteOut(spec.Out, spec.Stdout, func(w io.Writer) error { return datasets.WriteStrings(w, s, spec.Format) })
}

// WFAMinimizeSpec writes the minimal WFA of a model (rtn wfa minimize,
// spectral.Minimize).
type WFAMinimizeSpec struct {
	// Model is the model file and Out the minimal model's (both
	// required).
	Model, Out string
	// Tol is the relative tolerance of the rank decisions, in (0, 1). If
	// 0, it will be defaulted to 1e-9.
	Tol float64
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s WFAMinimizeSpec) WithDefaults() WFAMinimizeSpec {
	if s.Tol == 0 {
		s.Tol = 1e-9
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s WFAMinimizeSpec) Validate() error {
	if !(s.Tol > 0 && s.Tol < 1) {
		return fieldErr("Tol", s.Tol, "in (0, 1)")
	}
	return firstErr(checkRequired("Model", s.Model, "a model file"), checkRequired("Out", s.Out, "the model file to write"))
}

// MinimizeWFA writes the minimal WFA of the spec's model and returns the
// numbers of states before and after.
func MinimizeWFA(spec WFAMinimizeSpec) (before, after int, err error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return 0, 0, err
	}
	if err := CheckOutput("{Out}", spec.Out, spec.Model); err != nil {
		return 0, 0, err
	}
	m, err := wfa.Load(spec.Model)
	if err != nil {
		return 0, 0, err
	}
	small, err := spectral.Minimize(m.WFA, spec.Tol)
	if err != nil {
		return 0, 0, err
	}
	before = m.WFA.States
	m.WFA = small
	return before, small.States, m.Save(spec.Out)
}

// WFADotSpec writes a WFA as a Graphviz DOT graph (rtn wfa dot).
type WFADotSpec struct {
	// Model is the model file (required).
	Model string
	// MinWeight leaves out the transitions whose weight's magnitude is
	// below it (0: none left out).
	MinWeight float64
	// Out is the DOT file ("" or "-": Stdout).
	Out    string
	Stdout io.Writer
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s WFADotSpec) Validate() error {
	return firstErr(checkRequired("Model", s.Model, "a model file"), checkNonNeg("MinWeight", s.MinWeight))
}

// DotWFA writes the spec's model as a DOT graph.
func DotWFA(spec WFADotSpec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if err := CheckStdoutOrFile("{Out}", spec.Out, spec.Model); err != nil {
		return err
	}
	m, err := wfa.Load(spec.Model)
	if err != nil {
		return err
	}
	return WriteOut(spec.Out, spec.Stdout, func(w io.Writer) error { return m.DOT(w, spec.MinWeight) })
}
