package runs

import (
	"io"
	"math/rand/v2"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/pcnn"
	"github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
)

// compareOwnModels are the models of CompareProblem that are not a
// registered cell on a sequence task, each with its default task and
// hidden size (0: none).
var compareOwnModels = []struct {
	name, task string
	hidden     int
}{
	{"2rnn", "random2rnn", 0}, {"2rnn-spectral", "random2rnn", 0}, {"umps", "tomita3", 8},
	{"pcnn", "alphabet", 16}, {"pcnn-rnn", "alphabet", 16}, {"pcnn-cnn", "alphabet", 16}, {"wfa", "pautomac", 0},
}

// Defaults of a registered cell in a comparison: its task, and its
// width when CompareSpec.Hidden is 0 (CompareCellHidden).
const (
	compareCellTask   = "pfa"
	CompareCellHidden = 32
)

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

// CompareSpec describes the problem of an optimizer comparison (rtn
// compare): a model and its data. The data are drawn once from DataSeed;
// each run's seed draws the initial parameters (and the Trainer's batch
// order), so that the seeds measure the spread due to the start and the
// batches on fixed data. Each field's comment gives its default.
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
	// the same for every seed). Default lstm.
	Model string `json:"model"`
	// Task is the data: for a cell a train task ("pfa") unless DataFile
	// is set; for 2rnn "random2rnn" or "addition"; for umps a u-MPS data
	// set (tomita1..7, motzkin); for pcnn "alphabet", "music", "xor" or
	// "anbn"; for wfa the format of DataFile ("pautomac", "spice" or
	// "lines"). Default: the first of each list.
	Task string `json:"task"`
	// DataFile is a text file, one sequence per line (a cell),
	// or the string file (wfa, required).
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
	// training strings (umps: 500), the task's size (pcnn: 100 lines, bars
	// or blocks); unused for rnn, lstm and gru.
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
	// Executor is set by CompareProblem: what runs the model's steps, for
	// compare.Config.Executor (the executor layers.Problem chooses for a
	// cell; the models' own kernels or graphs otherwise).
	Executor compare.Executor `json:"-"`
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

func (s *CompareSpec) defaults() error {
	if s.Model == "" {
		s.Model = "lstm"
	}
	if s.DataSeed == 0 {
		s.DataSeed = 1
	}
	task, hidden := compareCellTask, CompareCellHidden
	switch {
	case CompareCell(s.Model):
	case isOwnModel(s.Model):
		for _, o := range compareOwnModels {
			if o.name == s.Model {
				task, hidden = o.task, o.hidden
			}
		}
		if s.Rank != 0 || s.Order != 0 || s.Lags != 0 {
			return errors.Errorf("model %s has no rank, order or lags to set (the registered cells have)", s.Model)
		}
		if s.Activation != "" || s.Layers != 0 || s.Dropout != 0 || s.Embed != 0 || s.DType != "" {
			return errors.Errorf("model %s has no activation, layers, dropout, embedding or dtype to set (the registered cells have)", s.Model)
		}
	default:
		return errors.Errorf("unknown model %q (known: %s)", s.Model, strings.Join(CompareModels(), ", "))
	}
	if s.Task == "" {
		s.Task = task
	}
	if s.Hidden < 0 || s.Size < 0 || s.Chunk < 0 || !(s.Noise >= 0) {
		return errors.Errorf("hidden, size, chunk and noise must not be negative, got %d, %d, %d, %v", s.Hidden, s.Size, s.Chunk, s.Noise)
	}
	if s.Hidden == 0 {
		s.Hidden = hidden
	}
	if CompareCell(s.Model) {
		return s.cellDefaults()
	}
	return nil
}

