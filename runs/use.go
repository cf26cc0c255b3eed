package runs

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/params"
)

// DataFormats lists the values of EvalSpec.Format and PredictSpec.Format:
// text (one sequence per line, each character a symbol, as TrainSpec's
// DataFile), lines (white-space-separated symbols), pautomac and spice
// (datasets.StringFormat; symbol i is named "i").
var DataFormats = []string{"text", "lines", "pautomac", "spice"}

// EvalSpec evaluates a trained model (rtn eval). Each field's comment
// gives its default.
type EvalSpec struct {
	// Model is a model directory written by Train (TrainSpec.Out).
	// Required.
	Model string
	// DataFile is a file of sequences to evaluate. If DataFile is empty,
	// the model is evaluated on the test split of its training data,
	// made again from the seed the model records (layers.DataSource), and
	// the loss is Train's TestLoss bit for bit.
	DataFile string
	// Format is DataFile's format, one of DataFormats. Default "text".
	Format string
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s EvalSpec) WithDefaults() EvalSpec {
	s.Format = cmpOr(s.Format, "text")
	return s
}

// Validate checks the spec's values (a *FieldError).
func (s EvalSpec) Validate() error {
	return firstErr(requireModelDir(s.Model), checkFormat(s.Format))
}

// EstimateMemory counts the model's parameters (modelEstimate).
func (s EvalSpec) EstimateMemory() (MemoryEstimate, error) { return modelEstimate(s.Model), nil }

// requireModelDir refuses an empty Model.
func requireModelDir(dir string) error {
	if dir == "" {
		return fieldErr("Model", nil, "a model directory (required)")
	}
	return nil
}

// checkFormat checks a data format.
func checkFormat(f string) error {
	if !slices.Contains(DataFormats, f) {
		return fieldCause("Format", errors.Errorf("unknown data format %q (known: %s)", f, strings.Join(DataFormats, ", ")))
	}
	return nil
}

// cmpOr is s, or def when s is empty.
func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// modelEstimate counts the memory of the model a model directory
// describes (its model.json), before it is loaded: its parameters
// (layers.ModelConfig.Size) three times (the values, the arrays read from
// model.npz, and the executor's copies and buffers). A model.json that
// cannot be read counts nothing: the load reports it.
func modelEstimate(dir string) MemoryEstimate {
	cfg, err := layers.ReadModelConfig(filepath.Join(dir, layers.ModelConfigFile))
	if err != nil {
		return MemoryEstimate{}
	}
	n, ok := cfg.Size()
	if !ok {
		return MemoryEstimate{}
	}
	return MemoryEstimate{What: fmt.Sprintf("{Model} %s (%s, %d layers, %.3g parameters)", dir, cfg.Cell, max(cfg.Layers, 1), n), Bytes: float64s(3 * n)}
}

// checkUse runs a spec's checks and memory estimate.
func checkUse(validate func() error, estimate func() (MemoryEstimate, error)) error {
	if err := validate(); err != nil {
		return err
	}
	return checkEstimate(estimate())
}

// EvalReport is the outcome of Eval.
type EvalReport struct {
	Model string `json:"model"`
	Cell  string `json:"cell"`
	// Data is the file evaluated, or "test split of TASK (seed S)".
	Data      string `json:"data"`
	Sequences int    `json:"sequences"`
	Steps     int    `json:"steps"`
	// Skipped is the number of empty sequences of the file, which have no
	// symbol to predict.
	Skipped int `json:"skipped,omitempty"`
	// Loss is the mean loss per predicted symbol in nats: TrainReport's
	// TestLoss on the test split.
	Loss report.Float `json:"loss"`
	// LogLikelihood is the data's log-likelihood in nats, -Loss x Steps.
	LogLikelihood report.Float `json:"log_likelihood"`
	// Perplexity is exp(Loss).
	Perplexity report.Float `json:"perplexity"`
}

