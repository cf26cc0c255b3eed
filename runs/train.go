package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/activation"
	_ "github.com/rtnlab/rtn/layers/rnn"        // registers rnn, lstm, gru
	_ "github.com/rtnlab/rtn/layers/tensorcell" // registers cp2rnn, hotrnn, mirnn, mpscell
	_ "github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/optim"
)

// TrainSpec describes one training run of a recurrent model on a sequence
// task. The zero value trains an LSTM on the built-in task; each field's
// comment gives its default.
type TrainSpec struct {
	// Model is a registered cell (layers.CellNames: rnn, lstm, gru, 2rnn,
	// cp2rnn, hotrnn, mirnn, mpscell and the cells a program registers).
	// Default "lstm".
	Model string
	// Activation is the cell's nonlinearity (layers.CellConfig.Activation:
	// tanh, symsigmoid or identity for rnn; tanh or identity for 2rnn and
	// cp2rnn). If Activation is "", it is the cell's default (tanh); a cell
	// without one (lstm, gru, hotrnn, mirnn, mpscell) refuses any other
	// value.
	Activation string
	// Hidden is the number of hidden units of each layer. Default 32.
	Hidden int
	// Layers is the number of stacked cells (layers.NewStackOf). Default 1.
	Layers int
	// Dropout is the rate of dropout between stacked cells
	// (layers.ModelConfig.Dropout, as torch.nn.LSTM's dropout); it needs
	// Layers >= 2. 0 (the default): none.
	Dropout float64
	// Embed, when positive, gives the model a learned embedding of its
	// input symbols of that width (layers.ModelConfig.Embed): the cells
	// read embedding rows instead of one-hot inputs. 0 (the default): none.
	Embed int
	// Rank, Order and Lags size the tensor cells (layers.CellConfig):
	// the decomposition rank of cp2rnn and hotrnn, hotrnn's order and
	// number of lagged states. 0 is the cell's default; a cell that does
	// not read one refuses any other value.
	Rank, Order, Lags int
	// Task names a built-in task: "pfa" (next-symbol prediction on a
	// random probabilistic automaton, with the exact optimal loss). Default
	// "pfa". Ignored when DataFile is set.
	Task string
	// DataFile is a text file with one sequence per line, read as
	// characters; the task is next-symbol prediction with a begin marker,
	// split 80/10/10 into train, validation and test with the run's seed.
	DataFile string
	// Optimizer is a registered optimizer name (optim.Names). Default "adam".
	Optimizer string
	// Optim holds the optimizer's hyperparameters (zero: its defaults).
	Optim optim.Config
	// Schedule is a learning-rate schedule as optim.ParseSchedule reads it
	// ("constant", "step:10:0.5", "exp:0.95", "plateau:5:0.1"). Default constant.
	Schedule string
	// Epochs is the total number of epochs (a resumed run continues up to
	// it). Default 10.
	Epochs int
	// Batch is the minibatch size. Default 32. A Batch above the number
	// of training sequences takes them all at every step (full batch);
	// TrainReport.Batch says so.
	Batch int
	// Chunk, when positive, is the truncated-BPTT length; 0 (the
	// default) backpropagates through every step.
	Chunk int
	// Patience is the number of epochs without validation improvement
	// before the learning rate drops (0: no early stopping).
	Patience int
	// DType is the float type of the model's steps: "float64" (or "", the
	// default) or "float32" (layers.ProblemConfig.DType: parameters,
	// gradients and the optimizer stay float64).
	DType string
	// Seed seeds the task, the initial weights and the shuffling. Default 1.
	Seed uint64
	// Out is a directory for checkpoint.npz, metrics.jsonl, the model
	// (model.json and model.npz, the best parameters: layers.LoadModel,
	// rtn eval, sample and predict read them) and result.json; nothing is
	// written when empty.
	Out string
	// Resume is a directory holding a checkpoint.npz to continue from. The
	// checkpoint must come from the same spec (model, data, seed, batch,
	// chunk, patience, optimizer settings, schedule) except Epochs: a
	// mismatch is refused, naming the first differing field. When Out is
	// empty it is set to Resume.
	Resume string
	// Progress receives a progress bar (nil: none).
	Progress io.Writer
	// Log receives warnings: that the model's steps fall back to
	// gorgonia's compiled graphs (layers.ProblemConfig.Log). If Log is
	// nil, they go to the standard library's log (stderr).
	Log io.Writer
}

