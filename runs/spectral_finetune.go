package runs

import (
	"io"
	"math"
	"path/filepath"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/spectral"
)

// SpectralTuneSpec describes the fine-tuning of a saved linear 2-RNN on
// a sequence-data file by gradient descent on the mean squared error. The
// zero value of each field but Model and Data gives the default in its
// comment.
type SpectralTuneSpec struct {
	// Model is a model file (spectral.LoadModel) and Data a sequence-data
	// file (datasets.ReadIOData) with the model's d and p.
	Model, Data string
	// Optimizer is a registered optimizer (optim.Names). Default "adam".
	Optimizer string
	// Optim holds its hyperparameters (zero: its defaults).
	Optim optim.Config
	// Schedule is a learning-rate schedule (optim.ParseSchedule);
	// default constant.
	Schedule string
	// Epochs is the total number of epochs (a resumed run continues up to
	// it). Default 100.
	Epochs int
	// Batch is the minibatch size (batches hold one length). Default 100.
	Batch int
	// Patience is the number of epochs without a better validation MSE
	// (training MSE without validation data) before the learning rate
	// drops by 10, twice at most: the third such plateau ends training.
	// Default 5; Off: no drops.
	Patience int
	// Seed selects the split (when the file has none) and the batches.
	// Default 1.
	Seed uint64
	// ValidFrac and TestFrac are the held-out fractions of a file with
	// no split of its own. Default 0.1 each; Off holds out none.
	ValidFrac, TestFrac float64
	// Out is a directory for checkpoint.npz, metrics.jsonl and the tuned
	// model (model.npz, model.json); nothing is written when empty.
	Out string
	// Resume is a directory holding a checkpoint.npz to continue from;
	// the checkpoint must come from the same spec except Epochs. When Out
	// is empty it is set to Resume.
	Resume string
	// Progress receives a progress bar (nil: none).
	Progress io.Writer
}

// SpectralTuneReport is the outcome of a fine-tuning run: MSEs before
// (initial_*) and after, NaN (null) for an empty part.
type SpectralTuneReport struct {
	Model           string       `json:"model"`
	Data            string       `json:"data"`
	Optimizer       string       `json:"optimizer"`
	States          int          `json:"states"`
	NTrain          int          `json:"n_train"`
	NValid          int          `json:"n_valid"`
	NTest           int          `json:"n_test"`
	Epochs          int          `json:"epochs"`
	BestEpoch       int          `json:"best_epoch"`
	InitialTrainMSE report.Float `json:"initial_train_mse"`
	InitialValidMSE report.Float `json:"initial_valid_mse"`
	InitialTestMSE  report.Float `json:"initial_test_mse"`
	TrainMSE        report.Float `json:"train_mse"`
	ValidMSE        report.Float `json:"valid_mse"`
	TestMSE         report.Float `json:"test_mse"`
	Seconds         float64      `json:"seconds"`
}

// tuneMeta is stored in checkpoints so that a resume with other settings
// is refused.
type tuneMeta struct {
	Model     string       `json:"model"`
	ModelSHA  string       `json:"model_sha256"`
	DataSHA   string       `json:"data_sha256"`
	Seed      uint64       `json:"seed"`
	Batch     int          `json:"batch"`
	Patience  int          `json:"patience"`
	ValidFrac float64      `json:"valid_frac"`
	TestFrac  float64      `json:"test_frac"`
	Optimizer string       `json:"optimizer"`
	Optim     optim.Config `json:"optim"`
	States    int          `json:"states"`
	In        int          `json:"in"`
	Out       int          `json:"out"`
}

