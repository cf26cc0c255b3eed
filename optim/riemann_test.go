package optim

import (
	"errors"
	"math"
	"testing"

	"github.com/rtnlab/rtn/params"
)

// quadRiemann is loss = sum_g c_g (x_g - 1)^2 over two scalar groups, with
// the exact Newton direction as its metric direction; fail makes group 1
// report a singular metric.
type quadRiemann struct {
	p    *params.Params
	c    [2]float64
	fail bool
}

func newQuadRiemann() *quadRiemann {
	p := params.New()
	_, _ = p.Add("x", 2)
	return &quadRiemann{p: p, c: [2]float64{1, 10}}
}

func (q *quadRiemann) Params() *params.Params { return q.p }
func (q *quadRiemann) NumExamples() int       { return 1 }
func (q *quadRiemann) Loss([]int) (float64, error) {
	x := q.p.Data("x")
	return q.c[0]*(x[0]-1)*(x[0]-1) + q.c[1]*(x[1]-1)*(x[1]-1), nil
}
func (q *quadRiemann) LossGrad(b []int, g *params.Params) (float64, error) {
	x := q.p.Data("x")
	for k := range 2 {
		g.Data("x")[k] = 2 * q.c[k] * (x[k] - 1)
	}
	return q.Loss(b)
}
func (q *quadRiemann) RiemannGroups() int   { return 2 }
func (q *quadRiemann) RiemannRate() float64 { return 0.5 }
func (q *quadRiemann) RiemannDirection(g int, dir *params.Params) error {
	if g == 1 && q.fail {
		return errors.New("singular")
	}
	dir.Zero()
	dir.Data("x")[g] = 1 - q.p.Data("x")[g] // Newton: -H^-1 grad
	return nil
}

func TestRiemannAcceptReject(t *testing.T) {
	q := newQuadRiemann()
	r, err := NewRiemann(RiemannConfig{Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	step := func() {
		t.Helper()
		l, _ := q.Loss(nil)
		if err := r.StepProblem(q, []int{0}, l, q.p.Like()); err != nil {
			t.Fatal(err)
		}
	}
	step() // group 0 at rate 0.5: accepted, x0 = 0.5
	if x := q.p.Data("x"); x[0] != 0.5 || x[1] != 0 {
		t.Fatalf("after the writing step x = %v, want [0.5 0]", x)
	}
	if got := r.Rates(); got[0] != 0.55 || got[1] != 0.5 {
		t.Fatalf("rates %v, want [0.55 0.5]", got)
	}
	step() // group 1: x1 = 0.5
	if r.LearningRate() != 0.55 {
		t.Fatalf("LearningRate is not the next group's rate: %v", r.LearningRate())
	}
	// A rate above 2 overshoots the quadratic: rejected, undone, halved.
	r.lr[0] = 2.5
	before := q.p.Clone()
	step()
	if q.p.Data("x")[0] != before.Data("x")[0] || r.lr[0] != 1.25 || r.Rejected() != 1 {
		t.Fatalf("overshoot not undone: x = %v, rate %v, rejected %d", q.p.Data("x"), r.lr[0], r.Rejected())
	}
	q.fail = true
	step()
	if r.Failed() != 1 || r.lr[1] != 0.275 {
		t.Fatalf("a failed direction must count as rejected: failed %d, rate %v", r.Failed(), r.lr[1])
	}
	// State round trip and SetLearningRate scaling.
	st := r.State()
	r2, _ := NewRiemann(RiemannConfig{Retries: -1})
	if err := r2.LoadState(st); err != nil {
		t.Fatal(err)
	}
	if r2.Rates()[0] != r.Rates()[0] || r2.Accepted() != r.Accepted() || r2.LearningRate() != r.LearningRate() {
		t.Fatal("state did not round-trip")
	}
	r2.SetLearningRate(r2.LearningRate() / 10)
	for g, v := range r2.Rates() {
		if math.Abs(v-r.Rates()[g]/10) > 1e-15 {
			t.Fatalf("SetLearningRate did not scale group %d: %v", g, v)
		}
	}
}

// TestRiemannRetries: with one retry, an overshooting step is undone and
// tried again at half the rate within the same call.
func TestRiemannRetries(t *testing.T) {
	q := newQuadRiemann()
	r, _ := NewRiemann(RiemannConfig{LR: 2.5, Retries: 1})
	l, _ := q.Loss(nil)
	if err := r.StepProblem(q, []int{0}, l, q.p.Like()); err != nil {
		t.Fatal(err)
	}
	// x0: 0 + 1.25 * 1 = 1.25 (the 2.5 step to 2.5 was undone).
	if x := q.p.Data("x")[0]; x != 1.25 || r.Rejected() != 1 || r.Accepted() != 1 || r.Rates()[0] != 1.375 {
		t.Fatalf("x0 = %v, rejected %d, accepted %d, rates %v", x, r.Rejected(), r.Accepted(), r.Rates())
	}
	// The zero value retries (the paper's scheme): from x0 = 0 (loss 11)
	// the rates 10, 5 and 2.5 overshoot (x0 - 1)^2 past 1 and are undone;
	// 1.25 is accepted within the same call.
	d, _ := NewRiemann(RiemannConfig{LR: 10})
	q2 := newQuadRiemann()
	l, _ = q2.Loss(nil)
	if err := d.StepProblem(q2, []int{0}, l, q2.p.Like()); err != nil {
		t.Fatal(err)
	}
	if x := q2.p.Data("x")[0]; x != 1.25 || d.Rejected() != 3 || d.Accepted() != 1 {
		t.Fatalf("default retries: x0 = %v, rejected %d, accepted %d", x, d.Rejected(), d.Accepted())
	}
}

func TestRiemannRefusesPlainProblems(t *testing.T) {
	r, _ := NewRiemann(RiemannConfig{})
	if err := r.Check(&quadPlain{}); err == nil {
		t.Fatal("a problem without RiemannDirection was accepted")
	}
	if err := r.Step(nil, nil); err == nil {
		t.Fatal("plain Step must fail")
	}
	if _, err := NewRiemann(RiemannConfig{Down: 1}); err == nil {
		t.Fatal("Down = 1 accepted")
	}
}

type quadPlain struct{ Problem }