// Eval runs an EvalSpec.
func Eval(spec EvalSpec) (*EvalReport, error) {
	spec = spec.WithDefaults()
	if err := checkUse(spec.Validate, spec.EstimateMemory); err != nil {
		return nil, err
	}
	m, err := loadSymbolModel(spec.Model)
	if err != nil {
		return nil, err
	}
	rep := &EvalReport{Model: spec.Model, Cell: m.Config.Cell}
	var task *datasets.Task
	if spec.DataFile == "" {
		if task, err = sourceTask(m); err != nil {
			return nil, err
		}
		rep.Data = "test split of " + task.Name + " (seed " + strconv.FormatUint(m.Config.Source.Seed, 10) + ")"
	} else {
		exs, skipped, err := modelExamples(m, spec.DataFile, spec.Format)
		if err != nil {
			return nil, err
		}
		task = &datasets.Task{Name: filepath.Base(spec.DataFile), In: m.Seq.Cell.InputSize(), Out: m.Config.Out, Kind: datasets.Categorical,
			Train: exs, Test: exs, OptimalLoss: math.NaN()}
		rep.Data, rep.Skipped = spec.DataFile, skipped
	}
	prob, err := layers.NewProblem(m.Seq, task, m.Config.ProblemConfig())
	if err != nil {
		return nil, err
	}
	loss, err := prob.TestLoss()
	if err != nil {
		return nil, err
	}
	rep.Sequences, rep.Steps = len(task.Test), datasets.NumSteps(task.Test)
	rep.Loss, rep.LogLikelihood, rep.Perplexity = report.Float(loss), report.Float(-loss*float64(rep.Steps)), report.Float(math.Exp(loss))
	return rep, nil
}

// loadSymbolModel loads a model directory and checks that it is a
// next-symbol model, the kind the symbol data formats feed.
func loadSymbolModel(dir string) (*layers.Model, error) {
	m, err := layers.LoadModel(dir)
	if err != nil {
		return nil, err
	}
	if m.Config.Input != layers.InputNextSymbol || m.Config.Symbols == nil {
		return nil, errors.Errorf("%s: the model's inputs are not named next symbols (input %q): use layers.Predictor from Go", filepath.Join(dir, layers.ModelConfigFile), m.Config.Input)
	}
	return m, nil
}

// sourceTask makes the task a model was trained on again, checking that
// a data file is unchanged.
func sourceTask(m *layers.Model) (*datasets.Task, error) {
	src := m.Config.Source
	if src == nil {
		return nil, errors.New("the model records no training data: give -data")
	}
	if src.File != "" {
		sum, err := fileSHA256(src.File)
		if err != nil {
			return nil, errors.WithMessage(err, "the model's training data")
		}
		if sum != src.SHA256 {
			return nil, errors.Errorf("the training data %s changed since the model was trained (SHA-256 differs): give -data", src.File)
		}
	}
	task, err := LoadTask(src.Task, src.File, src.Seed)
	if err != nil {
		return nil, err
	}
	if task.In != m.Config.Config.In || task.Out != m.Config.Out || !slices.Equal(task.Symbols, m.Config.Symbols) {
		return nil, errors.Errorf("the task %s made again does not fit the model (symbols %v, model %v)", task.Name, task.Symbols, m.Config.Symbols)
	}
	return m.Inputs(task)
}

// modelExamples reads a data file in a format over the model's alphabet
// and returns its non-empty sequences as next-symbol examples and the
// number of empty ones.
func modelExamples(m *layers.Model, path, format string) ([]datasets.Example, int, error) {
	var syms datasets.Symbols
	var err error
	if format == "text" {
		syms, err = datasets.LoadTextFile(path, datasets.TextOptions{Alphabet: m.Config.Symbols})
	} else {
		var f datasets.StringFormat
		if f, err = datasets.ParseStringFormat(format); err == nil {
			syms, err = datasets.ReadStringsFile(path, f, m.Config.Symbols)
		}
	}
	if err != nil {
		return nil, 0, err
	}
	n := len(syms.Seqs)
	syms.Seqs = slices.DeleteFunc(syms.Seqs, func(s []int) bool { return len(s) == 0 })
	if len(syms.Seqs) == 0 {
		return nil, 0, errors.Errorf("%s has no non-empty sequence", path)
	}
	syms.Alphabet = m.Config.Symbols
	exs, err := datasets.SymbolExamples(syms)
	if err != nil {
		return nil, 0, err
	}
	exs, err = m.Examples(exs)
	return exs, n - len(syms.Seqs), err
}