// TuneSpectral fine-tunes a saved linear 2-RNN (the spectral-then-
// gradient recipe of the 2-RNN paper) with any registered optimizer
// through optim.Trainer, with its checkpoints and resume, and keeps the
// parameters with the best validation MSE.
func TuneSpectral(spec SpectralTuneSpec) (*SpectralTuneReport, error) {
	given, asGiven := givenFracs(spec.ValidFrac, spec.TestFrac), spec
	spec = spec.WithDefaults()
	if err := firstErr(spec.Validate(), asGiven.CheckOutputs()); err != nil {
		return nil, err
	}
	lock, err := LockOutputs([]string{spec.Out}, nil)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	r, _, err := spectral.LoadModel(spec.Model)
	if err != nil {
		return nil, err
	}
	sp, err := splitSpectralData(spec.Data, spec.ValidFrac, spec.TestFrac, spec.Seed, given)
	if err != nil {
		return nil, err
	}
	if sp.train.In != r.In || sp.train.Out != r.Out {
		return nil, errors.Errorf("runs: %s has d = %d, p = %d but the model %s has d = %d, p = %d", spec.Data, sp.train.In, sp.train.Out, spec.Model, r.In, r.Out)
	}
	meta := tuneMeta{Model: "linear-2rnn", Seed: spec.Seed, Batch: spec.Batch, Patience: spec.Patience, ValidFrac: spec.ValidFrac,
		TestFrac: spec.TestFrac, Optimizer: spec.Optimizer, Optim: spec.Optim, States: r.States, In: r.In, Out: r.Out}
	if meta.ModelSHA, err = fileSHA256(spec.Model); err != nil {
		return nil, err
	}
	if meta.DataSHA, err = fileSHA256(spec.Data); err != nil {
		return nil, err
	}
	rep := &SpectralTuneReport{Model: spec.Model, Data: spec.Data, Optimizer: spec.Optimizer, States: r.States,
		NTrain: sp.train.N(), NValid: sp.valid.N(), NTest: sp.test.N()}
	rep.InitialTrainMSE, rep.InitialValidMSE, rep.InitialTestMSE = splitMSEs(r, sp)
	start := time.Now()
	tuned, res, err := tuneRNN(r, sp.train, sp.valid, spec, meta)
	if err != nil {
		return nil, err
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.Epochs, rep.BestEpoch = res.Epochs, res.BestEpoch
	rep.TrainMSE, rep.ValidMSE, rep.TestMSE = splitMSEs(tuned, sp)
	if spec.Out != "" {
		info := spectral.ModelInfo{Method: "finetune:" + spec.Optimizer, Data: spec.Data, Seed: spec.Seed, TrainMSE: float64(rep.TrainMSE)}
		if err := saveModel(spec.Out, tuned, info); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// TuneRNN is the one fine-tuning of a linear 2-RNN, on sequences in
// memory: the regression of r on train (twornn.FinetuneProblem, the
// parameters of the best MSE on valid kept, or of the best training loss
// when valid is empty) trained by optim.Trainer with the spec's
// Optimizer, Optim, Schedule, Epochs, Batch, Patience (the rate divided
// by 10 at a plateau, the third ending training) and Seed, its
// checkpoints and metrics in Out and resumed from Resume (Model, Data,
// ValidFrac and TestFrac are not read). Its zero fields take
// SpectralTuneSpec's defaults: Adam at 0.001, 100 epochs, batches of 100,
// patience 5, seed 1. TuneSpectral runs it on files and the tiht+sgd
// method of RunSpectral and RunSpectralData after the spectral estimate.
// A run that diverges is an error (optim.IsDiverged).
func TuneRNN(r spectral.RNN, train, valid datasets.IOData, spec SpectralTuneSpec) (spectral.RNN, *optim.Result, error) {
	spec = spec.WithDefaults()
	if err := spec.validateTraining(); err != nil {
		return spectral.RNN{}, nil, err
	}
	return tuneRNN(r, train, valid, spec, nil)
}

// tuneRNN is TuneRNN of a checked spec; meta identifies the run in its
// checkpoints.
func tuneRNN(r spectral.RNN, train, valid datasets.IOData, spec SpectralTuneSpec, meta any) (spectral.RNN, *optim.Result, error) {
	prob, err := twornn.NewFinetuneProblem(r, train, valid)
	if err != nil {
		return spectral.RNN{}, nil, err
	}
	opt, err := optim.New(spec.Optimizer, spec.Optim)
	if err != nil {
		return spectral.RNN{}, nil, err
	}
	cfg := optim.TrainConfig{Epochs: spec.Epochs, BatchSize: spec.Batch, Seed: spec.Seed, Patience: trainerPatience(spec.Patience), Progress: spec.Progress, Meta: meta}
	if spec.Schedule != "" {
		if cfg.Schedule, err = optim.ParseSchedule(spec.Schedule); err != nil {
			return spectral.RNN{}, nil, err
		}
	}
	tr, err := newTrainer(prob, opt, cfg, spec.Out, spec.Resume)
	if err != nil {
		return spectral.RNN{}, nil, err
	}
	res, err := tr.Run()
	if err != nil {
		return spectral.RNN{}, res, err
	}
	return prob.RNN(), res, nil
}

// splitMSEs returns the model's MSE on the three parts (NaN when a part
// is empty).
func splitMSEs(m spectral.RNN, sp spectralSplit) (train, valid, test report.Float) {
	mse := func(s datasets.IOData) report.Float {
		v, err := m.MSEIO(s)
		if s.N() == 0 || err != nil {
			return report.Float(math.NaN())
		}
		return report.Float(v)
	}
	return mse(sp.train), mse(sp.valid), mse(sp.test)
}

// CheckOutputs checks, before any work, the directory the tuning writes
// (Out, or Resume without Out): writable, and none of its files
// (checkpoint.npz, metrics.jsonl, model.npz, model.json) one of the
// inputs Model and Data. TuneSpectral calls it; the error is a
// *PathError.
func (s SpectralTuneSpec) CheckOutputs() error {
	name, dir := "{Out}", s.Out
	if dir == "" {
		name, dir = "{Resume}", s.Resume
	}
	if dir == "" {
		return nil
	}
	if err := CheckDirOut(name, dir); err != nil {
		return err
	}
	for _, f := range []string{"checkpoint.npz", "metrics.jsonl", "model.npz", "model.json"} {
		if err := CheckNotInput(name, filepath.Join(dir, f), s.Model, s.Data); err != nil {
			return err
		}
	}
	return nil
}