// TrainReport is the outcome of a training run. Losses are mean nats per
// predicted step (symbol or frame).
type TrainReport struct {
	Model     string `json:"model"`
	Task      string `json:"task"`
	Optimizer string `json:"optimizer"`
	Hidden    int    `json:"hidden"`
	Layers    int    `json:"layers"`
	Params    int    `json:"params"`
	// Executor is what ran the model's steps (layers.Problem.Executor).
	Executor  layers.ExecutorInfo `json:"executor"`
	TrainLoss report.Float        `json:"train_loss"`
	// ValidLoss and TestLoss are those of the returned (best) parameters.
	ValidLoss   report.Float `json:"valid_loss"`
	TestLoss    report.Float `json:"test_loss"`
	BestValid   report.Float `json:"best_valid_loss"`
	OptimalLoss *float64     `json:"optimal_loss,omitempty"`
	UniformLoss *float64     `json:"uniform_loss,omitempty"`
	Epochs      int          `json:"epochs"`
	BestEpoch   int          `json:"best_epoch"`
	Steps       int          `json:"steps"`
	// Batch is the minibatch size the run used: the spec's, or the number
	// of training sequences TrainSequences when the spec's is above it
	// (every step then takes the whole training set, as
	// optim.TrainConfig.BatchSize documents).
	Batch          int `json:"batch"`
	TrainSequences int `json:"train_sequences"`
	// Seconds is the wall time of this invocation (after a resume, only
	// the resumed part); History's elapsed field sums all epochs.
	Seconds float64 `json:"seconds"`
	// History holds one entry per epoch (train and validation loss, rate).
	History []optim.EpochStats `json:"history"`
}

// modelMeta identifies a model in checkpoints: a checkpoint is only
// resumed into a model with the same meta.
// Everything that changes the data or the training trajectory is in it, so
// that a resumed run is the continuation of the same run.
type modelMeta struct {
	Model      string       `json:"model"`
	Activation string       `json:"activation,omitempty"`
	Hidden     int          `json:"hidden"`
	Layers     int          `json:"layers,omitempty"` // 0 for one layer
	Dropout    float64      `json:"dropout,omitempty"`
	Embed      int          `json:"embed,omitempty"`
	Rank       int          `json:"rank,omitempty"`
	Order      int          `json:"order,omitempty"`
	Lags       int          `json:"lags,omitempty"`
	Task       string       `json:"task"`
	DataSHA256 string       `json:"data_sha256,omitempty"`
	In         int          `json:"in"`
	Out        int          `json:"out"`
	Seed       uint64       `json:"seed"`
	Batch      int          `json:"batch"`
	Chunk      int          `json:"chunk"`
	Patience   int          `json:"patience"`
	Optim      optim.Config `json:"optim"`
	DType      string       `json:"dtype,omitempty"` // empty for float64
}

// LoadTask returns the task a spec names, built from seed.
func LoadTask(name, dataFile string, seed uint64) (*datasets.Task, error) {
	rng := rand.New(rand.NewPCG(seed, 0x7461736b))
	if dataFile != "" {
		syms, err := datasets.LoadTextFile(dataFile, datasets.TextOptions{})
		if err != nil {
			return nil, err
		}
		t, err := datasets.NextSymbol(filepath.Base(dataFile), syms, 0.1, 0.1, rng)
		if err != nil {
			return nil, err
		}
		if len(t.Valid) == 0 || len(t.Test) == 0 {
			return nil, errors.Errorf("%s has %d sequences: too few for 10%% validation and test splits (need at least 5)", dataFile, syms.Len())
		}
		return t, nil
	}
	switch name {
	case "pfa":
		t, _, err := datasets.PFATask(datasets.PFAConfig{}, rng)
		return t, err
	}
	return nil, errors.Errorf("unknown task %q (built-in: pfa)", name)
}

