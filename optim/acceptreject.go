package optim

import (
	"math"
	"strings"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// AcceptRejectConfig configures AcceptReject.
type AcceptRejectConfig struct {
	// Up multiplies the learning rate after an accepted step. If Up is 0,
	// it will be defaulted to 1.1. It must be >= 1.
	Up float64
	// Down multiplies the learning rate after a rejected step. If Down is
	// 0, it will be defaulted to 0.5. It must be in (0, 1).
	Down float64
	// Retries is how many times a rejected step is tried again at the
	// reduced rate within the same StepProblem call, reusing the gradient
	// (the parameters are back where it was taken). If Retries is 0, a
	// rejected call leaves the parameters unchanged and the next call,
	// whose gradient is then the same, tries again.
	Retries int
}

func (c AcceptRejectConfig) withDefaults() AcceptRejectConfig {
	if c.Up == 0 {
		c.Up = 1.1
	}
	if c.Down == 0 {
		c.Down = 0.5
	}
	return c
}

// AcceptReject is the learning-rate control of section 2 of the Riemannian
// paper ("Learning rate control"): after each step of the inner optimizer
// the loss is evaluated again on the same batch; if it did not increase
// the step is kept and the learning rate multiplied by Up, otherwise the
// step is undone exactly (parameters and inner optimizer state are
// restored from copies taken before it) and the rate is multiplied by Down.
// The rate thus settles near the largest value for which steps still
// improve the loss (it oscillates slightly around it, as the paper notes).
//
// It is meant for full-batch problems: on a minibatch the comparison only
// says the step helped that batch. It needs a Problem that implements
// Evaluator (Check says so before any work) and so implements
// ProblemStepper; its plain Step returns an error. If the inner optimizer
// is itself a ProblemStepper (a metric-based optimizer), its StepProblem
// makes the step.
type AcceptReject struct {
	inner    Optimizer
	c        AcceptRejectConfig
	accepted int
	rejected int
	saved    *params.Params // parameters before the step
}

var (
	_ ProblemStepper = (*AcceptReject)(nil)
	_ Averager       = (*AcceptReject)(nil)
)

// NewAcceptReject wraps inner, whose learning rate it controls.
func NewAcceptReject(inner Optimizer, c AcceptRejectConfig) (*AcceptReject, error) {
	if inner == nil {
		return nil, errors.New("optim: acceptreject needs an inner optimizer")
	}
	c = c.withDefaults()
	switch {
	case !(c.Up >= 1) || math.IsInf(c.Up, 0):
		return nil, errors.Errorf("optim: up must be >= 1 and finite, got %v", c.Up)
	case !(c.Down > 0 && c.Down < 1):
		return nil, errors.Errorf("optim: down must be in (0, 1), got %v", c.Down)
	case c.Retries < 0:
		return nil, errors.Errorf("optim: retries must be >= 0, got %d", c.Retries)
	}
	return &AcceptReject{inner: inner, c: c}, nil
}

// Name implements Optimizer: "acceptreject(<inner>)".
func (a *AcceptReject) Name() string { return "acceptreject(" + a.inner.Name() + ")" }

// Inner returns the wrapped optimizer.
func (a *AcceptReject) Inner() Optimizer { return a.inner }

// LearningRate implements Optimizer; it is the inner optimizer's rate.
func (a *AcceptReject) LearningRate() float64 { return a.inner.LearningRate() }

// SetLearningRate implements Optimizer; it sets the inner optimizer's rate.
func (a *AcceptReject) SetLearningRate(lr float64) { a.inner.SetLearningRate(lr) }

// EvalParams implements Averager: the inner optimizer's evaluation point
// when it is an Averager (schedule-free AdamW), p itself otherwise.
func (a *AcceptReject) EvalParams(dst, p *params.Params) error {
	if av, ok := a.inner.(Averager); ok {
		return av.EvalParams(dst, p)
	}
	return dst.CopyFrom(p)
}

// Accepted is the number of steps kept so far.
func (a *AcceptReject) Accepted() int { return a.accepted }

// Rejected is the number of steps undone so far.
func (a *AcceptReject) Rejected() int { return a.rejected }

// Step implements Optimizer; it always fails, since the scheme needs to
// evaluate the loss again: use StepProblem.
func (a *AcceptReject) Step(params, grads *params.Params) error {
	return errors.Errorf("optim: %s needs StepProblem with a Problem that implements Evaluator, not Step", a.Name())
}

// Check implements ProblemStepper: p must implement Evaluator, and satisfy
// the inner optimizer's Check when it is a ProblemStepper.
func (a *AcceptReject) Check(p Problem) error {
	if _, ok := p.(Evaluator); !ok {
		return errors.Errorf("optim: %s needs a problem that implements optim.Evaluator (Loss(batch)); %T does not", a.Name(), p)
	}
	if ps, ok := a.inner.(ProblemStepper); ok {
		return ps.Check(p)
	}
	return nil
}

// StepProblem implements ProblemStepper: one inner step on batch, kept if
// the loss on batch did not go up (an unchanged loss counts as success, so
// that the rate does not halve down to zero once the minimum is reached
// exactly), undone otherwise (then tried
// again up to Retries times at the reduced rate). An error from the inner
// step or the evaluation leaves the parameters and state as they were.
func (a *AcceptReject) StepProblem(p Problem, batch []int, loss float64, grads *params.Params) error {
	ev, ok := p.(Evaluator)
	if !ok {
		return a.Check(p)
	}
	params := p.Params()
	a.save(params)
	state := a.inner.State()
	for try := 0; ; try++ {
		after, err := a.try(p, ev, batch, loss, grads)
		if err != nil {
			return a.restore(params, state, err)
		}
		if after <= loss {
			a.accepted++
			a.inner.SetLearningRate(a.inner.LearningRate() * a.c.Up)
			return nil
		}
		if err := a.restore(params, state, nil); err != nil {
			return err
		}
		a.rejected++
		a.inner.SetLearningRate(a.inner.LearningRate() * a.c.Down)
		if try >= a.c.Retries {
			return nil
		}
	}
}

// try makes one inner step and returns the loss after it.
func (a *AcceptReject) try(p Problem, ev Evaluator, batch []int, loss float64, grads *params.Params) (float64, error) {
	var err error
	if ps, ok := a.inner.(ProblemStepper); ok {
		err = ps.StepProblem(p, batch, loss, grads)
	} else {
		err = a.inner.Step(p.Params(), grads)
	}
	if err != nil {
		return 0, err
	}
	return ev.Loss(batch)
}

// save copies params into a.saved, reusing its memory.
func (a *AcceptReject) save(params *params.Params) {
	if a.saved != nil && a.saved.SameLayout(params) == nil {
		_ = a.saved.CopyFrom(params) // same layout: cannot fail
		return
	}
	a.saved = params.Clone()
}

// restore puts back the parameters and inner state saved before the step,
// then returns cause (or a restoring error, which should not happen).
func (a *AcceptReject) restore(params, state *params.Params, cause error) error {
	if err := params.CopyFrom(a.saved); err != nil {
		return errors.Wrapf(err, "optim: %s: restoring parameters", a.Name())
	}
	if err := a.inner.LoadState(state); err != nil {
		return errors.Wrapf(err, "optim: %s: restoring the inner state", a.Name())
	}
	return cause
}

// Names of AcceptReject's own state tensors; the inner optimizer's state
// follows with the prefix innerPrefix.
const (
	arAccepted  = "accepted"
	arRejected  = "rejected"
	arLR        = "lr"
	innerPrefix = "inner/"
)

// State implements Optimizer: the counters "accepted" and "rejected", the
// learning rate "lr" (which this optimizer adapts, so a resumed run needs
// it), each of shape [1], and the inner state under "inner/".
func (a *AcceptReject) State() *params.Params {
	s := params.New()
	for _, kv := range []struct {
		name string
		v    float64
	}{{arAccepted, float64(a.accepted)}, {arRejected, float64(a.rejected)}, {arLR, a.LearningRate()}} {
		mustAdd(s, kv.name, 1)
		s.Data(kv.name)[0] = kv.v
	}
	in := a.inner.State()
	for _, n := range in.Names() {
		mustAdd(s, innerPrefix+n, in.Shape(n)...)
		copy(s.Data(innerPrefix+n), in.Data(n))
	}
	return s
}

// LoadState implements Optimizer; s is what State returned, or an empty
// set, which resets the counters and the inner state but keeps the
// learning rate.
func (a *AcceptReject) LoadState(s *params.Params) error {
	if s == nil {
		return errors.Errorf("optim: %s: nil state", a.Name())
	}
	if s.Len() == 0 {
		if err := a.inner.LoadState(s); err != nil {
			return err
		}
		a.accepted, a.rejected = 0, 0
		return nil
	}
	own, in, err := a.splitState(s)
	if err != nil {
		return err
	}
	if err := a.inner.LoadState(in); err != nil {
		return err
	}
	a.accepted, a.rejected = int(own[0]), int(own[1])
	a.inner.SetLearningRate(own[2])
	return nil
}

// splitState validates s and returns its own values (accepted, rejected,
// lr) and the inner state.
func (a *AcceptReject) splitState(s *params.Params) ([3]float64, *params.Params, error) {
	var own [3]float64
	in := params.New()
	for _, n := range s.Names() {
		if rest, ok := strings.CutPrefix(n, innerPrefix); ok {
			mustAdd(in, rest, s.Shape(n)...)
			copy(in.Data(rest), s.Data(n))
			continue
		}
		if n != arAccepted && n != arRejected && n != arLR {
			return own, nil, errors.Errorf("optim: %s: unexpected state tensor %q (state of another optimizer?)", a.Name(), n)
		}
	}
	for i, n := range []string{arAccepted, arRejected, arLR} {
		d := s.Data(n)
		if len(d) != 1 {
			return own, nil, errors.Errorf("optim: %s: state lacks scalar %q (state of another optimizer?)", a.Name(), n)
		}
		own[i] = d[0]
	}
	if !validCount(own[0]) || !validCount(own[1]) {
		return own, nil, errors.Errorf("optim: %s: state counts %v, %v are not non-negative integers", a.Name(), own[0], own[1])
	}
	if !(own[2] > 0) || math.IsInf(own[2], 0) {
		return own, nil, errors.Errorf("optim: %s: state learning rate is %v, want positive", a.Name(), own[2])
	}
	return own, in, nil
}

func validCount(v float64) bool { return v >= 0 && v == math.Trunc(v) && v <= math.MaxInt32 }
