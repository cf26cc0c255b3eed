package optim

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// Run trains until TrainConfig.Epochs epochs are complete in total or the
// last allowed plateau is met, then puts the best parameters (by
// validation loss, or by epoch training loss without a Validator) into
// the Problem's parameters and runs the AtEnd hooks.
//
// Each epoch: the batches (from the Problem's Batcher, or shuffled
// indices), for each a LossGrad and an optimizer step (StepProblem when the
// optimizer is a ProblemStepper); the validation loss; best-parameter
// tracking; the schedule, then a drop if Patience epochs passed without
// improvement; the epoch hooks (metrics, checkpoint, progress, the
// caller's).
//
// Run returns a Result even with an error, describing the completed
// epochs. After a NonFiniteError or a DivergedError (see IsDiverged) the
// parameters are the last good ones; after another error they are as the
// failure left them, not the best.
func (t *Trainer) Run() (*Result, error) {
	r, err := t.run()
	if err != nil && t.progress != nil {
		t.progress.finish()
	}
	return r, err
}

func (t *Trainer) run() (*Result, error) {
	t.cur = curState{}
	t.firstLoss = math.NaN()
	if t.p.Params() != t.params || t.params.SameLayout(t.best) != nil {
		return t.result(), errors.New("optim: the problem's parameter set changed since NewTrainer")
	}
	copyParams(t.lastGood, t.params)
	if !t.begun {
		if err := t.initialValidation(); err != nil {
			return t.result(), err
		}
		t.begun = true
	}
	for !t.done() {
		if err := t.runEpoch(); err != nil {
			if IsDiverged(err) {
				copyParams(t.params, t.lastGood)
			}
			return t.result(), err
		}
	}
	copyParams(t.params, t.best)
	if err := t.runHooks(EndEvent, nil); err != nil {
		return t.result(), err
	}
	return t.result(), nil
}

// initialValidation sets the initial parameters as the best ones, with
// their validation loss when there is a Validator (so that training that
// only makes things worse gives back its starting point, BestEpoch 0).
func (t *Trainer) initialValidation() error {
	copyParams(t.best, t.params)
	t.bestEpoch = 0
	t.bestValid = math.Inf(1)
	if t.valid == nil {
		return nil
	}
	v, err := t.valid.ValidationLoss()
	if err != nil {
		return errors.Wrap(err, "optim: validation loss of the initial parameters")
	}
	if !finite64(v) {
		return &NonFiniteError{What: "validation loss", Value: v, Loss: math.NaN()}
	}
	t.bestValid = v
	return nil
}

// runEpoch runs epoch t.epoch+1 and its epoch hooks.
func (t *Trainer) runEpoch() error {
	e := t.epoch // 0-based
	batches, err := t.batches(e)
	if err != nil {
		return err
	}
	c := &t.cur
	c.batch, c.batches, c.sum, c.count = 0, len(batches), 0, 0
	t.setStepRate(e, 0, len(batches))
	c.batchLoss, c.lr, c.epochStart = math.NaN(), t.opt.LearningRate(), time.Now()
	for i, b := range batches {
		t.setStepRate(e, i, len(batches))
		loss, err := t.trainStep(b)
		if err != nil {
			return err
		}
		c.batch, c.batchLoss = i+1, loss
		c.sum += loss * float64(len(b))
		c.count += len(b)
		t.step++
		if err := t.runHooks(StepEvent, nil); err != nil {
			return err
		}
	}
	st, err := t.endEpoch(e)
	if err != nil {
		return err
	}
	return t.runHooks(EpochEvent, &st)
}

// setStepRate sets the rate of step i of the n steps of 0-based epoch e
// when the schedule is a StepSchedule.
func (t *Trainer) setStepRate(e, i, n int) {
	if t.stepSched == nil {
		return
	}
	a, b := float64(e)+float64(i)/float64(n), float64(e)+float64(i+1)/float64(n)
	t.opt.SetLearningRate(t.baseLR * t.stepSched.Factor(a, b))
}

