package runs

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/umps"
)

// The specs below use a trained u-MPS: Model is its model file or run
// directory (rtn umps train -out), required. A regular expression is
// written over the model's alphabet (umps.CompileRegexSymbols); "" is the
// regex of the empty string.

// UMPSSampleSpec draws strings of a regular language from a u-MPS (rtn
// umps sample).
type UMPSSampleSpec struct {
	Model string
	// Regex is the language the strings are drawn from (required; nil:
	// not given).
	Regex *string
	// Count is the number of strings. If 0, it will be defaulted to 10.
	Count int
	// Method is auto (Algorithm 1 for an unambiguous regex on a P_*
	// model, else exact), alg1 or exact. If empty, it will be defaulted
	// to auto.
	Method string
	// Seed draws the strings. If 0, it will be defaulted to 1.
	Seed uint64
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s UMPSSampleSpec) WithDefaults() UMPSSampleSpec {
	if s.Count == 0 {
		s.Count = 10
	}
	s.Method = cmpOr(s.Method, umps.SampleAuto.String())
	if s.Seed == 0 {
		s.Seed = 1
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s UMPSSampleSpec) Validate() error {
	if s.Regex == nil {
		return fieldErr("Regex", nil, "a regular expression over the model's alphabet (required)")
	}
	_, err := umps.ParseSampleMethod(s.Method)
	if err != nil {
		err = fieldErr("Method", s.Method, "auto, alg1 or exact")
	}
	return firstErr(checkUMPSModel(s.Model), err, checkMin("Count", s.Count, 1), checkSeed("Seed", s.Seed))
}

// EstimateMemory counts the strings, each at least a slice header and
// typically a few dozen symbols.
func (s UMPSSampleSpec) EstimateMemory() (MemoryEstimate, error) {
	return MemoryEstimate{What: fmt.Sprintf("{Count} %d", s.Count), Bytes: float64s(float64(s.Count) * (3 + 16))}, nil
}

// UMPSSample is the result of RunUMPSSample.
type UMPSSample struct {
	// Method is the method used (auto resolved) and LengthModel the
	// model's (umps.ModelMeta.LengthModelName).
	Method, LengthModel string
	// Samples are the strings, written by FormatSymbols.
	Samples []string
}

// RunUMPSSample draws the strings of the spec.
func RunUMPSSample(spec UMPSSampleSpec) (*UMPSSample, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := checkEstimate(spec.EstimateMemory()); err != nil {
		return nil, err
	}
	meth, _ := umps.ParseSampleMethod(spec.Method) // Validate checked it
	m, meta, err := umps.LoadModel(spec.Model)
	if err != nil {
		return nil, err
	}
	r, err := umpsRegex(*spec.Regex, meta)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x73616d70))
	out, used, err := meta.Distribution(m).Sample(r, spec.Count, meth, rng)
	if err != nil {
		return nil, err
	}
	res := &UMPSSample{Method: used.String(), LengthModel: meta.LengthModelName()}
	for _, s := range out {
		res.Samples = append(res.Samples, FormatSymbols(s, meta.Alphabet))
	}
	return res, nil
}

// umpsRegex compiles a regex over the model's alphabet; a *FieldError of
// Regex when it does not compile.
func umpsRegex(pattern string, meta umps.ModelMeta) (*umps.Regex, error) {
	if pattern == "" {
		pattern = "()"
	}
	r, err := umps.CompileRegexSymbols(pattern, meta.Alphabet)
	return r, fieldCause("Regex", err)
}

// checkUMPSModel refuses a spec without a model.
func checkUMPSModel(path string) error {
	return checkRequired("Model", path, "a model file or run directory")
}

// UMPSProbSpec asks a u-MPS for the log-probability of a regular language
// or of one string (rtn umps prob): exactly one of Regex and String is
// given (nil: not given).
type UMPSProbSpec struct {
	Model         string
	Regex, String *string
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s UMPSProbSpec) Validate() error {
	if (s.Regex == nil) == (s.String == nil) {
		return fieldErr("Regex, String", nil, "exactly one given")
	}
	return checkUMPSModel(s.Model)
}

