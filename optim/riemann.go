package optim

import (
	"math"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// RiemannProblem is the optional interface of problems that a Riemann
// optimizer trains: the model supplies, for each group of parameters, an
// update direction preconditioned by its own metric (for the PCNN of the
// Riemannian paper: the writing weights under the quasi-diagonal Hessian,
// then the transition weights under RBPM, RUTSD or a quasi-diagonal
// reduction). The optimizer knows nothing of the metric.
type RiemannProblem interface {
	Problem
	Evaluator
	// RiemannGroups is the number of parameter groups stepped in turn.
	RiemannGroups() int
	// RiemannDirection writes into dir (laid out like Params; it is
	// overwritten) the direction of group g at the current parameters:
	// Params + rate*dir is the step, a descent direction of the loss.
	// An error means no usable direction (a singular metric); the step
	// then counts as rejected.
	RiemannDirection(g int, dir *params.Params) error
	// RiemannRate is the starting rate of every group (1/N for the PCNN).
	RiemannRate() float64
}

// RiemannConfig configures Riemann. The zero value is the paper's scheme.
type RiemannConfig struct {
	// LR is the starting rate of every group. If LR is 0, it will be
	// defaulted to the problem's RiemannRate at the first step.
	LR float64
	// Up multiplies a group's rate after an accepted step. If Up is 0, it
	// will be defaulted to 1.1.
	Up float64
	// Down multiplies a group's rate after a rejected step. If Down is 0,
	// it will be defaulted to 0.5.
	Down float64
	// Retries is how many times a rejected step is tried again at the
	// reduced rate within the same StepProblem call, along the same
	// direction: section 2 of the paper cancels the update, halves the
	// rate "and the update is tried again", so that every call moves its
	// group. If Retries is 0, it will be defaulted to 10 (a rate cut by
	// 2^10 within one call); a negative Retries disables the retries (a
	// rejected step then ends the call and the next call moves on to the
	// next group). Without the retries a rejected transition step is
	// followed by a writing step instead: on a^n b^n, where the
	// transition rate must fall to about 1/n, that alternation keeps
	// fitting the writing weights while the transition weights stay put
	// (seeds that reach 20-50 bits of regret with the retries stall at
	// 70-135 without them).
	Retries int
}

// Riemann is the training scheme of section 2 of the Riemannian paper: it
// steps the parameter groups of a RiemannProblem in turn (writing, then
// transition weights), each along the direction the problem's metric
// gives and with its own learning rate under the accept/reject control:
// a step that does not lower the loss on the batch (or gives NaN) is
// undone, the group's rate halved and the step tried again (up to
// RiemannConfig.Retries times); an accepted step multiplies it by 1.1.
// It implements ProblemStepper, so the Trainer runs it like any
// optimizer; its plain Step returns an error.
type Riemann struct {
	c        RiemannConfig
	lr       []float64 // per group; nil until the first step
	next     int
	accepted int
	rejected int
	failed   int // directions the problem could not give
	dir      *params.Params
	saved    *params.Params
}

var _ ProblemStepper = (*Riemann)(nil)

// NewRiemann checks c and returns the optimizer.
func NewRiemann(c RiemannConfig) (*Riemann, error) {
	if c.Up == 0 {
		c.Up = 1.1
	}
	if c.Down == 0 {
		c.Down = 0.5
	}
	if c.Retries == 0 {
		c.Retries = 10
	}
	switch {
	case !(c.LR >= 0) || math.IsInf(c.LR, 0):
		return nil, errors.Errorf("optim: riemann LR must be >= 0 and finite, got %v", c.LR)
	case !(c.Up >= 1) || math.IsInf(c.Up, 0):
		return nil, errors.Errorf("optim: riemann up must be >= 1 and finite, got %v", c.Up)
	case !(c.Down > 0 && c.Down < 1):
		return nil, errors.Errorf("optim: riemann down must be in (0, 1), got %v", c.Down)
	}
	return &Riemann{c: c}, nil
}

// Name implements Optimizer.
func (r *Riemann) Name() string { return "riemann" }

// LearningRate implements Optimizer: the rate of the group stepped next
// (the starting rate before the first step).
func (r *Riemann) LearningRate() float64 {
	if r.lr == nil {
		return r.c.LR
	}
	return r.lr[r.next]
}

// Rates returns a copy of the per-group rates (nil before the first step).
func (r *Riemann) Rates() []float64 { return append([]float64(nil), r.lr...) }

// SetLearningRate implements Optimizer: it scales every group's rate by
// lr / LearningRate(), so that a schedule or a plateau drop acts on both
// groups and keeps their ratio (the Trainer sets the rate it just read
// after every epoch: a no-op). Before the first step it sets the
// starting rate.
func (r *Riemann) SetLearningRate(lr float64) {
	cur := r.LearningRate()
	if r.lr == nil || cur == 0 {
		r.c.LR = lr
		return
	}
	if lr == cur {
		return
	}
	f := lr / cur
	for g := range r.lr {
		r.lr[g] *= f
	}
}

// Accepted, Rejected and Failed count the steps kept, the steps undone,
// and among the latter those for which the problem gave no direction.
func (r *Riemann) Accepted() int { return r.accepted }

// Rejected counts the steps undone.
func (r *Riemann) Rejected() int { return r.rejected }

// Failed counts the steps for which the problem gave no direction.
func (r *Riemann) Failed() int { return r.failed }

// Step implements Optimizer; it always fails: use StepProblem.
func (r *Riemann) Step(params, grads *params.Params) error {
	return errors.New("optim: riemann needs StepProblem with a problem that implements optim.RiemannProblem, not Step")
}

// Check implements ProblemStepper: p must implement RiemannProblem.
func (r *Riemann) Check(p Problem) error {
	rp, ok := p.(RiemannProblem)
	if !ok {
		return errors.Errorf("optim: riemann needs a problem that implements optim.RiemannProblem (a model with its own metric); %T does not", p)
	}
	if rp.RiemannGroups() < 1 {
		return errors.Errorf("optim: riemann: the problem has %d parameter groups", rp.RiemannGroups())
	}
	return nil
}

// NeedsGradient implements GradientFree: the Riemannian steps compute
// their directions (and the backward pass inside them) themselves, so the
// Trainer only evaluates the loss.
func (r *Riemann) NeedsGradient() bool { return false }

// StepProblem implements ProblemStepper: one step of the next group,
// kept if the loss on batch is finite and not above loss, undone
// otherwise. The gradient grads is not used: the problem's direction
// replaces it.
func (r *Riemann) StepProblem(p Problem, batch []int, loss float64, grads *params.Params) error {
	if err := r.Check(p); err != nil {
		return err
	}
	rp := p.(RiemannProblem)
	K := rp.RiemannGroups()
	if len(r.lr) != K {
		lr := r.c.LR
		if lr == 0 {
			lr = rp.RiemannRate()
		}
		if !(lr > 0) || math.IsInf(lr, 0) {
			return errors.Errorf("optim: riemann: starting rate must be > 0 and finite, got %v", lr)
		}
		r.lr = make([]float64, K)
		for g := range r.lr {
			r.lr[g] = lr
		}
		r.next = 0
	}
	g := r.next
	r.next = (g + 1) % K
	params := p.Params()
	if r.dir == nil || r.dir.SameLayout(params) != nil {
		r.dir, r.saved = params.Like(), params.Clone()
	}
	if err := rp.RiemannDirection(g, r.dir); err != nil {
		r.failed++
		r.reject(g)
		return nil
	}
	_ = r.saved.CopyFrom(params) // same layout: cannot fail
	for try := 0; ; try++ {
		for _, name := range params.Names() {
			x, d := params.Data(name), r.dir.Data(name)
			for i := range x {
				x[i] += r.lr[g] * d[i]
			}
		}
		after, err := rp.Loss(batch)
		if err == nil && after <= loss {
			r.accepted++
			r.lr[g] *= r.c.Up
			return nil
		}
		_ = params.CopyFrom(r.saved)
		r.reject(g)
		if try >= max(r.c.Retries, 0) {
			return nil
		}
	}
}

func (r *Riemann) reject(g int) {
	r.rejected++
	r.lr[g] *= r.c.Down
}

// State implements Optimizer: "lr" [groups] (absent before the first
// step), and "next", "accepted", "rejected", "failed" [1].
func (r *Riemann) State() *params.Params {
	s := params.New()
	put := func(name string, v ...float64) {
		if _, err := s.Add(name, len(v)); err == nil {
			copy(s.Data(name), v)
		}
	}
	if r.lr != nil {
		put("lr", r.lr...)
	}
	put("next", float64(r.next))
	put("accepted", float64(r.accepted))
	put("rejected", float64(r.rejected))
	put("failed", float64(r.failed))
	return s
}

// LoadState implements Optimizer; an empty set resets the optimizer.
func (r *Riemann) LoadState(s *params.Params) error {
	if s == nil {
		return errors.New("optim: riemann: nil state")
	}
	if s.Len() == 0 {
		r.lr, r.next, r.accepted, r.rejected, r.failed = nil, 0, 0, 0, 0
		return nil
	}
	one := func(name string) (int, error) {
		d := s.Data(name)
		if len(d) != 1 || d[0] < 0 || d[0] != math.Trunc(d[0]) {
			return 0, errors.Errorf("optim: riemann state %q must be one non-negative integer", name)
		}
		return int(d[0]), nil
	}
	var v [4]int
	for k, name := range []string{"next", "accepted", "rejected", "failed"} {
		var err error
		if v[k], err = one(name); err != nil {
			return err
		}
	}
	lr := s.Data("lr")
	if lr != nil && v[0] >= len(lr) {
		return errors.Errorf("optim: riemann state: next group %d out of %d", v[0], len(lr))
	}
	r.lr = append([]float64(nil), lr...)
	if lr == nil {
		r.lr = nil
	}
	r.next, r.accepted, r.rejected, r.failed = v[0], v[1], v[2], v[3]
	return nil
}