// SampleSpec draws strings from a trained model (rtn sample). Each
// field's comment gives its default.
type SampleSpec struct {
	// Model is a model directory written by Train. Required.
	Model string
	// N is the number of strings. Default 10.
	N int
	// Seed seeds the draws. Default 1.
	Seed uint64
	// Temperature divides the logits (layers.SampleConfig): 1 (the
	// default) samples the model.
	Temperature float64
	// MaxLen is the longest string, prefix included. Default 100.
	MaxLen int
	// Stop is a symbol that ends a string when drawn (it is the string's
	// last); empty for none.
	Stop string
	// Prefix starts every string: one symbol per character when every
	// symbol of the model is one character, else symbols separated by
	// spaces (ParseSymbols).
	Prefix string
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s SampleSpec) WithDefaults() SampleSpec {
	if s.N == 0 {
		s.N = 10
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.MaxLen == 0 {
		s.MaxLen = 100
	}
	if s.Temperature == 0 {
		s.Temperature = 1
	}
	return s
}

// Validate checks the spec's own values (a *FieldError); the symbols are
// checked against the model by Sample.
func (s SampleSpec) Validate() error {
	return firstErr(
		requireModelDir(s.Model),
		checkMin("N", s.N, 1),
		checkMin("MaxLen", s.MaxLen, 1),
		checkPositive("Temperature", s.Temperature),
		checkSeed("Seed", s.Seed),
	)
}

// EstimateMemory counts the model's parameters (modelEstimate).
func (s SampleSpec) EstimateMemory() (MemoryEstimate, error) { return modelEstimate(s.Model), nil }

// SampleReport is the outcome of Sample.
type SampleReport struct {
	Model       string          `json:"model"`
	Seed        uint64          `json:"seed"`
	Temperature float64         `json:"temperature"`
	Samples     []SampledString `json:"samples"`
	// Redrawn is the number of draws that did not draw Stop within MaxLen
	// and were drawn again (drawWithin); 0 without Stop, whose strings
	// have no end and are MaxLen long.
	Redrawn int `json:"redrawn"`
}

// SampledString is one drawn string.
type SampledString struct {
	// Text is the string, written as FormatSymbols writes it.
	Text string `json:"text"`
	// Length is its number of symbols.
	Length int `json:"length"`
	// LogProb is its log-probability under the model (temperature 1), in
	// nats: the probability of its symbols given its length.
	LogProb float64 `json:"log_prob"`
}

// Sample runs a SampleSpec: N strings drawn one after the other from one
// random stream, the same on every run.
func Sample(spec SampleSpec) (*SampleReport, error) {
	spec = spec.WithDefaults()
	if err := checkUse(spec.Validate, spec.EstimateMemory); err != nil {
		return nil, err
	}
	m, err := loadSymbolModel(spec.Model)
	if err != nil {
		return nil, err
	}
	alpha := m.Config.Symbols
	cfg := layers.SampleConfig{Temperature: spec.Temperature, MaxLen: spec.MaxLen}
	if cfg.Prefix, err = ParseSymbols(spec.Prefix, alpha); err != nil {
		return nil, fieldCause("Prefix", err)
	}
	if spec.Stop != "" {
		i := slices.Index(alpha, spec.Stop)
		if i < 0 {
			return nil, fieldCause("Stop", errors.Errorf("symbol %q is not in the alphabet %q", spec.Stop, FormatSymbols(symbolIDs(len(alpha)), alpha)))
		}
		cfg.Stop = []int{i}
	}
	if len(cfg.Prefix) > cfg.MaxLen {
		return nil, fieldErr("Prefix", spec.Prefix, "at most {MaxLen} %d symbols", cfg.MaxLen)
	}
	pr, err := m.NewPredictor()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x73616d70))
	rep := &SampleReport{Model: spec.Model, Seed: spec.Seed, Temperature: spec.Temperature}
	// Without Stop a string has no end: every draw is MaxLen long and kept.
	draw := func(int) ([]int, error) { return pr.Sample(rng, cfg) }
	var ended func([]int) bool
	if cfg.Stop != nil {
		ended = func(s []int) bool { return len(s) > len(cfg.Prefix) && slices.Contains(cfg.Stop, s[len(s)-1]) }
	}
	seqs, redrawn, err := drawWithin(spec.N, spec.MaxLen, draw, ended)
	if err != nil {
		return nil, err
	}
	rep.Redrawn = redrawn
	for _, s := range seqs {
		exs, err := datasets.SymbolExamples(datasets.Symbols{Alphabet: alpha, Seqs: [][]int{s}})
		if err == nil {
			exs, err = m.Examples(exs)
		}
		if err != nil {
			return nil, err
		}
		lp, err := pr.LogProb(exs[0])
		if err != nil {
			return nil, err
		}
		rep.Samples = append(rep.Samples, SampledString{Text: FormatSymbols(s, alpha), Length: len(s), LogProb: lp})
	}
	return rep, nil
}

