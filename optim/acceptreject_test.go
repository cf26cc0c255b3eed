package optim

import (
	"math"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/params"
)

func newAcceptReject(t testing.TB, inner Optimizer, c AcceptRejectConfig) *AcceptReject {
	t.Helper()
	a, err := NewAcceptReject(inner, c)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// stepProblem makes n StepProblem calls on the full batch of h and
// returns the loss after each.
func stepProblem(t testing.TB, ps ProblemStepper, h *harnessProblem, n int) []float64 {
	t.Helper()
	if err := ps.Check(h); err != nil {
		t.Fatal(err)
	}
	g := h.params.Like()
	var losses []float64
	for range n {
		loss, _ := h.LossGrad(nil, g)
		if err := ps.StepProblem(h, nil, loss, g); err != nil {
			t.Fatal(err)
		}
		after, _ := h.Loss(nil)
		losses = append(losses, after)
	}
	return losses
}

// TestAcceptRejectTooLargeRate starts SGD at lr 1 on a quadratic whose
// largest curvature is 100, where plain SGD diverges above lr 0.02.
func TestAcceptRejectTooLargeRate(t *testing.T) {
	const calls, tol = 3000, 1e-3
	h := quadraticProblem(t)
	start, _ := h.Loss(nil)
	a := newAcceptReject(t, newOptimizer(t, "sgd", Config{LR: 1}), AcceptRejectConfig{})
	g := h.params.Like()
	prev, minLR, grewAfterMin := start, a.LearningRate(), false
	for i := range calls {
		loss, _ := h.LossGrad(nil, g)
		if err := a.StepProblem(h, nil, loss, g); err != nil {
			t.Fatal(err)
		}
		after, _ := h.Loss(nil)
		if after > prev {
			t.Fatalf("call %d: loss went up from %v to %v", i, prev, after)
		}
		prev = after
		lr := a.LearningRate()
		grewAfterMin = grewAfterMin || lr > minLR
		if lr < minLR {
			minLR, grewAfterMin = lr, false
		}
	}
	if !(minLR < 0.02) || !grewAfterMin {
		t.Errorf("learning rate: minimum %v (want < 0.02) and grew afterwards %v (want true)", minLR, grewAfterMin)
	}
	if a.Accepted() == 0 || a.Rejected() == 0 || a.Accepted()+a.Rejected() != calls {
		t.Errorf("accepted %d + rejected %d, want both > 0 summing to %d", a.Accepted(), a.Rejected(), calls)
	}
	if d := h.dist(); !(d < tol) {
		t.Errorf("distance to minimiser %.3g after %d calls, want < %g", d, calls, tol)
	}
}

// TestAcceptRejectUndoesExactly checks that a rejected step restores the
// parameters and the inner state bit for bit.
func TestAcceptRejectUndoesExactly(t *testing.T) {
	h := quadraticProblem(t)
	inner := newOptimizer(t, "adam", Config{LR: 0.01})
	a := newAcceptReject(t, inner, AcceptRejectConfig{})
	stepProblem(t, a, h, 5)
	params, state := h.params.Clone(), inner.State()
	acc, rej := a.Accepted(), a.Rejected()
	a.SetLearningRate(1e3) // far past the minimum in every coordinate
	stepProblem(t, a, h, 1)
	if a.Accepted() != acc || a.Rejected() != rej+1 {
		t.Fatalf("accepted %d, rejected %d; want %d, %d", a.Accepted(), a.Rejected(), acc, rej+1)
	}
	if msg := sameBits(h.params, params); msg != "" {
		t.Errorf("parameters not restored: %s", msg)
	}
	if msg := sameBits(inner.State(), state); msg != "" {
		t.Errorf("inner state not restored: %s", msg)
	}
	if lr := a.LearningRate(); lr != 500 {
		t.Errorf("learning rate %v after a rejection, want 500", lr)
	}
}

func TestAcceptRejectRetries(t *testing.T) {
	h := quadraticProblem(t)
	a := newAcceptReject(t, newOptimizer(t, "sgd", Config{LR: 1}), AcceptRejectConfig{Retries: 20})
	start, _ := h.Loss(nil)
	losses := stepProblem(t, a, h, 1)
	if a.Accepted() != 1 || a.Rejected() == 0 || !(losses[0] < start) {
		t.Errorf("one call with retries: accepted %d, rejected %d, loss %v -> %v; want 1 accepted after rejections and a lower loss",
			a.Accepted(), a.Rejected(), start, losses[0])
	}
}

func TestAcceptRejectStateRoundTrip(t *testing.T) {
	build := func() (*AcceptReject, Optimizer) {
		inner := newOptimizer(t, "adam", Config{LR: 0.5})
		return newAcceptReject(t, inner, AcceptRejectConfig{}), inner
	}
	whole := quadraticProblem(t)
	a, _ := build()
	stepProblem(t, a, whole, 10)

	split := quadraticProblem(t)
	first, _ := build()
	stepProblem(t, first, split, 5)
	second, _ := build()
	if err := second.LoadState(first.State()); err != nil {
		t.Fatal(err)
	}
	if second.LearningRate() != first.LearningRate() || second.Accepted() != first.Accepted() {
		t.Fatalf("loaded lr %v, accepted %d; want %v, %d", second.LearningRate(), second.Accepted(), first.LearningRate(), first.Accepted())
	}
	stepProblem(t, second, split, 5)
	if msg := sameBits(whole.params, split.params); msg != "" {
		t.Errorf("parameters after 10 calls versus 5+5: %s", msg)
	}
	if msg := sameBits(a.State(), second.State()); msg != "" {
		t.Errorf("state after 10 calls versus 5+5: %s", msg)
	}
	if a.Rejected() == 0 {
		t.Error("test did not exercise a rejection; raise the learning rate")
	}
}

func TestAcceptRejectForeignState(t *testing.T) {
	h := quadraticProblem(t)
	adam := newOptimizer(t, "adam", Config{})
	runSteps(t, adam, h, 1)
	a := newAcceptReject(t, newOptimizer(t, "adam", Config{}), AcceptRejectConfig{})
	stepProblem(t, a, h, 1)
	if err := a.LoadState(adam.State()); err == nil || !strings.Contains(err.Error(), "unexpected state tensor") {
		t.Errorf("loading adam state into acceptreject: error %v", err)
	}
	if err := newOptimizer(t, "adam", Config{}).LoadState(a.State()); err == nil {
		t.Error("loading acceptreject state into adam: no error")
	}
	sgd := newAcceptReject(t, newOptimizer(t, "sgd", Config{Momentum: 0.5}), AcceptRejectConfig{})
	if err := sgd.LoadState(a.State()); err == nil {
		t.Error("loading acceptreject(adam) state into acceptreject(sgd): no error")
	}
	st := a.State()
	st.Data("lr")[0] = -1
	if err := a.LoadState(st); err == nil || !strings.Contains(err.Error(), "learning rate") {
		t.Errorf("negative learning rate in state: error %v", err)
	}
}

// noEvaluator hides the Loss method of a problem.
type noEvaluator struct{ Problem }

func TestAcceptRejectNeedsEvaluator(t *testing.T) {
	h := quadraticProblem(t)
	a := newAcceptReject(t, newOptimizer(t, "sgd", Config{}), AcceptRejectConfig{})
	p := noEvaluator{h}
	if err := a.Check(p); err == nil || !strings.Contains(err.Error(), "optim.Evaluator") {
		t.Errorf("Check without Evaluator: error %v", err)
	}
	g := h.params.Like()
	loss, _ := h.LossGrad(nil, g)
	if err := a.StepProblem(p, nil, loss, g); err == nil {
		t.Error("StepProblem without Evaluator: no error")
	}
	if err := a.Step(h.params, g); err == nil || !strings.Contains(err.Error(), "needs StepProblem") {
		t.Errorf("Step: error %v, want one saying it needs StepProblem", err)
	}
	if err := a.Check(h); err != nil {
		t.Errorf("Check with Evaluator: %v", err)
	}
}

// countingStepper is an inner ProblemStepper that counts its calls.
type countingStepper struct {
	*SGD
	checks, steps int
	fail          bool
}

func (c *countingStepper) Check(p Problem) error {
	c.checks++
	if c.fail {
		return errUnsupported
	}
	return nil
}

func (c *countingStepper) StepProblem(p Problem, batch []int, loss float64, grads *params.Params) error {
	c.steps++
	return c.Step(p.Params(), grads)
}

var errUnsupported = &unsupportedError{}

type unsupportedError struct{}

func (*unsupportedError) Error() string { return "unsupported problem" }

func TestAcceptRejectInnerProblemStepper(t *testing.T) {
	sgd, _ := NewSGD(Config{LR: 0.001})
	inner := &countingStepper{SGD: sgd}
	a := newAcceptReject(t, inner, AcceptRejectConfig{})
	stepProblem(t, a, quadraticProblem(t), 3)
	if inner.checks != 1 || inner.steps != 3 {
		t.Errorf("inner Check called %d times, StepProblem %d; want 1, 3", inner.checks, inner.steps)
	}
	inner.fail = true
	if err := a.Check(quadraticProblem(t)); err != errUnsupported {
		t.Errorf("Check with a failing inner Check: %v", err)
	}
}

func TestAcceptRejectConfig(t *testing.T) {
	sgd := newOptimizer(t, "sgd", Config{LR: 0.2})
	a := newAcceptReject(t, sgd, AcceptRejectConfig{})
	if a.Name() != "acceptreject(sgd)" || a.LearningRate() != 0.2 || a.Inner() != sgd {
		t.Errorf("Name %q, lr %v", a.Name(), a.LearningRate())
	}
	a.SetLearningRate(0.3)
	if sgd.LearningRate() != 0.3 {
		t.Errorf("SetLearningRate did not reach the inner optimizer: %v", sgd.LearningRate())
	}
	tests := []struct {
		inner  Optimizer
		c      AcceptRejectConfig
		substr string
	}{
		{nil, AcceptRejectConfig{}, "needs an inner optimizer"},
		{sgd, AcceptRejectConfig{Up: 0.9}, "up must be >= 1"},
		{sgd, AcceptRejectConfig{Up: math.Inf(1)}, "up must be >= 1 and finite"},
		{sgd, AcceptRejectConfig{Down: 1}, "down must be in (0, 1), got 1"},
		{sgd, AcceptRejectConfig{Down: -0.5}, "down must be in (0, 1)"},
		{sgd, AcceptRejectConfig{Retries: -1}, "retries must be >= 0"},
	}
	for _, tt := range tests {
		_, err := NewAcceptReject(tt.inner, tt.c)
		if err == nil || !strings.Contains(err.Error(), tt.substr) {
			t.Errorf("NewAcceptReject(%+v): error %v, want one containing %q", tt.c, err, tt.substr)
		}
	}
}

func TestAcceptRejectReset(t *testing.T) {
	h := quadraticProblem(t)
	inner := newOptimizer(t, "adam", Config{LR: 0.5})
	a := newAcceptReject(t, inner, AcceptRejectConfig{})
	stepProblem(t, a, h, 5)
	lr := a.LearningRate()
	if err := a.LoadState(params.New()); err != nil {
		t.Fatal(err)
	}
	if a.Accepted() != 0 || a.Rejected() != 0 || inner.State().Len() != 0 || a.LearningRate() != lr {
		t.Errorf("after reset: accepted %d, rejected %d, inner state %v, lr %v (want %v)",
			a.Accepted(), a.Rejected(), inner.State(), a.LearningRate(), lr)
	}
}

// TestAcceptRejectEvalPoint checks that accept/reject around schedule-free
// AdamW evaluates at the inner optimizer's average, and around another
// optimizer at the parameters themselves.
func TestAcceptRejectEvalPoint(t *testing.T) {
	for _, name := range []string{"schedulefree", "adam"} {
		inner := newOptimizer(t, name, Config{LR: 0.01})
		ar := newAcceptReject(t, inner, AcceptRejectConfig{})
		h := quadraticProblem(t)
		stepProblem(t, ar, h, 5)
		got, want := h.params.Like(), h.params.Clone()
		if err := ar.EvalParams(got, h.params); err != nil {
			t.Fatal(err)
		}
		if av, ok := inner.(Averager); ok {
			if err := av.EvalParams(want, h.params); err != nil {
				t.Fatal(err)
			}
			if msg := sameBits(want, h.params); msg == "" {
				t.Fatalf("%s: the average equals the training point; the test cannot tell them apart", name)
			}
		}
		if msg := sameBits(got, want); msg != "" {
			t.Errorf("%s: evaluation point: %s", name, msg)
		}
	}
}