// UMPSProb is the result of RunUMPSProb. With Regex: LogProb is
// log P(s in R) and Ambiguous says whether the regex is; with String:
// LogProb is log P(s) under the model's length model, LogProbN log P_n(s)
// and LogProbStar log P_*(s), or StarError why P_* is not defined.
type UMPSProb struct {
	LengthModel string
	LogProb     float64
	Ambiguous   bool
	LogProbN    float64
	LogProbStar float64
	StarError   string
}

// RunUMPSProb computes the log-probabilities of the spec.
func RunUMPSProb(spec UMPSProbSpec) (*UMPSProb, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	m, meta, err := umps.LoadModel(spec.Model)
	if err != nil {
		return nil, err
	}
	t, err := umps.NewTransfer(m)
	if err != nil {
		return nil, err
	}
	dist := meta.Distribution(m)
	res := &UMPSProb{LengthModel: meta.LengthModelName()}
	if spec.Regex != nil {
		r, err := umpsRegex(*spec.Regex, meta)
		if err != nil {
			return nil, err
		}
		if res.LogProb, err = dist.LogProbRegex(r); err != nil {
			return nil, err
		}
		res.Ambiguous = r.Ambiguous()
		return res, nil
	}
	s, err := ParseSymbols(*spec.String, meta.Alphabet)
	if err != nil {
		return nil, fieldCause("String", err)
	}
	lp, err := dist.LogProbs([][]int{s})
	if err != nil {
		return nil, err
	}
	res.LogProb = lp[0]
	if res.LogProbN, err = m.LogProbN(s); err != nil {
		return nil, err
	}
	if res.LogProbStar, err = t.LogProbStar(s); err != nil {
		res.StarError = err.Error()
	}
	return res, nil
}

// UMPSCompleteSpec asks a u-MPS for the distribution of the one symbol
// missing between Prefix and Suffix (rtn umps complete).
type UMPSCompleteSpec struct {
	Model, Prefix, Suffix string
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s UMPSCompleteSpec) Validate() error { return checkUMPSModel(s.Model) }

// UMPSCompletion is the result of RunUMPSComplete: the model's length
// model and each symbol's probability, by name, in the alphabet's order.
type UMPSCompletion struct {
	LengthModel string
	Symbols     []string
	Probs       []float64
}

// RunUMPSComplete computes the distribution of the missing symbol.
func RunUMPSComplete(spec UMPSCompleteSpec) (*UMPSCompletion, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	m, meta, err := umps.LoadModel(spec.Model)
	if err != nil {
		return nil, err
	}
	p, err := ParseSymbols(spec.Prefix, meta.Alphabet)
	if err != nil {
		return nil, fieldCause("Prefix", err)
	}
	s, err := ParseSymbols(spec.Suffix, meta.Alphabet)
	if err != nil {
		return nil, fieldCause("Suffix", err)
	}
	t, err := umps.NewTransfer(m)
	if err != nil {
		return nil, err
	}
	dist, err := t.Complete(p, s)
	if err != nil {
		return nil, err
	}
	return &UMPSCompletion{LengthModel: meta.LengthModelName(), Symbols: meta.Alphabet, Probs: dist}, nil
}

// MaxEvalSeconds bounds the estimated time of UMPSEvalSpec's sampling: a
// run past it is refused rather than left running without output.
const MaxEvalSeconds = 600

// UMPSEvalSpec measures how often a u-MPS's strings of one length are in
// a built-in language, and for Motzkin how often its single-symbol
// completions are (rtn umps eval, EvalUMPS).
type UMPSEvalSpec struct {
	Model string
	// Task is the language: tomita1..tomita7, tomita3-adjacent or motzkin.
	// If empty, it will be defaulted to the model's training data.
	Task string
	// Len is the strings' length. If 0, it will be defaulted to 16.
	Len int
	// Samples is the number of strings (and of completions for motzkin).
	// If 0, it will be defaulted to 1000.
	Samples int
	// Seed draws the strings. If 0, it will be defaulted to 1.
	Seed uint64
	// Progress receives a progress line while the strings are drawn and
	// checked (nil: none).
	Progress io.Writer `json:"-"`
}

