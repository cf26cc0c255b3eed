package optim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// TrainConfig configures a Trainer. The zero value is usable: every
// field's default is given in its comment.
//
// Epochs are numbered from 1 in EpochStats, metrics, hooks and errors;
// epoch 0 stands for the parameters before training.
type TrainConfig struct {
	// Epochs is the total number of epochs; a resumed run continues up to
	// it. If Epochs is 0, it will be defaulted to 1.
	Epochs int
	// BatchSize is the number of examples per minibatch; the last batch of
	// an epoch may be smaller. If BatchSize is 0 (or at least the number
	// of examples), every step uses the full training set.
	BatchSize int
	// Seed selects the shuffling: the batches of epoch e depend only on
	// (Seed, e), through a PCG generator, so a resumed run needs no
	// generator state.
	Seed uint64
	// NoShuffle keeps the examples in index order. It affects only the
	// default batching: a Problem that implements Batcher gets the epoch's
	// generator regardless.
	NoShuffle bool
	// Schedule sets the learning rate after each epoch, or before every
	// step if it is a StepSchedule. If Schedule is nil, the rate is
	// constant (apart from plateau drops).
	Schedule Schedule
	// Patience is the number of epochs without improvement of the best
	// validation loss (the epoch's training loss when the Problem has no
	// Validator) after which the learning rate drops; see MaxDrops. If
	// Patience is 0, there are no drops and no early stopping.
	Patience int
	// Warmup is the number of epochs at the start that never count
	// towards Patience (the u-MPS authors use 5). Improvements during the
	// warm-up still set the best parameters.
	Warmup int
	// DropFactor multiplies the learning rate at a drop. If DropFactor is
	// 0, it will be defaulted to 0.1. It must be in (0, 1].
	DropFactor float64
	// MaxDrops ends training at the MaxDrops-th plateau, whose drop is not
	// taken: with the default, rates lr, lr/10 and lr/100 are used and the
	// third plateau stops (the u-MPS paper's scheme); 1 is classic early
	// stopping. If MaxDrops is 0, it will be defaulted to 3.
	MaxDrops int
	// MinDelta is how much a loss must fall below the best one to count
	// as an improvement. If MinDelta is 0, any decrease counts.
	MinDelta float64
	// ResetOnDrop re-initialises the optimizer's state (moments, step
	// counts) at each drop, as the u-MPS authors' code does.
	ResetOnDrop bool
	// RestoreOnDrop puts the best parameters back at each drop, so that
	// the lower rate starts from the best point rather than the current
	// one. By default training continues from the current parameters.
	RestoreOnDrop bool
	// CheckpointPath is the .npz file written, atomically, at the end of
	// every CheckpointEvery-th epoch and of the last epoch. If it is
	// empty, no checkpoint is written. See Trainer.Resume.
	CheckpointPath string
	// CheckpointEvery is the number of epochs between checkpoints. If
	// CheckpointEvery is 0, it will be defaulted to 1.
	CheckpointEvery int
	// MetricsPath is a JSON Lines file with one object per epoch (fields
	// epoch, step, train_loss, valid_loss, lr, seconds, elapsed, best,
	// dropped, and executor when Executor is set; a missing or non-finite
	// loss is null). A run rewrites it
	// from the epochs it knows (after Resume, the checkpoint's) and then
	// appends. If it is empty, no metrics are written.
	MetricsPath string
	// Progress receives a one-line progress bar, redrawn with '\r' and
	// ended with a newline when training ends. The caller decides whether
	// it is a terminal. If Progress is nil, no progress is shown.
	Progress io.Writer
	// Executor labels what runs the problem's steps, as the problem's
	// maker names it (runs: layers.Problem.Executor, "tape/float64"). It
	// is written into every line of the metrics file (field executor) and
	// at the start of the progress line; the Trainer does nothing else
	// with it. If it is empty, neither shows one.
	Executor string
	// Hooks run during training, after the built-in metrics, checkpoint
	// and progress hooks, in order.
	Hooks []Hook
	// DivergeFactor stops training with a *DivergedError when a step's
	// training loss exceeds DivergeFactor times the first epoch's mean
	// training loss (during the first epoch, the first step's loss), a
	// reference below DivergeReferenceFloor counting as that; the check
	// applies only when that reference is not negative. If
	// DivergeFactor is 0, it will be defaulted to 1e4; math.Inf(1) turns
	// the check off. NaN and infinite losses always stop training (see
	// NonFiniteError).
	DivergeFactor float64
	// Meta describes the model; it is stored (as JSON) in checkpoints, and
	// Resume refuses a checkpoint whose Meta differs. It must be
	// encodable by encoding/json. If Meta is nil, nothing is compared.
	Meta any
}