// NewModel builds a one-layer model of a registered cell (layers.NewModel)
// for a task, with weights drawn from rng; actName "" is the cell's
// default activation.
func NewModel(model, actName string, hidden int, task *datasets.Task, rng *rand.Rand) (*layers.Sequence, error) {
	m, err := layers.NewModel(modelConfig(model, layers.CellConfig{Hidden: hidden, Activation: actName}, 1, task), rng)
	if err != nil {
		return nil, err
	}
	return m.Seq, nil
}

// cellConfig is the spec's cell configuration for input width in.
func (s *TrainSpec) cellConfig(in int) layers.CellConfig {
	return layers.CellConfig{In: in, Hidden: s.Hidden, Activation: s.Activation, Rank: s.Rank, Order: s.Order, Lags: s.Lags}
}

// modelConfig is the configuration of a model of a registered cell for a
// task: a next-symbol model when the task has named symbols and the
// begin-marker input.
func modelConfig(model string, cell layers.CellConfig, depth int, task *datasets.Task) layers.ModelConfig {
	cell.In = task.In
	cfg := layers.ModelConfig{Cell: model, Config: cell,
		Layers: depth, Out: task.Out, Kind: task.Kind.String()}
	if task.Kind == datasets.Categorical && task.Symbols != nil && task.In == task.Out+1 {
		cfg.Input, cfg.Symbols = layers.InputNextSymbol, task.Symbols
	}
	return cfg
}