// WithDefaults returns the spec with its unset fields at their defaults
// (Task stays empty: the model gives it).
func (s UMPSEvalSpec) WithDefaults() UMPSEvalSpec {
	if s.Len == 0 {
		s.Len = 16
	}
	if s.Samples == 0 {
		s.Samples = 1000
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s UMPSEvalSpec) Validate() error {
	var err error
	if s.Task != "" {
		_, _, err = Membership(s.Task)
	}
	return firstErr(checkUMPSModel(s.Model), fieldCause("Task", err), checkMin("Len", s.Len, 1), checkMin("Samples", s.Samples, 1), checkSeed("Seed", s.Seed))
}

// evalCost is the cost of the spec on a model of bond D and A symbols:
// the memory of Samples strings of length Len (the ints grown by append),
// the Len right environments of D x D, and for motzkin the counting
// table of big integers (Len^2/2 of them) used by the completions; and a
// *TimeError when the sampling would take more than MaxEvalSeconds, from
// costs measured on this code (about 4e-6 D^2 s per position to set up,
// 3e-8 D^2 A s per drawn symbol).
func (s UMPSEvalSpec) evalCost(bond, symbols int, motzkin bool) (MemoryEstimate, error) {
	N, C, D, A := float64(s.Len), float64(s.Samples), float64(bond), float64(symbols)
	est := MemoryEstimate{What: fmt.Sprintf("{Len} %d {Samples} %d", s.Len, s.Samples), Bytes: float64s(2*C*N + 2*N*D*D)}
	if motzkin {
		est.Bytes += 48 * N * N / 2
	}
	if secs := 4e-6*N*D*D + 3e-8*C*N*D*D*A; secs > MaxEvalSeconds {
		return est, &TimeError{What: est.What, Work: fmt.Sprintf("sampling at bond %d", bond), Lower: "{Len} or {Samples}", Seconds: secs, Limit: MaxEvalSeconds}
	}
	return est, nil
}

// RunUMPSEval measures the spec's model on its language.
func RunUMPSEval(spec UMPSEvalSpec) (*UMPSEval, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	m, meta, err := umps.LoadModel(spec.Model)
	if err != nil {
		return nil, err
	}
	if spec.Task == "" {
		if _, _, err := Membership(meta.Data); err != nil {
			return nil, errors.Errorf("%s was trained on %q, not a built-in language: give a task (%v)", spec.Model, meta.Data, err)
		}
		spec.Task = meta.Data
	}
	if err := CheckAlphabet(spec.Task, meta.Alphabet); err != nil {
		return nil, fieldCause("Task", err)
	}
	if err := checkEstimate(spec.evalCost(m.Bond, m.Symbols, spec.Task == "motzkin")); err != nil {
		return nil, err
	}
	start := time.Now()
	stop := startPhase(spec.Progress, fmt.Sprintf("umps eval: %d strings of length %d", spec.Samples, spec.Len))
	ev, err := EvalUMPS(m, spec.Task, spec.Len, spec.Samples, rand.New(rand.NewPCG(spec.Seed, 0x6576616c)))
	stop()
	if err != nil {
		return nil, err
	}
	ev.Seconds = time.Since(start).Seconds()
	return ev, nil
}

// UMPSScoreSpec scores a u-MPS on test strings (rtn umps score,
// ScoreUMPS).
type UMPSScoreSpec struct {
	// Model is the model; Test the strings (required), read in Format;
	// Solution a PAutomaC solution file of Test (empty: no perplexity).
	Model, Test, Solution string
	Format                datasets.StringFormat
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s UMPSScoreSpec) Validate() error {
	return firstErr(checkUMPSModel(s.Model), checkRequired("Test", s.Test, "a string file"), checkStringFormat(s.Format))
}

// RunUMPSScore scores the spec's model on its test strings.
func RunUMPSScore(spec UMPSScoreSpec) (*UMPSScore, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	m, meta, err := umps.LoadModel(spec.Model)
	if err != nil {
		return nil, err
	}
	return ScoreUMPS(m, meta, spec.Test, spec.Format, spec.Solution)
}