// Batcher is implemented by problems that choose the minibatches of an
// epoch themselves, for example to group sequences of similar lengths.
// Batches returns the epoch's batches of example indices in
// [0, NumExamples()); batchSize is the configured size (NumExamples() for
// full batches). All randomness must come from rng, which depends only on
// (TrainConfig.Seed, epoch), so that a resumed run sees the same batches.
type Batcher interface {
	Batches(rng *rand.Rand, batchSize int) [][]int
}

// EpochStats describes one finished epoch.
type EpochStats struct {
	// Epoch is the epoch's number, from 1.
	Epoch int
	// Step is the number of optimizer steps taken at the end of the epoch.
	Step int
	// TrainLoss is the mean training loss over the epoch's examples, each
	// measured at the parameters of its step.
	TrainLoss float64
	// ValidLoss is the validation loss at the end of the epoch, NaN
	// without a Validator.
	ValidLoss float64
	// LR is the learning rate the epoch used.
	LR float64
	// Seconds is the epoch's wall time: its steps (with their hooks) and
	// validation, not the epoch hooks (checkpoints, metrics).
	Seconds float64
	// Elapsed is the sum of Seconds over the epochs so far, including
	// those before a Resume: the training time to plot losses against.
	Elapsed float64
	// Best reports whether the epoch gave the best parameters so far.
	Best bool
	// Dropped reports whether the learning rate dropped after the epoch.
	Dropped bool
}

// Result summarises a training run.
type Result struct {
	// Epochs is the number of epochs completed in total, including those
	// before a Resume.
	Epochs int
	// Steps is the number of optimizer steps taken in total.
	Steps int
	// BestEpoch is the epoch whose parameters were best and are restored
	// at the end of Run; 0 means the initial parameters (whose validation
	// loss is measured before the first epoch when there is a Validator).
	BestEpoch int
	// BestValid is the best validation loss, or the best epoch training
	// loss without a Validator.
	BestValid float64
	// TrainLoss and ValidLoss are the last epoch's losses (NaN if none).
	TrainLoss, ValidLoss float64
	// LR is the learning rate after the last epoch.
	LR float64
	// Drops is the number of plateaus met (see TrainConfig.MaxDrops).
	Drops int
	// Seconds is the total training time (the last epoch's Elapsed).
	Seconds float64
	// History holds one entry per completed epoch.
	History []EpochStats
	// StoppedEarly reports that training ended at the MaxDrops-th plateau
	// before reaching TrainConfig.Epochs.
	StoppedEarly bool
}

// NonFiniteError reports a NaN or infinite loss, gradient, parameter or
// validation loss. Training stops; the parameters in memory are put back
// to the last values whose loss and gradient were finite (the optimizer's
// state is not rolled back), and the last checkpoint on disk is left as
// it was.
type NonFiniteError struct {
	// Epoch is the epoch in progress (from 1) and Step the step that
	// failed (from 1; for a validation loss, the last step taken).
	Epoch, Step int
	// Loss is the step's training loss (NaN if it is the culprit or for a
	// validation loss).
	Loss float64
	// What names the culprit: "loss", "validation loss",
	// `gradient of "W"` or `parameter "W"` (after the update).
	What string
	// Value is the offending value.
	Value float64
}

// Error names the step, the epoch, the culprit and its value, e.g.
// "optim: diverged at step 37 (epoch 3): loss is NaN".
func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("optim: diverged at step %d (epoch %d): %s is %v", e.Step, e.Epoch, e.What, e.Value)
}

// DivergeReferenceFloor is the smallest reference loss of the divergence
// check (TrainConfig.DivergeFactor). An exact model's loss is at the
// rounding level of float64 (1e-31 for a spectral 2-RNN learned from
// noise-free data), and the first steps from it, rounding noise or an
// optimizer's steps of the size of its rate (Adam's, whatever the
// gradient), reach 1e-6 relative to targets of order 1: not a blow-up.
const DivergeReferenceFloor = 1e-8

// DivergedError reports a finite training loss above
// TrainConfig.DivergeFactor times the reference loss. As after a
// NonFiniteError, training stops, the parameters in memory are put back
// to those of the last step whose loss was below the limit, and the last
// checkpoint on disk is left as it was.
type DivergedError struct {
	// Epoch is the epoch in progress (from 1) and Step the step whose loss
	// was too large (from 1).
	Epoch, Step int
	// Loss is the step's training loss, Reference the first epoch's mean
	// training loss (the first step's during epoch 1), compared at
	// DivergeReferenceFloor when below it, and Factor the configured
	// TrainConfig.DivergeFactor.
	Loss, Reference, Factor float64
}