// gradientFree returns the problem as an Evaluator when the optimizer
// declares (GradientFree) that it needs no gradient.
func (t *Trainer) gradientFree() (Evaluator, bool) {
	gf, ok := t.opt.(GradientFree)
	if !ok || t.stepper == nil || gf.NeedsGradient() {
		return nil, false
	}
	ev, ok := t.p.(Evaluator)
	return ev, ok
}

// trainStep takes one optimizer step on batch b and returns the loss at
// the parameters before the step.
func (t *Trainer) trainStep(b []int) (float64, error) {
	t.grads.Zero()
	if nz, ok := t.p.(Noisy); ok {
		nz.SetNoiseSeed(noiseSeed(t.cfg.Seed, t.step))
	}
	var (
		loss float64
		err  error
	)
	if ev, ok := t.gradientFree(); ok {
		loss, err = ev.Loss(b)
	} else {
		loss, err = t.p.LossGrad(b, t.grads)
	}
	if err != nil {
		return 0, errors.Wrapf(err, "optim: step %d (epoch %d)", t.step+1, t.epoch+1)
	}
	if !finite64(loss) {
		return 0, t.nonFinite("loss", loss, loss)
	}
	if err := t.checkDiverged(loss); err != nil {
		return 0, err
	}
	if name, v, bad := firstNonFinite(t.grads); bad {
		return 0, t.nonFinite(`gradient of "`+name+`"`, v, loss)
	}
	copyParams(t.lastGood, t.params)
	if t.stepper != nil {
		err = t.stepper.StepProblem(t.p, b, loss, t.grads)
	} else {
		err = t.opt.Step(t.params, t.grads)
	}
	if err != nil {
		return 0, errors.Wrapf(err, "optim: step %d (epoch %d)", t.step+1, t.epoch+1)
	}
	if name, v, bad := firstNonFinite(t.params); bad {
		return 0, t.nonFinite(`parameter "`+name+`"`, v, loss)
	}
	return loss, nil
}

// checkDiverged returns a *DivergedError when loss exceeds
// DivergeFactor times the reference: the first epoch's mean training
// loss, or during the first epoch the first step's loss, but at least
// DivergeReferenceFloor.
func (t *Trainer) checkDiverged(loss float64) error {
	ref := t.firstLoss
	if len(t.history) > 0 {
		ref = t.history[0].TrainLoss
	} else if t.step == 0 {
		t.firstLoss = loss
		return nil
	}
	if !(ref >= 0) || math.IsInf(t.cfg.DivergeFactor, 1) || loss <= t.cfg.DivergeFactor*max(ref, DivergeReferenceFloor) {
		return nil
	}
	return &DivergedError{Epoch: t.epoch + 1, Step: t.step + 1, Loss: loss, Reference: ref, Factor: t.cfg.DivergeFactor}
}

func (t *Trainer) nonFinite(what string, v, loss float64) *NonFiniteError {
	if what == "loss" {
		loss = v
	}
	return &NonFiniteError{Epoch: t.epoch + 1, Step: t.step + 1, Loss: loss, What: what, Value: v}
}

// endEpoch validates, tracks the best parameters, applies the schedule
// and a plateau drop, and records the epoch (0-based e).
func (t *Trainer) endEpoch(e int) (EpochStats, error) {
	c := &t.cur
	st := EpochStats{Epoch: e + 1, Step: t.step, TrainLoss: c.sum / float64(c.count), ValidLoss: math.NaN(), LR: c.lr}
	if err := EvalAt(t.opt, t.params, func() error { return t.trackBest(e, &st) }); err != nil {
		return st, err
	}
	lr := t.opt.LearningRate()
	if t.cfg.Schedule != nil {
		lr = t.cfg.Schedule.Next(e, lr, st.ValidLoss)
	}
	if t.cfg.Patience > 0 && t.sinceImprove >= t.cfg.Patience {
		t.drops++
		t.sinceImprove = 0
		if t.drops < t.cfg.MaxDrops {
			if err := t.drop(); err != nil {
				return st, err
			}
			lr *= t.cfg.DropFactor
			t.baseLR *= t.cfg.DropFactor
			st.Dropped = true
		}
	}
	t.opt.SetLearningRate(lr)
	t.epoch++
	st.Seconds = time.Since(c.epochStart).Seconds()
	t.elapsed += st.Seconds
	st.Elapsed = t.elapsed
	t.history = append(t.history, st)
	return st, nil
}

