package runs

import (
	"io"
	"math"
	"slices"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/optim/compare"
)

// compareOwnModels are the models of CompareProblem that are not a
// registered cell on a sequence task, each with its default task, hidden
// size (0: none), learning-rate grid and whether it reads -data.
var compareOwnModels = []struct {
	name, task string
	hidden     int
	grid       []float64
	data       bool
}{
	{"2rnn", "random2rnn", 0, decades(-4, -1), false},
	// Fine-tuning a spectral start wants small rates (the spectral
	// paper's Adamax uses 1e-3; SGD diverges above 1e-5).
	{"2rnn-spectral", "random2rnn", 0, decades(-6, -2), false},
	{"umps", "tomita3", 8, decades(-3, 0), true},
	{"pcnn", "alphabet", 16, decades(-3, -1), false},
	{"pcnn-rnn", "alphabet", 16, decades(-3, -1), false},
	{"pcnn-cnn", "alphabet", 16, decades(-3, -1), false},
	// wfa finetune's SGD needs about 1e-5 (docs/wfa.md).
	{"wfa", "pautomac", 0, decades(-7, -3), true},
}

// decades is the grid 10^lo, 10^(lo+1), ..., 10^hi.
func decades(lo, hi int) []float64 {
	var g []float64
	for k := lo; k <= hi; k++ {
		g = append(g, math.Pow10(k))
	}
	return g
}

// Defaults of a registered cell in a comparison: its task, its width
// when CompareSpec.Hidden is 0 (CompareCellHidden) and its grid.
const (
	compareCellTask   = "pfa"
	CompareCellHidden = 32
)

var compareCellGrid = decades(-3, 0)

// CompareGrid is the default learning-rate grid of a model (CompareSpec
// uses it when LRGrid is nil): 1e-3..1 for the cells and umps, 1e-4..0.1
// for 2rnn, 1e-6..0.01 for 2rnn-spectral, 1e-3..0.1 for the PCNNs,
// 1e-7..1e-3 for wfa, one rate per decade; nil for an unknown model.
func CompareGrid(model string) []float64 {
	for _, o := range compareOwnModels {
		if o.name == model {
			return slices.Clone(o.grid)
		}
	}
	if CompareCell(model) {
		return slices.Clone(compareCellGrid)
	}
	return nil
}

// compareReadsData says whether model reads CompareSpec.DataFile.
func compareReadsData(model string) bool {
	for _, o := range compareOwnModels {
		if o.name == model {
			return o.data
		}
	}
	return true
}

// CompareModels lists the models CompareProblem builds: every registered
// cell (layers.CellNames) but 2rnn, as a sequence model, then 2rnn,
// 2rnn-spectral, umps, pcnn, pcnn-rnn, pcnn-cnn and wfa (see
// CompareSpec.Model).
func CompareModels() []string {
	var m []string
	for _, c := range layers.CellNames() {
		if !isOwnModel(c) {
			m = append(m, c)
		}
	}
	for _, o := range compareOwnModels {
		m = append(m, o.name)
	}
	return m
}

// isOwnModel says whether model is one of compareOwnModels.
func isOwnModel(model string) bool {
	for _, o := range compareOwnModels {
		if o.name == model {
			return true
		}
	}
	return false
}

// CompareCell says whether model is, in a comparison, a registered cell
// on a sequence task (2rnn is the spectral paper's regression there).
func CompareCell(model string) bool { return !isOwnModel(model) && layers.HasCell(model) }

// MaxJobs is the most runs a comparison runs at once: far beyond the
// cores of one machine (a grid larger than that is split with Shard).
const MaxJobs = 1024