// Error names the step, the epoch, the loss and the limit, e.g.
// "optim: diverged at step 12 (epoch 2): loss 3.1e+40 is above 1e+04 x the first epoch's 0.69".
func (e *DivergedError) Error() string {
	ref := "first epoch's"
	if e.Epoch == 1 {
		ref = "first step's"
	}
	if e.Reference < DivergeReferenceFloor {
		return fmt.Sprintf("optim: diverged at step %d (epoch %d): loss %.3g is above %.3g x %.3g (the %s %.3g, below that floor)",
			e.Step, e.Epoch, e.Loss, e.Factor, DivergeReferenceFloor, ref, e.Reference)
	}
	return fmt.Sprintf("optim: diverged at step %d (epoch %d): loss %.3g is above %.3g x the %s %.3g",
		e.Step, e.Epoch, e.Loss, e.Factor, ref, e.Reference)
}

// IsDiverged reports whether err is (or wraps) a *NonFiniteError or a
// *DivergedError: training stopped with the last good parameters in
// memory.
func IsDiverged(err error) bool {
	var nf *NonFiniteError
	var de *DivergedError
	return errors.As(err, &nf) || errors.As(err, &de)
}

// Trainer runs the training loop of a Problem with an Optimizer: epochs of
// minibatches, validation, best-parameter tracking, learning-rate drops on
// plateaus, a schedule, a divergence guard, hooks, checkpoints and exact
// resumption.
//
// The Problem must return the same *params.Params from every call to
// Params; the Trainer updates it in place.
//
// A Trainer is not safe for concurrent use: one goroutine calls Resume
// and Run, and nothing else may touch the Problem's parameters while Run
// is going (hooks run on Run's goroutine and may read them). Trainers over
// distinct problems and optimizers run in parallel freely.
type Trainer struct {
	p        Problem
	opt      Optimizer
	stepper  ProblemStepper // opt, if it is one
	valid    Validator      // p, if it is one
	cfg      TrainConfig    // with defaults
	metaJSON []byte         // json.Marshal(cfg.Meta)
	hooks    []Hook         // built-in, then the caller's
	progress *progressBar   // nil without TrainConfig.Progress

	params   *params.Params // p.Params()
	grads    *params.Params
	lastGood *params.Params // the last parameters with a finite loss and gradient
	best     *params.Params

	// Progress, all saved in checkpoints.
	begun        bool // the initial evaluation is done
	epoch        int  // epochs completed
	step         int  // steps completed
	bestValid    float64
	bestEpoch    int
	drops        int
	sinceImprove int
	elapsed      float64 // seconds spent in completed epochs
	history      []EpochStats

	// firstLoss is the first step's loss, the divergence reference until
	// the first epoch ends (NaN before the first step of a run).
	firstLoss float64

	// stepSched is cfg.Schedule if it is a StepSchedule, and baseLR the
	// rate its factors multiply (saved in checkpoints).
	stepSched StepSchedule
	baseLR    float64

	// Per Run.
	cur curState
}

// curState is what hooks see of the epoch in progress.
type curState struct {
	batch, batches int
	batchLoss      float64
	sum            float64 // loss times examples
	count          int
	lr             float64
	epochStart     time.Time
}