// cellDefaults checks and completes the fields of a cell model.
func (s *CompareSpec) cellDefaults() error {
	if s.Layers == 0 {
		s.Layers = 1
	}
	if err := layers.CheckComposition(s.Layers, s.Dropout, s.Embed); err != nil {
		return err
	}
	if err := graph.CheckDType(s.DType); err != nil {
		return err
	}
	if s.DType == graph.Float64 {
		s.DType = ""
	}
	return layers.CheckCellConfig(s.Model, s.cellConfig())
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
	if err := spec.defaults(); err != nil {
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
		f, err = umpsFactory(spec)
	case "wfa":
		f, err = wfaFactory(spec)
	case "pcnn", "pcnn-rnn", "pcnn-cnn":
		f, err = pcnnFactory(spec)
	default:
		f, err = sequenceFactory(&spec)
	}
	if e, ok := modelExecutors[spec.Model]; ok {
		spec.Executor = e
	}
	return f, spec, err
}

// initRand is the generator of a run's initial parameters.
func initRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x696e6974)) }

// sequenceFactory returns the factory of a cell's sequence model and sets
// spec.Executor from a problem built here, whose warnings go to spec.Log:
// the runs' problems, on the same executor, keep theirs quiet.
func sequenceFactory(spec *CompareSpec) (compare.Factory, error) {
	task, err := LoadTask(spec.Task, spec.DataFile, spec.DataSeed)
	if err != nil {
		return nil, err
	}
	mcfg, chunk := modelConfig(spec.Model, spec.cellConfig(), spec.Layers, task), spec.Chunk
	mcfg.Embed, mcfg.Dropout, mcfg.DType = spec.Embed, spec.Dropout, spec.DType
	if spec.Embed > 0 && mcfg.Input != layers.InputNextSymbol {
		return nil, errors.Errorf("an embedding reads symbols: task %q is not a next-symbol task", task.Name)
	}
	probe, err := layers.NewModel(mcfg, initRand(spec.DataSeed))
	if err != nil {
		return nil, err
	}
	data, err := probe.Inputs(task) // the task as the model reads it, made once and shared by the runs
	if err != nil {
		return nil, err
	}
	build := func(seed uint64, log io.Writer) (*layers.Problem, error) {
		m, err := layers.NewModel(mcfg, initRand(seed))
		if err != nil {
			return nil, err
		}
		return layers.NewProblem(m.Seq, data, layers.ProblemConfig{Chunk: chunk, DType: mcfg.DType, Log: log})
	}
	p, err := build(spec.DataSeed, spec.Log)
	if err != nil {
		return nil, err
	}
	spec.Executor = compare.Executor(p.Executor())
	return func(seed uint64) (optim.Problem, error) { return build(seed, io.Discard) }, nil
}

// twoRNNProblem is the 2-RNN regression with a validation set (the
// length-(2L+1) examples of a second, independent draw of the training
// sets) and the noiseless length-6 test set; losses are MSE.
type twoRNNProblem struct {
	*twornn.Regression
	m           *twornn.Model
	valid, test datasets.TwoRNNData
}

// ValidationLoss implements optim.Validator.
func (p *twoRNNProblem) ValidationLoss() (float64, error) { return p.m.MSE(p.valid) }

// TestLoss implements compare.Tester.
func (p *twoRNNProblem) TestLoss() (float64, error) { return p.m.MSE(p.test) }

func twoRNNFactory(spec *CompareSpec) (compare.Factory, error) {
	if spec.Size == 0 {
		spec.Size = 640
	}
	target, err := spectralProblem(SpectralSpec{Task: spec.Task, Seed: spec.DataSeed})
	if err != nil {
		return nil, err
	}
	if spec.Hidden == 0 {
		spec.Hidden = target.Target.States
	}
	rng := rand.New(rand.NewPCG(spec.DataSeed, 2))
	cfg := spectral.TwoRNNSplitConfig{N: spec.Size, Noise: spec.Noise}
	sp, err := target.Splits(cfg, rng)
	if err != nil {
		return nil, err
	}
	vs, err := target.Splits(cfg, rng)
	if err != nil {
		return nil, err
	}
	in, out := sp.Train[0].In, sp.Train[0].Out
	var start *spectral.RNN
	if spec.Model == "2rnn-spectral" {
		res, err := spectral.Learn(sp.Train, spectral.Config{Rank: spec.Hidden, Method: spectral.MethodTIHT, NuclearHoldout: spec.Noise > 0})
		if err != nil {
			return nil, err
		}
		start = &res.Model
	}
	return func(seed uint64) (optim.Problem, error) {
		m, err := twornn.NewModel("tworn", in, spec.Hidden, out, activation.Identity)
		if err != nil {
			return nil, err
		}
		if start != nil {
			err = m.SetFromRNN(*start)
		} else {
			err = m.Init(initRand(seed))
		}
		if err != nil {
			return nil, err
		}
		reg, err := twornn.NewRegression(m, sp.Train[:])
		if err != nil {
			return nil, err
		}
		return &twoRNNProblem{Regression: reg, m: m, valid: vs.Train[2], test: sp.Test}, nil
	}, nil
}