// CompareSpec describes an optimizer comparison (rtn compare): a model
// and its data (the problem), the optimizers, the learning-rate grid, the
// seeds, the budget of each run and the protocol; or a suite of problems
// compared with the same optimizers (Suite). The data are drawn once from
// DataSeed; each run's seed draws the initial parameters (and the
// Trainer's batch order), so that the seeds measure the spread due to the
// start and the batches on fixed data. WithDefaults fills in the defaults
// each field's comment gives; Validate checks every field (the error is a
// *FieldError naming it). The problem's fields are the comparison's
// identity (compare.Config.Meta, in JSON); the others are compare.Config's.
type CompareSpec struct {
	// Model is one of CompareModels: a registered cell (rnn, lstm, gru,
	// cp2rnn, hotrnn, mirnn, mpscell, a user's) on a sequence task (as rtn
	// train, with one layer); 2rnn (random start) and 2rnn-spectral (the TIHT
	// estimate as the start, the same for every seed) on the spectral
	// paper's regression; umps (Born machine, NLL per length); pcnn,
	// pcnn-rnn and pcnn-cnn (the Riemannian paper's networks, one long
	// stream; the only models the riemann optimizer trains); wfa (the
	// spectral WFA of a string file as a linear 2-RNN trained on the
	// strings' likelihood, as rtn wfa finetune: the start is wfa.Fit's,
	// the same for every seed). Default lstm (none with a Suite).
	Model string `json:"model"`
	// Task is the data: for a cell a train task ("pfa") or a piano-roll
	// set of the polyphonic data directory ("jsb", "nottingham", "muse",
	// "piano") unless DataFile is set; for 2rnn "random2rnn" or
	// "addition"; for umps a u-MPS data set (tomita1..7, motzkin) or,
	// with DataFile, its format; for pcnn "alphabet", "music", "xor" or
	// "anbn"; for wfa the format of DataFile ("pautomac", "spice" or
	// "lines"). Default: the first of each list.
	Task string `json:"task"`
	// DataFile is a text file, one sequence per line (a cell), or a
	// string file (umps; wfa, required). The other models (2rnn,
	// 2rnn-spectral, the PCNNs) draw their data and refuse it.
	DataFile string `json:"data_file,omitempty"`
	// DataSHA256 is the SHA-256 of DataFile's contents, set by
	// CompareProblem, so that a resumed comparison whose file changed is
	// refused.
	DataSHA256 string `json:"data_sha256,omitempty"`
	// Hidden is the hidden size (a cell: default 32), the rank (2rnn:
	// the target's; wfa: 0 selects the configuration as rtn wfa learn does,
	// else a classic Hankel matrix with lrows 5 at this rank), the bond
	// dimension (umps: 8) or the number of units (pcnn: 16).
	Hidden int `json:"hidden,omitempty"`
	// Size is the data size: training examples per length (2rnn: 640),
	// training strings (umps: 500, also of a DataFile; wfa: the first
	// Size strings of DataFile, 0: all), the task's size (pcnn: 100
	// lines, bars or blocks); unused for the cells.
	Size int `json:"size,omitempty"`
	// Noise is the 2-RNN regression's output noise (standard deviation).
	Noise float64 `json:"noise,omitempty"`
	// Rank, Order and Lags size the tensor cells (layers.CellConfig; 0:
	// the cell's default); the other models refuse them.
	Rank  int `json:"rank,omitempty"`
	Order int `json:"order,omitempty"`
	Lags  int `json:"lags,omitempty"`
	// Activation, Layers, Dropout, Embed and DType shape a cell model as
	// in TrainSpec (the cell's activation, stacked cells (0: 1), dropout
	// between them, an input embedding, the steps' float type); the other
	// models refuse them.
	Activation string  `json:"activation,omitempty"`
	Layers     int     `json:"layers,omitempty"`
	Dropout    float64 `json:"dropout,omitempty"`
	Embed      int     `json:"embed,omitempty"`
	DType      string  `json:"dtype,omitempty"`
	// Chunk is the truncated-BPTT length of a cell. If Chunk is 0,
	// gradients run through whole sequences (layers.ProblemConfig).
	Chunk int `json:"chunk,omitempty"`
	// DataSeed seeds the data. Default 1.
	DataSeed uint64 `json:"data_seed"`
	// TargetFrom says where the comparison's Target came from (set by
	// RunCompare under ProtocolAlgoPerf: the reference run), so that the
	// target is stored with the comparison.
	TargetFrom string `json:"target_from,omitempty"`

	// Settings are the optimizers compared (ParseCompareOptimizers reads
	// rtn compare's syntax). Default: sgd, momentum, adam, rmsprop,
	// adagrad.
	Settings []compare.Setting `json:"-"`
	// LRGrid is the learning-rate grid. If LRGrid is nil, it will be
	// defaulted to the model's grid (CompareGrid), unless OwnRates is
	// set: then each optimizer runs at its own rate.
	LRGrid   []float64 `json:"-"`
	OwnRates bool      `json:"-"`
	// Seeds are the seeds of the runs (the tuning seeds). Default 1, 2, 3
	// (1 under ProtocolDeepOBS, which reruns the tuned rate).
	Seeds []uint64 `json:"-"`
	// Budget bounds each run. Default 3 epochs (a suite: each problem's).
	// Epochs and Steps together: the first reached stops a run. Seconds
	// is refused with either: the table would depend on which bound the
	// machine's speed made stop each run.
	Budget compare.Budget `json:"-"`
	// Batch is the minibatch size; FullBatch trains every step on the
	// whole training set. Default 32 (a suite: each problem's); a
	// negative value other than FullBatch is refused.
	Batch int `json:"-"`
	// EvalEvery adds a curve point every EvalEvery steps (0: per epoch;
	// a suite: each problem's).
	EvalEvery int `json:"-"`
	// Target is a validation loss to reach (0: none; under
	// ProtocolAlgoPerf, 0 takes it from a reference run).
	Target float64 `json:"-"`
	// DivergeFactor is compare.Config.DivergeFactor. Default 10; a
	// negative value (Off, for instance) keeps only the NaN/Inf tests.
	DivergeFactor float64 `json:"-"`
	// Protocol is "" (the grid and its tuning), ProtocolDeepOBS or
	// ProtocolAlgoPerf.
	Protocol string `json:"-"`
	// ExtendGrid is compare.Config.ExtendGrid: up to this many rates
	// beyond the grid for a setting tuned at its edge (0: none).
	ExtendGrid int `json:"-"`
	// Rerun is compare.Config.Rerun: the tuned rate run again with this
	// many seeds in all. Default 10 under ProtocolDeepOBS, else 0.
	Rerun int `json:"-"`
	// Suite names a suite of problems (CompareSuites) compared with the
	// same Settings, Seeds and Protocol, each in its own subdirectory of
	// Out; the problem's fields must then be zero.
	Suite string `json:"-"`
	// Jobs is the number of runs trained at once. Default: the number of
	// CPUs. Results do not depend on it.
	Jobs int `json:"-"`
	// Shard selects the runs of this process (zero: all).
	Shard compare.Shard `json:"-"`
	// Out is the output directory: runs (to resume), tables, CSV, JSON,
	// figures. If Out is empty, nothing is written.
	Out string `json:"-"`
	// Progress receives one line per finished run (nil: none).
	Progress io.Writer `json:"-"`

	// Executor is set by CompareProblem: what runs the model's steps, for
	// compare.Config.Executor (the executor layers.Problem chooses for a
	// cell; the models' own kernels or graphs otherwise).
	Executor compare.Executor `json:"-"`
	// References are set by CompareProblem: the losses the problem knows
	// (its optimum, a trivial predictor's), for compare.Config.References.
	References []compare.Reference `json:"-"`
	// Log receives warnings, each once per comparison: that the model's
	// steps fall back to gorgonia's compiled graphs
	// (layers.ProblemConfig.Log). If Log is nil, they go to the standard
	// library's log (stderr).
	Log io.Writer `json:"-"`
}