// NewTrainer checks cfg and the problem, and returns a Trainer that starts
// from p's current parameters. If opt is a ProblemStepper, its Check runs
// here, so that a problem lacking what the optimizer needs fails before
// any work is done.
func NewTrainer(p Problem, opt Optimizer, cfg TrainConfig) (*Trainer, error) {
	if p == nil || opt == nil {
		return nil, errors.New("optim: NewTrainer needs a problem and an optimizer")
	}
	params := p.Params()
	if params == nil || params.Len() == 0 {
		return nil, errors.New("optim: the problem has no parameters")
	}
	if p.NumExamples() <= 0 {
		return nil, errors.Errorf("optim: the problem has no training examples (NumExamples is %d)", p.NumExamples())
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	t := &Trainer{p: p, opt: opt, cfg: cfg, params: params, bestValid: math.Inf(1), baseLR: opt.LearningRate()}
	t.stepSched, _ = cfg.Schedule.(StepSchedule)
	if t.metaJSON, err = json.Marshal(cfg.Meta); err != nil {
		return nil, errors.Errorf("optim: TrainConfig.Meta cannot be encoded as JSON: %v", err)
	}
	if ps, ok := opt.(ProblemStepper); ok {
		if err := ps.Check(p); err != nil {
			return nil, err
		}
		t.stepper = ps
	}
	t.valid, _ = p.(Validator)
	if vc, ok := p.(ValidationChecker); ok && !vc.HasValidation() {
		t.valid = nil
	}
	if cfg.ResetOnDrop {
		if err := checkResettable(opt); err != nil {
			return nil, err
		}
	}
	t.hooks = append(t.builtinHooks(), cfg.Hooks...)
	t.grads = params.Like()
	t.best = params.Clone()
	t.lastGood = params.Clone()
	return t, nil
}

// withDefaults validates c and fills in its defaults; errors name the field.
func (c TrainConfig) withDefaults() (TrainConfig, error) {
	if c.Epochs == 0 {
		c.Epochs = 1
	}
	if c.DropFactor == 0 {
		c.DropFactor = 0.1
	}
	if c.MaxDrops == 0 {
		c.MaxDrops = 3
	}
	if c.CheckpointEvery == 0 {
		c.CheckpointEvery = 1
	}
	if c.DivergeFactor == 0 {
		c.DivergeFactor = 1e4
	}
	if !(c.DivergeFactor > 1) {
		return c, errors.Errorf("optim: TrainConfig.DivergeFactor must be > 1 (or 0 for the default), got %v", c.DivergeFactor)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"Epochs", c.Epochs}, {"BatchSize", c.BatchSize}, {"Patience", c.Patience}, {"Warmup", c.Warmup},
		{"MaxDrops", c.MaxDrops}, {"CheckpointEvery", c.CheckpointEvery}} {
		if f.v < 0 {
			return c, errors.Errorf("optim: TrainConfig.%s must be >= 0, got %d", f.name, f.v)
		}
	}
	if !(c.DropFactor > 0 && c.DropFactor <= 1) {
		return c, errors.Errorf("optim: TrainConfig.DropFactor must be in (0, 1], got %v", c.DropFactor)
	}
	if !(c.MinDelta >= 0) || math.IsInf(c.MinDelta, 0) {
		return c, errors.Errorf("optim: TrainConfig.MinDelta must be >= 0 and finite, got %v", c.MinDelta)
	}
	names := map[string]bool{}
	for i := range c.Hooks {
		h := &c.Hooks[i]
		if h.Name == "" {
			h.Name = fmt.Sprintf("hook %d", i)
		}
		switch {
		case h.Fn == nil:
			return c, errors.Errorf("optim: TrainConfig.Hooks[%d] (%q) has no Fn", i, h.Name)
		case h.EverySteps < 0:
			return c, errors.Errorf("optim: TrainConfig.Hooks[%d] (%q): EverySteps must be >= 0, got %d", i, h.Name, h.EverySteps)
		case h.EverySteps == 0 && !h.EveryEpoch && !h.AtEnd:
			return c, errors.Errorf("optim: TrainConfig.Hooks[%d] (%q) never runs: set EverySteps, EveryEpoch or AtEnd", i, h.Name)
		case names[h.Name] || builtinHook(h.Name):
			return c, errors.Errorf("optim: TrainConfig.Hooks[%d]: duplicate or reserved hook name %q", i, h.Name)
		}
		names[h.Name] = true
	}
	c.Hooks = append([]Hook(nil), c.Hooks...)
	return c, nil
}

// checkResettable fails unless opt accepts an empty state (a reset), which
// ResetOnDrop needs; opt's state is left as it was.
func checkResettable(opt Optimizer) error {
	saved := opt.State()
	if err := opt.LoadState(params.New()); err != nil {
		return errors.Errorf("optim: TrainConfig.ResetOnDrop: %s cannot reset its state: %v", opt.Name(), err)
	}
	if err := opt.LoadState(saved); err != nil {
		return errors.Errorf("optim: TrainConfig.ResetOnDrop: %s cannot restore its state: %v", opt.Name(), err)
	}
	return nil
}

// Completed returns the number of epochs completed in total, including
// those before a Resume: Run has nothing to do when it is at least
// TrainConfig.Epochs.
func (t *Trainer) Completed() int { return t.epoch }

// done reports whether training is over: all epochs run, or the last
// allowed plateau met.
func (t *Trainer) done() bool { return t.epoch >= t.cfg.Epochs || t.stoppedEarly() }

func (t *Trainer) stoppedEarly() bool { return t.cfg.Patience > 0 && t.drops >= t.cfg.MaxDrops }

// result summarises the training so far.
func (t *Trainer) result() *Result {
	r := &Result{
		Epochs: t.epoch, Steps: t.step, BestEpoch: t.bestEpoch, BestValid: t.bestValid,
		TrainLoss: math.NaN(), ValidLoss: math.NaN(), LR: t.opt.LearningRate(), Drops: t.drops,
		Seconds: t.elapsed, History: append([]EpochStats(nil), t.history...),
		StoppedEarly: t.stoppedEarly() && t.epoch < t.cfg.Epochs,
	}
	if n := len(t.history); n > 0 {
		r.TrainLoss, r.ValidLoss = t.history[n-1].TrainLoss, t.history[n-1].ValidLoss
	}
	return r
}
