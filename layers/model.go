package layers

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// File names of a model directory and the format it declares.
const (
	// ModelConfigFile holds the ModelConfig, as JSON.
	ModelConfigFile = "model.json"
	// ModelParamsFile holds the parameters (params.Params.Save).
	ModelParamsFile = "model.npz"
	// ModelFormat is the value of ModelConfig.Format this version writes
	// and reads.
	ModelFormat = "rtn-sequence-model/1"
	// InputNextSymbol is ModelConfig.Input for next-symbol models: one-hot
	// inputs of the previous symbol after a begin marker
	// (datasets.SymbolExamples).
	InputNextSymbol = "next-symbol"
)

// ModelConfig is everything but the parameter values that rebuilds a
// Sequence: the registered cell and its sizes, the stack depth, the
// output layer, what the inputs mean and how the model runs. It is the
// model.json of a model directory (Model.Save, LoadModel).
type ModelConfig struct {
	// Format is ModelFormat; Validate refuses another.
	Format string `json:"format"`
	// Cell is a registered cell name (RegisterCell).
	Cell string `json:"cell"`
	// Config sizes each cell; Config.In is the model's input width (the
	// width of its first cell's input).
	Config CellConfig `json:"config"`
	// Layers is the number of stacked cells (NewStackOf). If Layers is 0,
	// it will be defaulted to 1.
	Layers int `json:"layers"`
	// Out is the output width (the number of classes of a Categorical
	// model).
	Out int `json:"out"`
	// Kind is the target kind: "categorical", "binary" or "real".
	Kind string `json:"kind"`
	// Source says which data the model was trained on, so that its splits
	// can be made again; nil when unknown.
	Source *DataSource `json:"source,omitempty"`
	// Input is InputNextSymbol for a next-symbol model, whose inputs are
	// the one-hot previous symbol after a begin marker (In = Out + 1),
	// empty when the inputs are the caller's vectors.
	Input string `json:"input,omitempty"`
	// Symbols names the classes of a next-symbol model (Out of them), in
	// class order; nil when they have no names.
	Symbols []string `json:"symbols,omitempty"`
	// Dropout is the rate of dropout between stacked cells
	// (Stack.SetDropout), in [0, 1); it needs Layers > 1. 0: none.
	Dropout float64 `json:"dropout,omitempty"`
	// Embed, when positive, is the width of a learned embedding of a
	// next-symbol model's inputs (EmbedCell): the model reads symbol codes
	// (datasets.Task.SymbolCodes; Model.Inputs converts a task) and its
	// cells read Embed-wide rows of a table [Config.In, Embed]. 0: the
	// cells read the one-hot inputs.
	Embed int `json:"embed,omitempty"`
	// DType and Executor are those of the ProblemConfig the model was
	// trained and evaluated with; EvalBatch its evaluation batch size (0:
	// the default), which sets the order evaluation adds losses in.
	DType     string `json:"dtype,omitempty"`
	Executor  string `json:"executor,omitempty"`
	EvalBatch int    `json:"eval_batch,omitempty"`
}

// Validate checks the configuration; the error names the JSON field.
func (c ModelConfig) Validate() error {
	field := func(name string, err error) error { return errors.WithMessagef(err, "field %q", name) }
	switch {
	case c.Format != ModelFormat:
		return errors.Errorf("field \"format\": %q, want %q", c.Format, ModelFormat)
	case !HasCell(c.Cell):
		return errors.Errorf("field \"cell\": unknown cell %q (registered: %s; a cell registers when its package is imported)", c.Cell, strings.Join(CellNames(), ", "))
	case c.Layers < 0:
		return errors.Errorf("field \"layers\": %d, want >= 1", c.Layers)
	case c.Out < 1:
		return errors.Errorf("field \"out\": %d, want >= 1", c.Out)
	case c.EvalBatch < 0:
		return errors.Errorf("field \"eval_batch\": %d, want >= 0", c.EvalBatch)
	case c.Embed > 0 && c.Input != InputNextSymbol:
		return errors.Errorf("field \"embed\": an embedding reads symbols: it needs \"input\": %q", InputNextSymbol)
	}
	if err := CheckComposition(max(c.Layers, 1), c.Dropout, c.Embed); err != nil {
		var fe *FieldError
		errors.As(err, &fe)
		return field(fe.Field, err)
	}
	if err := c.Config.Validate(); err != nil {
		return field("config", err)
	}
	kind, err := ParseKind(c.Kind)
	if err != nil {
		return field("kind", err)
	}
	if c.Executor != "" && !slices.Contains(Executors(), c.Executor) {
		return errors.Errorf("field \"executor\": unknown executor %q (known: %s)", c.Executor, strings.Join(Executors(), ", "))
	}
	if err := graph.CheckDType(c.DType); err != nil {
		return field("dtype", err)
	}
	if c.Symbols != nil && len(c.Symbols) != c.Out {
		return errors.Errorf("field \"symbols\": %d names for %d classes", len(c.Symbols), c.Out)
	}
	switch c.Input {
	case "":
	case InputNextSymbol:
		if kind != datasets.Categorical || c.Config.In != c.Out+1 {
			return errors.Errorf("field \"input\": a next-symbol model is categorical with in = out + 1, not %s with in %d, out %d", c.Kind, c.Config.In, c.Out)
		}
	default:
		return errors.Errorf("field \"input\": %q, want %q or none", c.Input, InputNextSymbol)
	}
	return nil
}