func umpsFactory(spec CompareSpec) (compare.Factory, error) {
	size := spec.Size
	if size == 0 {
		size = 500
	}
	train, valid, alphabet, err := UMPSData(spec.Task, size, max(size/5, 1), rand.New(rand.NewPCG(spec.DataSeed, 0x756d7073)))
	if err != nil {
		return nil, err
	}
	return func(seed uint64) (optim.Problem, error) {
		p, err := umps.NewParams(spec.Hidden, len(alphabet), umps.RandomNormal, initRand(seed))
		if err != nil {
			return nil, err
		}
		return umps.NewProblem(p, train, valid, umps.PerLength)
	}, nil
}

func pcnnFactory(spec CompareSpec) (compare.Factory, error) {
	size := spec.Size
	if size == 0 {
		size = 100
	}
	train, valid, err := PCNNStreams(spec.Task, size, spec.DataSeed)
	if err != nil {
		return nil, err
	}
	ps := PCNNSpec{Model: "pcnn", Activation: "tanh", Units: spec.Hidden}
	method := pcnn.Method{Writing: pcnn.QDH, Transition: pcnn.RBPM}
	if spec.Model == "pcnn-rnn" {
		ps.Model, method.Transition = "rnn", pcnn.QDRBPM
	} else if spec.Model == "pcnn-cnn" {
		ps.Model = "cnn"
	}
	return func(seed uint64) (optim.Problem, error) {
		m, err := NewPCNNModel(ps, train, len(train.Alphabet), initRand(seed))
		if err != nil {
			return nil, err
		}
		p, err := pcnn.NewProblem(m, train, method)
		if err != nil {
			return nil, err
		}
		return p.WithValidation(valid)
	}, nil
}

// wfaFactory learns the spectral WFA of spec.DataFile once (wfa.Fit, every
// default but the rank when spec.Hidden is set) and returns problems that
// fine-tune it: wfa.Likelihood on wfa.FinetuneSplit's split of the
// strings, drawn from DataSeed, the same for every run.
func wfaFactory(spec CompareSpec) (compare.Factory, error) {
	if spec.DataFile == "" {
		return nil, errors.New("model wfa needs a string file (-data)")
	}
	format, err := datasets.ParseStringFormat(spec.Task)
	if err != nil {
		return nil, err
	}
	s, err := datasets.ReadStringsFile(spec.DataFile, format, nil)
	if err != nil {
		return nil, err
	}
	train, valid, err := wfa.FinetuneSplit(s.Seqs, wfa.FinetuneValidFraction, spec.DataSeed)
	if err != nil {
		return nil, errors.Wrap(err, spec.DataFile)
	}
	cfg := wfa.Config{Seed: spec.DataSeed}
	if spec.Hidden > 0 {
		cfg.Spec = wfa.Spec{Variant: spectral.Classic, Rank: spec.Hidden}
	}
	m, _, err := wfa.Fit(s, cfg)
	if err != nil {
		return nil, err
	}
	return func(uint64) (optim.Problem, error) {
		return wfa.NewLikelihood(m.WFA, train, valid)
	}, nil
}