// modelExecutors describes what runs the steps of the models that are not
// a layers.Problem (compareOwnModels).
var modelExecutors = map[string]compare.Executor{
	"2rnn":          {Kind: layers.ExecGraph, DType: graph.Float64, Reason: "twornn.Regression unrolls each sequence length into one gorgonia graph"},
	"2rnn-spectral": {Kind: layers.ExecGraph, DType: graph.Float64, Reason: "twornn.Regression unrolls each sequence length into one gorgonia graph"},
	"umps":          {Kind: layers.ExecGraph, DType: graph.Float64, Reason: "umps.NLL is one gorgonia graph of the u-MPS's fused ops"},
	"pcnn":          {Kind: layers.ExecFused, DType: graph.Float64},
	"pcnn-rnn":      {Kind: layers.ExecFused, DType: graph.Float64},
	"pcnn-cnn":      {Kind: layers.ExecFused, DType: graph.Float64},
	"wfa":           {Kind: layers.ExecFused, DType: graph.Float64},
}

// problemDefaults fills in the problem's unset fields: the model, the
// data seed, and the model's task, width and (a cell) layers.
func (s *CompareSpec) problemDefaults() {
	if s.Model == "" {
		s.Model = "lstm"
	}
	if s.DataSeed == 0 {
		s.DataSeed = 1
	}
	task, hidden := "", 0
	switch {
	case CompareCell(s.Model):
		task, hidden = compareCellTask, CompareCellHidden
		if s.Layers == 0 {
			s.Layers = 1
		}
		if s.DType == graph.Float64 {
			s.DType = ""
		}
	case isOwnModel(s.Model):
		for _, o := range compareOwnModels {
			if o.name == s.Model {
				task, hidden = o.task, o.hidden
			}
		}
	}
	if s.Task == "" {
		s.Task = task
	}
	if s.Hidden == 0 {
		s.Hidden = hidden
	}
}

