package compare

import (
	"fmt"
	"math"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
)

// errStop ends a run at its Steps or Seconds budget.
var errStop = errors.New("compare: budget reached")

// divergence is the error the recorder stops a diverging run with.
type divergence struct {
	step      int
	loss, ref float64 // ref: the reference loss R of Config.DivergeFactor
}

func (d *divergence) Error() string {
	if math.IsNaN(d.loss) || math.IsInf(d.loss, 0) {
		return fmt.Sprintf("compare: training loss %v at step %d", d.loss, d.step)
	}
	return fmt.Sprintf("compare: training loss %.6g at step %d is %.3g times the reference loss %.6g (the start's, the first epoch's largest batch or the trivial loss)",
		d.loss, d.step, d.loss/d.ref, d.ref)
}

// recorder is the Trainer hook of one run: it records the curve, detects
// divergence and enforces the Steps and Seconds budgets. It validates at
// the optimizer's evaluation point (optim.EvalAt), as the Trainer does.
type recorder struct {
	c     Config
	opt   optim.Optimizer
	valid optim.Validator // nil without a validation set
	curve []Point

	base    float64 // the start's validation loss or the trivial loss, the larger (0: neither)
	first   float64 // the largest batch loss of the first epoch so far
	sum     float64 // batch losses since the last step point
	n       int
	elapsed float64 // seconds at the last call
	kept    float64 // validation loss of the parameters kept at a budget stop
}

func newRecorder(c Config, p optim.Problem, opt optim.Optimizer) *recorder {
	r := &recorder{c: c, opt: opt, kept: math.NaN()}
	r.valid, _ = p.(optim.Validator)
	if vc, ok := p.(optim.ValidationChecker); ok && !vc.HasValidation() {
		r.valid = nil
	}
	return r
}

// validate returns the validation loss of the current parameters p at
// the optimizer's evaluation point (NaN without a validation set).
func (r *recorder) validate(p *params.Params) (float64, error) {
	if r.valid == nil {
		return math.NaN(), nil
	}
	var v float64
	err := optim.EvalAt(r.opt, p, func() (err error) { v, err = r.valid.ValidationLoss(); return err })
	return v, err
}

func (r *recorder) hook(s *optim.State) error {
	r.elapsed = s.Elapsed.Seconds()
	if len(r.curve) == 0 {
		// The Trainer validated the initial parameters as its first
		// best ones, before any update.
		v := math.NaN()
		if r.valid != nil {
			v = s.BestValid
		}
		r.curve = []Point{{TrainLoss: math.NaN(), ValidLoss: v}}
		r.base = r.c.trivial()
		if v > r.base && !math.IsInf(v, 1) {
			r.base = v
		}
	}
	if s.Event == optim.EpochEvent {
		return r.epoch(s)
	}
	loss := s.BatchLoss
	if s.Step == 1 && finite(loss) {
		// The first batch loss is measured at the initial parameters:
		// it is the start's own loss too.
		r.first = loss
	}
	ref := max(r.base, r.first)
	if math.IsNaN(loss) || math.IsInf(loss, 0) || (r.c.DivergeFactor > 0 && ref > 0 && loss > r.c.DivergeFactor*ref) {
		return &divergence{step: s.Step, loss: loss, ref: ref}
	}
	if s.Epoch == 1 {
		r.first = max(r.first, loss)
	}
	r.sum += loss
	r.n++
	b := r.c.Budget
	stop := (b.Steps > 0 && s.Step >= b.Steps) || (b.Seconds > 0 && r.elapsed >= b.Seconds)
	if stop && s.Batch == s.Batches {
		// The epoch is complete: let the Trainer validate it, and stop
		// at the epoch event.
		return nil
	}
	if (r.c.EvalEvery > 0 && s.Step%r.c.EvalEvery == 0) || stop {
		v, err := r.validate(s.Params)
		if err != nil {
			return err
		}
		epoch := float64(s.Epoch-1) + float64(s.Batch)/float64(s.Batches)
		r.addPoint(Point{Epoch: epoch, Step: s.Step, TrainLoss: r.sum / float64(r.n), ValidLoss: v, Seconds: r.elapsed})
		if stop {
			return r.stop(s, v)
		}
	}
	return nil
}

func (r *recorder) addPoint(p Point) {
	r.curve = append(r.curve, p)
	r.sum, r.n = 0, 0
}

// epoch records an epoch end and stops the run when the epoch used up
// the budget.
func (r *recorder) epoch(s *optim.State) error {
	st := s.Stats
	r.addPoint(Point{Epoch: float64(st.Epoch), Step: st.Step, TrainLoss: st.TrainLoss, ValidLoss: st.ValidLoss, Seconds: st.Elapsed})
	b := r.c.Budget
	if s.Done || !((b.Steps > 0 && s.Step >= b.Steps) || (b.Seconds > 0 && r.elapsed >= b.Seconds)) {
		return nil
	}
	// The Trainer has validated this epoch and tracked the best
	// parameters: keep them, as it would at its own end.
	if err := s.Params.CopyFrom(s.Best); err != nil {
		return err
	}
	r.kept = s.BestValid
	return errStop
}

// stop ends the run mid-epoch with validation loss v at the current
// parameters' evaluation point: it keeps that point or the best
// parameters, whichever validates lower.
func (r *recorder) stop(s *optim.State, v float64) error {
	r.kept = v
	if r.valid != nil && s.BestValid <= v {
		if err := s.Params.CopyFrom(s.Best); err != nil {
			return err
		}
		r.kept = s.BestValid
		return errStop
	}
	if err := optim.SetEvalPoint(r.opt, s.Params); err != nil {
		return err
	}
	return errStop
}
