package pcnn

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/blas"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
)

// Method selects the metrics of the Riemannian training (section 2).
type Method struct {
	Writing    WritingMethod
	Transition TransitionMethod
	Damping    Damping
}

// String is "<writing>+<transition>", e.g. "qdh+rbpm".
func (m Method) String() string { return m.Writing.String() + "+" + m.Transition.String() }

// Problem trains a model on one long sequence. It has the methods of the
// optim.Problem, optim.Evaluator and optim.RiemannProblem
// (Validated adds optim.Validator), so optim's Trainer runs it with
// optim.Riemann or any gradient optimizer; this package does not import
// optim. The loss is the negative log-likelihood in nats per predicted
// symbol of the training sequence; the validation loss uses the paper's
// regularised predictions (section 4).
//
// Forward passes are cached by parameter value, so a direction computed
// right after the accept/reject evaluation reuses its pass.
type Problem struct {
	Model  *Model
	Train  datasets.Stream
	Method Method

	// Fallbacks counts the metric blocks that fell back to the
	// quasi-diagonal solve because Cholesky failed.
	Fallbacks int

	tr   *Trace
	at   *graph.Params // parameters of tr; nil when stale
	B    []float64
	grad *graph.Params
	hasB bool
}

// NewProblem checks the training sequence against the model.
func NewProblem(m *Model, train datasets.Stream, method Method) (*Problem, error) {
	if m == nil {
		return nil, errors.New("pcnn: NewProblem needs a model")
	}
	if err := checkSeq(train, m.A); err != nil {
		return nil, errors.Wrap(err, "training sequence")
	}
	if m.Kind == RNN && (method.Transition == RBPM || method.Transition == RUTSD) {
		return nil, errors.Errorf("pcnn: the rnn has no %s (quadratic in the alphabet): use qd%s", method.Transition, method.Transition)
	}
	return &Problem{Model: m, Train: train, Method: method, grad: m.P.Like()}, nil
}

// Validated is a Problem with a validation sequence: it adds the method
// of optim.Validator, so the Trainer tracks the best parameters by it.
type Validated struct {
	*Problem
	Valid datasets.Stream
}

// WithValidation checks valid against the model's alphabet and returns
// the validated problem.
func (p *Problem) WithValidation(valid datasets.Stream) (*Validated, error) {
	if err := checkSeq(valid, p.Model.A); err != nil {
		return nil, errors.Wrap(err, "validation sequence")
	}
	return &Validated{Problem: p, Valid: valid}, nil
}

// Params is the model's parameter set.
func (p *Problem) Params() *graph.Params { return p.Model.P }

// NumExamples is 1: the whole training sequence is one example.
func (p *Problem) NumExamples() int { return 1 }

// ensure makes the cached pass current, with the backward pass if back.
// The writing weights do not act on the recurrence, so when only they
// changed since the cached pass (a writing step) only the outputs are
// computed again.
func (p *Problem) ensure(back bool) error {
	if p.at == nil || !sameValues(p.at, p.Model.P, "") {
		var err error
		if p.at != nil && sameValues(p.at, p.Model.P, "W") {
			p.Model.outputs(p.Train, p.tr)
			if math.IsNaN(p.tr.LogLik) {
				err = errors.New("pcnn: the log-likelihood is NaN")
			}
		} else {
			if p.tr == nil {
				p.tr = &Trace{PredictedOnly: true}
			}
			_, err = p.Model.Forward(p.Train, p.tr)
		}
		if err != nil {
			p.at = nil
			return err
		}
		p.hasB = false
		if p.at == nil {
			p.at = p.Model.P.Clone()
		} else {
			_ = p.at.CopyFrom(p.Model.P) // same layout: cannot fail
		}
	}
	if back && !p.hasB {
		p.B = grow(p.B, (p.tr.T+1)*p.Model.Net.N)
		if err := p.Model.Backward(p.Train, p.tr, p.grad, p.B); err != nil {
			return err
		}
		p.hasB = true
	}
	return nil
}

// sameValues reports whether two sets of one layout hold equal values,
// the tensor named except left out.
func sameValues(a, b *graph.Params, except string) bool {
	for _, name := range a.Names() {
		if name == except {
			continue
		}
		x, y := a.Data(name), b.Data(name)
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
	}
	return true
}