// problemCheck checks the problem's fields (after problemDefaults).
func (s *CompareSpec) problemCheck() error {
	switch {
	case CompareCell(s.Model):
	case isOwnModel(s.Model):
		for _, f := range []struct {
			name string
			set  bool
		}{{"Rank", s.Rank != 0}, {"Order", s.Order != 0}, {"Lags", s.Lags != 0}, {"Activation", s.Activation != ""},
			{"Layers", s.Layers != 0}, {"Dropout", s.Dropout != 0}, {"Embed", s.Embed != 0}, {"DType", s.DType != ""}} {
			if f.set {
				return compareErr(f.name, "applies to the registered cells only, not model %s", s.Model)
			}
		}
	default:
		return compareErr("Model", "%q is unknown (known: %s)", s.Model, strings.Join(CompareModels(), ", "))
	}
	switch {
	case s.DataFile != "" && !compareReadsData(s.Model):
		return compareErr("DataFile", "model %s draws its data from the task and reads no file (models that do: the cells, umps, wfa)", s.Model)
	case s.Model == "wfa" && s.DataFile == "":
		return compareErr("DataFile", "model wfa needs a string file")
	case s.DataSeed == 0:
		return compareErr("DataSeed", "must be >= 1, got 0")
	case s.Hidden < 0:
		return compareErr("Hidden", "must be >= 0, got %d", s.Hidden)
	case s.Size < 0:
		return compareErr("Size", "must be >= 0, got %d", s.Size)
	case s.Chunk < 0:
		return compareErr("Chunk", "must be >= 0, got %d", s.Chunk)
	case !(s.Noise >= 0) || math.IsInf(s.Noise, 0):
		return compareErr("Noise", "must be a finite number >= 0, got %v", s.Noise)
	}
	if err := s.taskCheck(); err != nil {
		return err
	}
	if CompareCell(s.Model) {
		return s.cellCheck()
	}
	return nil
}

// taskCheck refuses a task the model does not know and the fields the
// model does not use.
func (s *CompareSpec) taskCheck() error {
	stringFile := s.Model == "wfa" || (s.Model == "umps" && s.DataFile != "")
	if stringFile {
		if _, err := datasets.ParseStringFormat(s.Task); err != nil {
			return compareErr("Task", "names the format of -data for model %s: %v", s.Model, err)
		}
	}
	refuse := func(name string, set bool) error {
		if set {
			return compareErr(name, "has no effect with model %s", s.Model)
		}
		return nil
	}
	switch {
	case s.Model == "wfa":
		return firstErr(refuse("Chunk", s.Chunk != 0), refuse("Noise", s.Noise != 0))
	case CompareCell(s.Model):
		return firstErr(refuse("Size", s.Size != 0), refuse("Noise", s.Noise != 0))
	case strings.HasPrefix(s.Model, "2rnn"):
		return refuse("Chunk", s.Chunk != 0)
	}
	return firstErr(refuse("Chunk", s.Chunk != 0), refuse("Noise", s.Noise != 0))
}

// cellCheck checks the fields of a cell model.
func (s *CompareSpec) cellCheck() error {
	if err := layers.CheckComposition(s.Layers, s.Dropout, s.Embed); err != nil {
		var fe *layers.FieldError
		if errors.As(err, &fe) {
			return fieldCause(strings.ToUpper(fe.Field[:1])+fe.Field[1:], err)
		}
		return err
	}
	if err := graph.CheckDType(s.DType); err != nil {
		return fieldErr("DType", s.DType, "float64 or float32")
	}
	for _, f := range []struct {
		name string
		cfg  layers.CellConfig
	}{
		{"Activation", layers.CellConfig{Activation: s.Activation}},
		{"Rank", layers.CellConfig{Rank: s.Rank}},
		{"Order", layers.CellConfig{Order: s.Order}},
		{"Lags", layers.CellConfig{Lags: s.Lags}},
		{"Rank", s.cellConfig()},
	} {
		if err := layers.CheckCellConfig(s.Model, f.cfg); err != nil {
			return fieldCause(f.name, err)
		}
	}
	return nil
}

// cellConfig is the configuration of a cell model (its input width is
// the task's).
func (s *CompareSpec) cellConfig() layers.CellConfig {
	return layers.CellConfig{Hidden: s.Hidden, Activation: s.Activation, Rank: s.Rank, Order: s.Order, Lags: s.Lags}
}

// CompareProblem returns the problem factory of spec, and spec with its
// defaults (for compare.Config.Meta) and its Executor (for
// compare.Config.Executor). The data are built here, once.
func CompareProblem(spec CompareSpec) (compare.Factory, CompareSpec, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, spec, err
	}
	if spec.DataFile != "" {
		sum, err := fileSHA256(spec.DataFile)
		if err != nil {
			return nil, spec, err
		}
		spec.DataSHA256 = sum
	}
	var (
		f   compare.Factory
		err error
	)
	switch spec.Model {
	case "2rnn", "2rnn-spectral":
		f, err = twoRNNFactory(&spec)
	case "umps":
		f, err = umpsFactory(&spec)
	case "wfa":
		f, err = wfaFactory(spec)
	case "pcnn", "pcnn-rnn", "pcnn-cnn":
		f, err = pcnnFactory(&spec)
	default:
		f, err = sequenceFactory(&spec)
	}
	if e, ok := modelExecutors[spec.Model]; ok {
		spec.Executor = e
	}
	return f, spec, err
}