// FieldError is an error about one field of a configuration; its message
// starts with the field's name.
type FieldError struct {
	// Field is the field's name, as in JSON ("dropout").
	Field string
	// Msg is the message, starting with Field.
	Msg string
}

func (e *FieldError) Error() string { return e.Msg }

// CheckComposition checks what a model puts around its cells, the one
// rule ModelConfig, runs' specs and the command line share: layers >= 1,
// a dropout rate in [0, 1) that is 0 unless layers >= 2 (it runs between
// stacked cells), an embedding width >= 0. The error is a *FieldError.
func CheckComposition(layers int, dropout float64, embed int) error {
	fail := func(f, format string, args ...any) error {
		return &FieldError{Field: f, Msg: f + " " + fmt.Sprintf(format, args...)}
	}
	switch {
	case layers < 1:
		return fail("layers", "must be >= 1, got %d", layers)
	case !(dropout >= 0 && dropout < 1):
		return fail("dropout", "must be a rate in [0, 1), got %g", dropout)
	case dropout > 0 && layers < 2:
		return fail("dropout", "runs between stacked cells: it needs layers >= 2, got %d", layers)
	case embed < 0:
		return fail("embed", "must not be negative, got %d", embed)
	}
	return nil
}

// DataSource is the training data of a model: a built-in task or a file,
// and the seed that drew the task and its splits.
type DataSource struct {
	// Task names the task (a built-in task's name, or the file's base
	// name).
	Task string `json:"task"`
	// File is the data file's absolute path (empty for a built-in task)
	// and SHA256 its contents' hex SHA-256 at training time.
	File   string `json:"file,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	// Seed is the seed the task and its splits were drawn with.
	Seed uint64 `json:"seed"`
}

// ProblemConfig is the part of a ProblemConfig the model records.
func (c ModelConfig) ProblemConfig() ProblemConfig {
	return ProblemConfig{DType: c.DType, Executor: c.Executor, EvalBatch: c.EvalBatch}
}

// ParseKind reads a target kind's name (datasets.TargetKind.String).
func ParseKind(s string) (datasets.TargetKind, error) {
	for _, k := range []datasets.TargetKind{datasets.Categorical, datasets.Binary, datasets.Real} {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, errors.Errorf("unknown target kind %q (want categorical, binary or real)", s)
}

// Model is a Sequence with the configuration that rebuilds it.
type Model struct {
	Config ModelConfig
	Seq    *Sequence
}

// NewModel builds the model cfg describes, its parameters named after the
// cell (NewStackOf with name cfg.Cell) and the output layer (OutW, OutB),
// drawn from rng: the cells' own initialisation, then the output layer's
// (Sequence.InitHead). Format may be left empty.
func NewModel(cfg ModelConfig, rng *rand.Rand) (*Model, error) {
	if cfg.Format == "" {
		cfg.Format = ModelFormat
	}
	if cfg.Layers == 0 {
		cfg.Layers = 1
	}
	if err := cfg.Validate(); err != nil {
		return nil, errors.WithMessage(err, "layers: model config")
	}
	kind, _ := ParseKind(cfg.Kind)
	p := params.New()
	cc := cfg.Config
	if cfg.Embed > 0 {
		cc.In = cfg.Embed
	}
	cell, err := NewStackOf(cfg.Cell, p, cfg.Cell, cc, cfg.Layers, rng)
	if err != nil {
		return nil, err
	}
	if st, ok := cell.(*Stack); ok {
		if err := st.SetDropout(cfg.Dropout); err != nil {
			return nil, err
		}
	}
	if cfg.Embed > 0 {
		e, err := NewEmbedCell(p, cell, cfg.Config.In)
		if err != nil {
			return nil, err
		}
		if err := e.Init(rng); err != nil {
			return nil, err
		}
		cell = e
	}
	seq, err := NewSequence(p, cell, cfg.Out, kind)
	if err != nil {
		return nil, err
	}
	if err := seq.InitHead(rng); err != nil {
		return nil, err
	}
	return &Model{Config: cfg, Seq: seq}, nil
}

// Save writes the model to dir (created if needed): ModelConfigFile and
// ModelParamsFile, each atomically.
func (m *Model) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return errors.Wrap(err, "layers: creating the model directory")
	}
	if err := m.Seq.Params.Save(filepath.Join(dir, ModelParamsFile)); err != nil {
		return err
	}
	return params.WriteFileAtomic(filepath.Join(dir, ModelConfigFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m.Config)
	})
}

// LoadModel reads a model directory written by Model.Save: it rebuilds the
// model from ModelConfigFile and reads its parameters from
// ModelParamsFile. The cell must be registered (import the package that
// registers it). A file that is missing, malformed, names an unknown cell
// or holds parameters of other names or shapes is an error naming the
// file and the field or parameter.
func LoadModel(dir string) (*Model, error) {
	path := filepath.Join(dir, ModelConfigFile)
	cfg, err := ReadModelConfig(path)
	if err != nil {
		return nil, err
	}
	npz := filepath.Join(dir, ModelParamsFile)
	src, err := params.Load(npz)
	if err != nil {
		return nil, err
	}
	// The parameters are counted before the model is built, so that a
	// model.json declaring billions of parameters beside a small
	// model.npz is an error, not an allocation of gigabytes. A count
	// within a small margin of the file's is left to CopyByName, whose
	// error names the first tensor that differs.
	if n, ok := cfg.Size(); ok && n > 2*float64(src.Size())+1<<16 {
		return nil, errors.Errorf("layers: %s describes a %s model of %.3g parameters, %s holds %d", path, cfg.Cell, n, npz, src.Size())
	}
	m, err := NewModel(cfg, rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		return nil, errors.WithMessage(err, path)
	}
	if err := m.Seq.Params.CopyByName(src); err != nil {
		return nil, errors.WithMessagef(err, "params: checkpoint %s", npz)
	}
	return m, nil
}

// ReadModelConfig reads and checks a model.json file.
func ReadModelConfig(path string) (ModelConfig, error) {
	var cfg ModelConfig
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return cfg, errors.Errorf("layers: %s does not exist: not a model directory (rtn train -out and Model.Save write one)", path)
	}
	if err != nil {
		return cfg, errors.Wrap(err, "layers: reading the model config")
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return cfg, errors.Errorf("layers: %s: not a model config: %v", path, err)
	}
	if cfg.Layers == 0 {
		cfg.Layers = 1
	}
	if err := cfg.Validate(); err != nil {
		return cfg, errors.WithMessagef(err, "layers: %s", path)
	}
	return cfg, nil
}

// Inputs returns task as the model reads it: the task itself, or, for a
// model with an embedding (ModelConfig.Embed), its inputs as symbol codes
// (datasets.Task.SymbolCodes).
func (m *Model) Inputs(task *datasets.Task) (*datasets.Task, error) {
	if m.Config.Embed == 0 {
		return task, nil
	}
	if task.In != m.Config.Config.In {
		return nil, errors.Errorf("layers: task %q has %d inputs, the model's embedding %d symbols", task.Name, task.In, m.Config.Config.In)
	}
	return task.SymbolCodes()
}

// Examples returns examples as the model reads them: themselves, or,
// for a model with an embedding, with their one-hot inputs as codes
// (datasets.CodeExamples).
func (m *Model) Examples(exs []datasets.Example) ([]datasets.Example, error) {
	if m.Config.Embed == 0 {
		return exs, nil
	}
	return datasets.CodeExamples(exs, m.Config.Config.In)
}

// NewPredictor is NewPredictor for the model's Sequence with the
// executor and float type it was trained with.
func (m *Model) NewPredictor() (*Predictor, error) {
	return NewPredictor(m.Seq, m.Config.ProblemConfig())
}