// Loss is the training negative log-likelihood, nats per predicted symbol.
func (p *Problem) Loss(batch []int) (float64, error) {
	if err := p.ensure(false); err != nil {
		return 0, err
	}
	return -p.tr.LogLik / float64(max(p.tr.Predicted, 1)), nil
}

// LossGrad is Loss with its gradient written into grads.
func (p *Problem) LossGrad(batch []int, grads *graph.Params) (float64, error) {
	if err := p.ensure(true); err != nil {
		return 0, err
	}
	if err := grads.SameLayout(p.Model.P); err != nil {
		return 0, errors.Wrap(err, "pcnn: gradient set")
	}
	scale := -1 / float64(max(p.tr.Predicted, 1))
	for _, name := range grads.Names() {
		g, src := grads.Data(name), p.grad.Data(name)
		for i := range g {
			g[i] = scale * src[i]
		}
	}
	return -p.tr.LogLik / float64(max(p.tr.Predicted, 1)), nil
}

// ValidationLoss is the regularised negative log-likelihood of Valid in
// nats per predicted symbol.
func (p *Validated) ValidationLoss() (float64, error) {
	ll, n, err := p.Model.RegularizedLogLik(p.Valid)
	if err != nil {
		return 0, err
	}
	return -ll / float64(max(n, 1)), nil
}

// RiemannGroups is 2: the writing weights, then the transition weights
// and starting values (section 2: "It is important to start with an
// update of w").
func (p *Problem) RiemannGroups() int { return 2 }

// RiemannRate is 1/N, the paper's starting rate.
func (p *Problem) RiemannRate() float64 { return 1 / float64(p.Model.Net.N) }

// RiemannDirection writes the metric direction of group g (0 writing,
// 1 transition) at the current parameters into dir.
func (p *Problem) RiemannDirection(g int, dir *graph.Params) error {
	switch g {
	case 0:
		if err := p.ensure(false); err != nil {
			return err
		}
		return p.Model.WritingDirection(p.Train, p.tr, p.Method.Writing, p.Method.Damping, dir)
	case 1:
		if err := p.ensure(true); err != nil {
			return err
		}
		n, err := p.Model.TransitionDirection(p.Train, p.tr, p.B, p.grad, p.Method.Transition, p.Method.Damping, dir)
		p.Fallbacks += n
		return err
	}
	return errors.Errorf("pcnn: parameter group %d out of [0, 2)", g)
}

// RegularizedLogLik is the log-likelihood in nats of the predicted
// symbols of s under the paper's regularised predictions (section 4):
// pi_t is replaced by (1 - 1/(t+2)) pi_t + 1/(t+2) uniform. It also
// returns the number of predicted symbols.
func (m *Model) RegularizedLogLik(s datasets.Stream) (float64, int, error) {
	tr, err := m.Forward(s, &Trace{PredictedOnly: true})
	if err != nil {
		return 0, 0, err
	}
	var ll float64
	for t, x := range s.X {
		if chi(s, t) {
			ll += math.Log(datasets.RegularizedProb(tr.Pi[t*m.A+x], t, m.A))
		}
	}
	return ll, tr.Predicted, nil
}

// Generate samples n symbols from the model, starting from V0, drawing
// x_t from pi_t (eq. 12) and feeding it back (eqs. 7-8, 11 or 80).
func (m *Model) Generate(n int, rng *rand.Rand) ([]int, error) {
	if n < 1 || rng == nil {
		return nil, errors.New("pcnn: Generate needs n >= 1 and a *rand.Rand")
	}
	N, A := m.Net.N, m.A
	v, next := append([]float64(nil), m.v0()...), make([]float64, N)
	a, pi := make([]float64, N+1), make([]float64, A)
	out := make([]int, n)
	var tx []float64
	if m.Kind != RNN {
		tx = m.tauByX(nil)
	}
	for t := range out {
		m.activate(v, a)
		gemm(blas.NoTrans, blas.NoTrans, 1, A, N+1, a, m.w(), pi, 0)
		softmaxRow(pi, 0)
		u := rng.Float64()
		x := A - 1
		for y, p := range pi {
			if u < p {
				x = y
				break
			}
			u -= p
		}
		out[t] = x
		m.advance(v, a, x, tx, next)
		v, next = next, v
	}
	return out, nil
}