// PredictSpec writes a trained model's next-symbol probabilities for
// every step of a data file (rtn predict). Each field's comment gives its
// default.
type PredictSpec struct {
	// Model is a model directory written by Train. Required.
	Model string
	// DataFile is the file of sequences. Required.
	DataFile string
	// Format is DataFile's format, one of DataFormats. Default "text".
	Format string
	// Out is the CSV file written. Required.
	Out string
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s PredictSpec) WithDefaults() PredictSpec {
	s.Format = cmpOr(s.Format, "text")
	return s
}

// Validate checks the spec's values (a *FieldError).
func (s PredictSpec) Validate() error {
	if err := requireModelDir(s.Model); err != nil {
		return err
	}
	switch {
	case s.DataFile == "":
		return fieldErr("DataFile", nil, "a file of sequences (required)")
	case s.Out == "":
		return fieldErr("Out", nil, "the CSV file to write (required)")
	}
	return checkFormat(s.Format)
}

// EstimateMemory counts the model's parameters (modelEstimate).
func (s PredictSpec) EstimateMemory() (MemoryEstimate, error) { return modelEstimate(s.Model), nil }

// PredictReport is the outcome of Predict.
type PredictReport struct {
	Model     string `json:"model"`
	Data      string `json:"data"`
	Out       string `json:"out"`
	Sequences int    `json:"sequences"`
	Steps     int    `json:"steps"`
	Skipped   int    `json:"skipped,omitempty"`
}

// Predict runs a PredictSpec. The CSV has a header row, then one row per
// step of each non-empty sequence: sequence (0-based, in file order
// without the empty ones), step (0-based), symbol (the symbol at that
// step), then the probability the model gave each symbol of its alphabet
// at that step, having read the symbols before it, in shortest
// round-trip notation.
func Predict(spec PredictSpec) (*PredictReport, error) {
	spec = spec.WithDefaults()
	if err := checkUse(spec.Validate, spec.EstimateMemory); err != nil {
		return nil, err
	}
	inputs := []string{spec.DataFile, filepath.Join(spec.Model, layers.ModelConfigFile), filepath.Join(spec.Model, layers.ModelParamsFile)}
	if err := CheckOutput("{Out}", spec.Out, inputs...); err != nil {
		return nil, err
	}
	m, err := loadSymbolModel(spec.Model)
	if err != nil {
		return nil, err
	}
	exs, skipped, err := modelExamples(m, spec.DataFile, spec.Format)
	if err != nil {
		return nil, err
	}
	pr, err := m.NewPredictor()
	if err != nil {
		return nil, err
	}
	rep := &PredictReport{Model: spec.Model, Data: spec.DataFile, Out: spec.Out, Sequences: len(exs), Steps: datasets.NumSteps(exs), Skipped: skipped}
	err = params.WriteFileAtomic(spec.Out, func(w io.Writer) error { return writePredictions(w, pr, m.Config.Symbols, exs) })
	return rep, err
}

// writePredictions writes the CSV of Predict.
func writePredictions(w io.Writer, pr *layers.Predictor, alpha []string, exs []datasets.Example) error {
	cw := csv.NewWriter(w)
	row := append([]string{"sequence", "step", "symbol"}, alpha...)
	if err := cw.Write(row); err != nil {
		return err
	}
	v := len(alpha)
	var p []float64
	for i, ex := range exs {
		var err error
		if p, err = pr.Predict(ex, p); err != nil {
			return err
		}
		for t := range ex.T {
			row = append(row[:0], strconv.Itoa(i), strconv.Itoa(t), alpha[int(ex.Y[t])])
			for _, q := range p[t*v : (t+1)*v] {
				row = append(row, strconv.FormatFloat(q, 'g', -1, 64))
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
