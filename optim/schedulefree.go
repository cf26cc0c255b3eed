package optim

import (
	"math"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

func init() {
	Register("schedulefree", func(c Config) (Optimizer, error) { return NewScheduleFree(c) })
}

// Averager is the optional interface of optimizers whose gradients are
// taken at one point and whose answer is another: schedule-free AdamW
// differentiates at an interpolation y and returns the average x.
// During training the Problem's parameters hold the gradient point; the
// Trainer evaluates the validation loss, keeps the best parameters and
// leaves the final ones at the evaluation point (see EvalAt), so a saved
// model is the average.
type Averager interface {
	Optimizer
	// EvalParams writes into dst the evaluation point that goes with the
	// training parameters p (dst is laid out like p). A parameter the
	// optimizer has not stepped yet is copied from p.
	EvalParams(dst, p *params.Params) error
}

// EvalAt calls f with p holding opt's evaluation point when opt is an
// Averager, then puts p back as it was, bit for bit; for other optimizers
// it just calls f. p is the parameter set opt trains.
func EvalAt(opt Optimizer, p *params.Params, f func() error) error {
	a, ok := opt.(Averager)
	if !ok {
		return f()
	}
	train := p.Clone()
	if err := a.EvalParams(p, train); err != nil {
		return err
	}
	err := f()
	if cerr := p.CopyFrom(train); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// SetEvalPoint replaces p, the parameter set opt trains, by opt's
// evaluation point when opt is an Averager, for a run that ends there
// (training cannot continue from it); for other optimizers it does
// nothing.
func SetEvalPoint(opt Optimizer, p *params.Params) error {
	if a, ok := opt.(Averager); ok {
		return a.EvalParams(p, p.Clone())
	}
	return nil
}

// ScheduleFree is schedule-free AdamW (Defazio et al. 2024, "The Road
// Less Scheduled", Algorithm 1, in the form of the authors' reference
// code for the published experiments). Three sequences: z takes AdamW
// steps, x is a weighted average of the z's and is the answer, and the
// gradient is taken at their interpolation y:
//
//	y_t = (1−β1) z_t + β1 x_t,  g_t the gradient at y_t
//	v ← β2 v + (1−β2) g²
//	γ_t = η min(1, t/W) √(1−β2ᵗ)
//	z_{t+1} = z_t − γ_t (g/(√v + ε) + λ y_t)
//	c_{t+1} = w_t / Σ_{i≤t} w_i,  w_t = (max_{i≤t} γ_i)²
//	x_{t+1} = (1 − c_{t+1}) x_t + c_{t+1} z_{t+1}
//
// with W = Config.WarmupSteps and λ = Config.DecoupledDecay. With a
// constant η, max γ_i = γ_t and w_t = γ_t² as in the paper; the maximum
// keeps the weights from shrinking if a schedule lowers η (schedule-free
// needs none). The parameters hold y between steps; x is the evaluation
// point (EvalParams), which the Trainer validates and keeps. Its slots
// are "z/<param>", "x/<param>", "v/<param>", the step count "t/<param>"
// and the scalars "gmax/<param>" (max γ) and "wsum/<param>" (Σ w).
type ScheduleFree struct {
	base
	beta1, beta2, eps, decay float64
	warmup                   int
}

var _ Averager = (*ScheduleFree)(nil)

// NewScheduleFree returns a schedule-free AdamW optimizer configured by
// c; it uses LR (default 0.0025), Beta1, Beta2, Eps, WarmupSteps,
// DecoupledDecay, WeightDecay and ClipNorm.
func NewScheduleFree(c Config) (*ScheduleFree, error) {
	c, err := newAdamFamily(c, 0.0025)
	if err != nil {
		return nil, err
	}
	if err := checkDecoupled(c); err != nil {
		return nil, err
	}
	if c.WarmupSteps < 0 {
		return nil, errors.Errorf("optim: warmup steps must be >= 0, got %d", c.WarmupSteps)
	}
	b := newBase("schedulefree", c, true, "z", "x", "v").withExtra(scalarSlot, "gmax", "wsum")
	return &ScheduleFree{base: b, beta1: c.Beta1, beta2: c.Beta2, eps: c.Eps, decay: c.DecoupledDecay, warmup: c.WarmupSteps}, nil
}

// Step implements Optimizer: p holds y before and after. It fails,
// changing nothing, if grads is not laid out like params, a parameter's
// shape differs from its state, or a gradient holds NaN or Inf.
func (o *ScheduleFree) Step(params, grads *params.Params) error {
	return o.step(params, grads, o.update)
}

func (o *ScheduleFree) update(y, g []float64, s [][]float64, t float64) {
	b1, b2 := o.beta1, o.beta2
	z, x, v, gmax, wsum := s[0], s[1], s[2], s[3], s[4]
	if t == 1 {
		copy(z, y)
		copy(x, y)
		gmax[0], wsum[0] = 0, 0
	}
	sched := 1.0
	if t <= float64(o.warmup) {
		sched = t / float64(o.warmup)
	}
	gamma := o.lr * sched * math.Sqrt(1-math.Pow(b2, t))
	gmax[0] = math.Max(gmax[0], gamma)
	w := gmax[0] * gmax[0]
	wsum[0] += w
	c := w / wsum[0]
	for i := range y {
		v[i] = b2*v[i] + (1-b2)*g[i]*g[i]
		z[i] -= gamma * (g[i]/(math.Sqrt(v[i])+o.eps) + o.decay*y[i])
		x[i] = (1-c)*x[i] + c*z[i]
		y[i] = (1-b1)*z[i] + b1*x[i]
	}
}

// EvalParams implements Averager: dst gets x, or p for a parameter not
// stepped yet. It fails if dst is not laid out like p.
func (o *ScheduleFree) EvalParams(dst, p *params.Params) error {
	if err := dst.SameLayout(p); err != nil {
		return errors.Wrap(err, "optim: schedulefree: evaluation point")
	}
	for _, n := range p.Names() {
		src := p.Data(n)
		if o.state != nil && o.state.Has("x/"+n) && len(o.state.Data("x/"+n)) == len(src) {
			src = o.state.Data("x/" + n)
		}
		copy(dst.Data(n), src)
	}
	return nil
}