// trackBest validates the current parameters (at the optimizer's
// evaluation point: see Averager) and keeps them if they are the best so
// far, by validation loss or, without a Validator, by the epoch's
// training loss.
func (t *Trainer) trackBest(e int, st *EpochStats) error {
	metric := st.TrainLoss
	if t.valid != nil {
		v, err := t.valid.ValidationLoss()
		if err != nil {
			return errors.Wrapf(err, "optim: validation loss after epoch %d", e+1)
		}
		if !finite64(v) {
			return &NonFiniteError{Epoch: e + 1, Step: t.step, Loss: math.NaN(), What: "validation loss", Value: v}
		}
		st.ValidLoss, metric = v, v
	}
	if metric < t.bestValid-t.cfg.MinDelta {
		copyParams(t.best, t.params)
		t.bestValid, t.bestEpoch, t.sinceImprove = metric, e+1, 0
		st.Best = true
	} else if e+1 > t.cfg.Warmup {
		t.sinceImprove++
	}
	return nil
}

// drop applies ResetOnDrop and RestoreOnDrop.
func (t *Trainer) drop() error {
	if t.cfg.ResetOnDrop {
		if err := t.opt.LoadState(params.New()); err != nil {
			return errors.Wrap(err, "optim: resetting the optimizer at a drop")
		}
	}
	if t.cfg.RestoreOnDrop {
		copyParams(t.params, t.best)
	}
	return nil
}

// batches returns the minibatches of 0-based epoch e.
func (t *Trainer) batches(e int) ([][]int, error) {
	n := t.p.NumExamples()
	size := t.cfg.BatchSize
	if size == 0 || size > n {
		size = n
	}
	rng := epochRand(t.cfg.Seed, e)
	if b, ok := t.p.(Batcher); ok {
		var out [][]int
		for _, batch := range b.Batches(rng, size) {
			for _, i := range batch {
				if i < 0 || i >= n {
					return nil, errors.Errorf("optim: Batcher gave example %d in epoch %d, outside [0, %d)", i, e+1, n)
				}
			}
			if len(batch) > 0 {
				out = append(out, batch)
			}
		}
		if len(out) == 0 {
			return nil, errors.Errorf("optim: Batcher gave no examples for epoch %d", e+1)
		}
		return out, nil
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if !t.cfg.NoShuffle {
		rng.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	}
	out := make([][]int, 0, (n+size-1)/size)
	for i := 0; i < n; i += size {
		out = append(out, idx[i:min(i+size, n)])
	}
	return out, nil
}

// epochRand returns the generator of 0-based epoch e: a PCG seeded with
// seed and a mix of e, so that neighbouring epochs get unrelated streams.
func epochRand(seed uint64, e int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, splitmix64(uint64(e)+0x9e3779b97f4a7c15)))
}

// splitmix64 is the finaliser of Steele et al.'s SplitMix64, a bijective
// mixing of 64-bit words.
func splitmix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// copyParams copies src into dst, two sets the Trainer made alike (Run
// checks that the problem's set kept its layout); a failure is a bug.
func copyParams(dst, src *params.Params) {
	if err := dst.CopyFrom(src); err != nil {
		panic(err)
	}
}

func finite64(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// firstNonFinite returns the name and value of the first NaN or Inf in p.
func firstNonFinite(p *params.Params) (string, float64, bool) {
	for _, n := range p.Names() {
		for _, v := range p.Data(n) {
			if !finite64(v) {
				return n, v, true
			}
		}
	}
	return "", 0, false
}

// noiseSeed is the seed of the random ops of training step step (from 0)
// of a run seeded with seed: a function of both only, so a resumed run
// draws what the uninterrupted one did.
func noiseSeed(seed uint64, step int) uint64 {
	z := seed*0x9e3779b97f4a7c15 + uint64(step) + 0x6e6f697365 // "noise"
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