// Train runs a TrainSpec.
func Train(spec TrainSpec) (*TrainReport, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := CheckOutDir("{Out}", spec.Out); err != nil {
		return nil, err
	}
	if err := checkEstimate(spec.EstimateMemory()); err != nil {
		return nil, err
	}
	if spec.DType == graph.Float64 {
		spec.DType = "" // as checkpoints of float64 runs record it
	}
	lock, err := LockOutputs([]string{spec.Out}, nil)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	task, err := LoadTask(spec.Task, spec.DataFile, spec.Seed)
	if err != nil {
		return nil, err
	}
	mcfg := modelConfig(spec.Model, spec.cellConfig(task.In), spec.Layers, task)
	mcfg.DType, mcfg.Embed, mcfg.Dropout = spec.DType, spec.Embed, spec.Dropout
	if spec.Embed > 0 && mcfg.Input != layers.InputNextSymbol {
		return nil, errors.Errorf("an embedding reads symbols: task %q is not a next-symbol task", task.Name)
	}
	model, err := layers.NewModel(mcfg, rand.New(rand.NewPCG(spec.Seed, 0x696e6974)))
	if err != nil {
		return nil, err
	}
	seq := model.Seq
	data, err := model.Inputs(task)
	if err != nil {
		return nil, err
	}
	prob, err := layers.NewProblem(seq, data, layers.ProblemConfig{Chunk: spec.Chunk, DType: spec.DType, Log: spec.Log})
	if err != nil {
		return nil, err
	}
	opt, err := optim.New(spec.Optimizer, spec.Optim)
	if err != nil {
		return nil, err
	}
	var sched optim.Schedule
	if spec.Schedule != "" {
		if sched, err = optim.ParseSchedule(spec.Schedule); err != nil {
			return nil, err
		}
	}
	meta := modelMeta{Model: spec.Model, Hidden: spec.Hidden, Task: task.Name, In: task.In, Out: task.Out,
		Dropout: spec.Dropout, Embed: spec.Embed, Rank: spec.Rank, Order: spec.Order, Lags: spec.Lags,
		Seed: spec.Seed, Batch: spec.Batch, Chunk: spec.Chunk, Patience: spec.Patience, Optim: spec.Optim, DType: spec.DType}
	if spec.Layers > 1 {
		meta.Layers = spec.Layers
	}
	model.Config.Source = &layers.DataSource{Task: task.Name, Seed: spec.Seed}
	if spec.DataFile != "" {
		if meta.DataSHA256, err = fileSHA256(spec.DataFile); err != nil {
			return nil, err
		}
		abs, err := filepath.Abs(spec.DataFile)
		if err != nil {
			return nil, errors.Wrap(err, "runs: the data file's path")
		}
		model.Config.Source.File, model.Config.Source.SHA256 = abs, meta.DataSHA256
	}
	if meta.Activation = spec.Activation; meta.Activation == "" {
		meta.Activation = cellActivation(seq.Cell) // as checkpoints of an Elman RNN have it
	}
	cfg := optim.TrainConfig{
		Epochs:    spec.Epochs,
		BatchSize: spec.Batch,
		Seed:      spec.Seed,
		Schedule:  sched,
		Patience:  spec.Patience,
		Progress:  spec.Progress,
		Executor:  prob.Executor().String(),
		Meta:      meta,
	}
	tr, err := newTrainer(prob, opt, cfg, spec.Out, spec.Resume)
	if err != nil {
		return nil, err
	}
	if spec.Resume != "" {
		if done := tr.Completed(); done >= spec.Epochs {
			return nil, errors.Errorf("nothing to resume: the checkpoint in %s already has %d epochs and -epochs is %d (raise -epochs to train further)", spec.Resume, done, spec.Epochs)
		}
	}
	start := time.Now()
	res, err := tr.Run()
	if err != nil {
		return nil, err
	}
	rep := &TrainReport{
		Model: spec.Model, Task: task.Name, Optimizer: opt.Name(), Hidden: spec.Hidden, Layers: spec.Layers,
		Params: seq.Params.Size(), Executor: prob.Executor(), TrainLoss: report.Float(res.TrainLoss), BestValid: report.Float(res.BestValid), Epochs: res.Epochs, BestEpoch: res.BestEpoch, Steps: res.Steps,
		History: res.History, Batch: min(spec.Batch, prob.NumExamples()), TrainSequences: prob.NumExamples(),
	}
	// The trainer restored the best parameters: report their losses.
	valid, err := prob.ValidationLoss()
	if err != nil {
		return nil, err
	}
	test, err := prob.TestLoss()
	if err != nil {
		return nil, err
	}
	rep.ValidLoss, rep.TestLoss = report.Float(valid), report.Float(test)
	if !math.IsNaN(task.OptimalLoss) {
		v := task.OptimalLoss
		rep.OptimalLoss = &v
	}
	if task.Kind == datasets.Categorical {
		v := math.Log(float64(task.Out))
		rep.UniformLoss = &v
	}
	rep.Seconds = time.Since(start).Seconds()
	if spec.Out != "" {
		if err := model.Save(spec.Out); err != nil {
			return nil, err
		}
		if err := report.WriteJSON(filepath.Join(spec.Out, "result.json"), rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// cellActivation names the activation of a cell that has one (an
// Activation method, as the Elman and 2-RNN cells), "" otherwise.
func cellActivation(c graph.Cell) string {
	if a, ok := c.(interface{ Activation() activation.Activation }); ok {
		return a.Activation().String()
	}
	return ""
}

// fileSHA256 is the hex SHA-256 of a file's contents.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", errors.Wrap(err, "reading the data file")
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", errors.Wrapf(err, "reading %s", path)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// newTrainer makes a Trainer that writes checkpoint.npz and metrics.jsonl
// to out (created; none when empty) and continues from
// resume/checkpoint.npz when resume is set.
func newTrainer(prob optim.Problem, opt optim.Optimizer, cfg optim.TrainConfig, out, resume string) (*optim.Trainer, error) {
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, errors.Wrap(err, "runs: creating the output directory")
		}
		cfg.CheckpointPath = filepath.Join(out, "checkpoint.npz")
		cfg.MetricsPath = filepath.Join(out, "metrics.jsonl")
	}
	tr, err := optim.NewTrainer(prob, opt, cfg)
	if err != nil {
		return nil, err
	}
	if resume != "" {
		if err := tr.Resume(filepath.Join(resume, "checkpoint.npz")); err != nil {
			return nil, err
		}
	}
	return tr, nil
}
