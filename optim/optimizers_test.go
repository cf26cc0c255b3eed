package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// harnessProblem is a deterministic test problem: a loss with its gradient
// as a function of named parameters, a start point and the minimiser.
// It implements Problem and Evaluator (every batch is the full batch).
type harnessProblem struct {
	name   string
	params *params.Params
	// f returns the loss at params and, when g is not nil, writes the
	// gradient into it.
	f    func(p, g *params.Params) float64
	want map[string][]float64 // minimiser
}

func (h *harnessProblem) Params() *params.Params { return h.params }
func (h *harnessProblem) NumExamples() int       { return 1 }

func (h *harnessProblem) LossGrad(batch []int, grads *params.Params) (float64, error) {
	return h.f(h.params, grads), nil
}

func (h *harnessProblem) Loss(batch []int) (float64, error) { return h.f(h.params, nil), nil }

// dist is the largest absolute difference between the parameters and the
// minimiser.
func (h *harnessProblem) dist() float64 {
	d := 0.0
	for n, w := range h.want {
		for i, x := range h.params.Data(n) {
			d = math.Max(d, math.Abs(x-w[i]))
		}
	}
	return d
}

func mustParams(t testing.TB, shapes map[string][]int, order ...string) *params.Params {
	t.Helper()
	p := params.New()
	for _, n := range order {
		if _, err := p.Add(n, shapes[n]...); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// quadraticProblem is 0.5 Σ λ_i (x_i − c_i)² with λ spread geometrically
// over [1, 100] (condition number 100), started at 0.
func quadraticProblem(t testing.TB) *harnessProblem {
	const n = 10
	p := mustParams(t, map[string][]int{"x": {n}}, "x")
	lambda, c := make([]float64, n), make([]float64, n)
	for i := range n {
		lambda[i] = math.Pow(100, float64(i)/(n-1))
		c[i] = 1 + 0.25*float64(i)
	}
	f := func(p, g *params.Params) float64 {
		x := p.Data("x")
		loss := 0.0
		for i := range x {
			d := x[i] - c[i]
			loss += 0.5 * lambda[i] * d * d
		}
		if g != nil {
			gx := g.Data("x")
			for i := range x {
				gx[i] = lambda[i] * (x[i] - c[i])
			}
		}
		return loss
	}
	return &harnessProblem{name: "quadratic", params: p, f: f, want: map[string][]float64{"x": c}}
}

// leastSquaresProblem is the mean of ½(x·w + b − y)² over 40 seeded
// Gaussian examples with noise-free targets, so the minimiser is the
// generating (w, b).
func leastSquaresProblem(t testing.TB) *harnessProblem {
	const m, d = 40, 4
	rng := rand.New(rand.NewPCG(1, 2))
	w0, b0 := []float64{1, -2, 0.5, 3}, 0.5
	x, y := make([]float64, m*d), make([]float64, m)
	for i := range m {
		y[i] = b0
		for j := range d {
			x[i*d+j] = rng.NormFloat64()
			y[i] += x[i*d+j] * w0[j]
		}
	}
	p := mustParams(t, map[string][]int{"w": {d}, "b": {1}}, "w", "b")
	f := func(p, g *params.Params) float64 {
		w, b := p.Data("w"), p.Data("b")
		gw, gb := make([]float64, d), 0.0
		loss := 0.0
		for i := range m {
			r := b[0] - y[i]
			for j := range d {
				r += x[i*d+j] * w[j]
			}
			loss += 0.5 * r * r / m
			for j := range d {
				gw[j] += r * x[i*d+j] / m
			}
			gb += r / m
		}
		if g != nil {
			copy(g.Data("w"), gw)
			g.Data("b")[0] = gb
		}
		return loss
	}
	return &harnessProblem{name: "leastsquares", params: p, f: f, want: map[string][]float64{"w": w0, "b": {b0}}}
}

// rosenbrockProblem is (1 − x)² + 100 (y − x²)², non-convex, from the
// classical start (−1.2, 1); the minimum is at (1, 1).
func rosenbrockProblem(t testing.TB) *harnessProblem {
	p := mustParams(t, map[string][]int{"x": {1}, "y": {1}}, "x", "y")
	p.Data("x")[0], p.Data("y")[0] = -1.2, 1
	f := func(p, g *params.Params) float64 {
		x, y := p.Data("x")[0], p.Data("y")[0]
		if g != nil {
			g.Data("x")[0] = -2*(1-x) - 400*x*(y-x*x)
			g.Data("y")[0] = 200 * (y - x*x)
		}
		return (1-x)*(1-x) + 100*(y-x*x)*(y-x*x)
	}
	return &harnessProblem{name: "rosenbrock", params: p, f: f, want: map[string][]float64{"x": {1}, "y": {1}}}
}

// harnessVariant is an optimizer configuration the harness runs.
type harnessVariant struct {
	label string // "<name>" or "<name>+<variant>"
	name  string
	c     Config
}

// harnessConfig replaces the default Config of a registered optimizer
// in the harness: adamw's default decoupled decay (0.01) moves the
// minimiser by more than the harness's tolerance, so it runs with a
// negligible one and must still reach the unregularised minimiser.
var harnessConfig = map[string]Config{"adamw": {DecoupledDecay: 1e-12}}

// harnessVariants lists every registered optimizer with its default
// Config (or harnessConfig's), plus the momentum variants of sgd and
// rmsprop.
func harnessVariants() []harnessVariant {
	var v []harnessVariant
	for _, n := range Names() {
		v = append(v, harnessVariant{label: n, name: n, c: harnessConfig[n]})
	}
	return append(v,
		harnessVariant{"sgd+momentum", "sgd", Config{Momentum: 0.9}},
		harnessVariant{"sgd+nesterov", "sgd", Config{Momentum: 0.9, Nesterov: true}},
		harnessVariant{"rmsprop+momentum", "rmsprop", Config{Momentum: 0.9}},
		// Without grafting, Shampoo's steps are L^(−1/2) g for a vector: of
		// order 1 however small g gets, and huge along directions of tiny
		// eigenvalues unless MatrixEps is of the order of the squared
		// gradients near the minimum.
		harnessVariant{"shampoo+nograft", "shampoo", Config{Grafting: "none", MatrixEps: 0.01}},
	)
}

// harnessLR overrides the default learning rate where it does not suit a
// problem within its step budget. The values sit in the middle of a range
// that passes, found by a sweep over {1, 0.5, 0.3, 0.1, 0.05, ..., 2e-4}; a
// new optimizer needs an entry only if its default fails. RMSProp without
// momentum keeps taking steps of about lr near the minimum (g/√v stays of
// order 1), so its rate bounds the attainable distance; so does Lion's
// (see harnessTol). Schedule-free's answer is its average x, measured
// through EvalAt.
var harnessLR = map[string]map[string]float64{
	"quadratic": {
		"sgd": 0.01, "sgd+momentum": 0.005, "sgd+nesterov": 0.005,
		"adam": 0.01, "rmsprop+momentum": 0.0005, "adagrad": 0.5,
		"adamw": 0.05, "nadam": 0.01, "radam": 0.01, "lion": 0.001, "schedulefree": 0.1, "shampoo": 0.03,
		"shampoo+nograft": 0.01,
	},
	"leastsquares": {
		"adam": 0.01, "rmsprop+momentum": 0.0005, "adagrad": 0.5,
		"adamw": 0.01, "nadam": 0.005, "radam": 0.01, "lion": 0.001, "schedulefree": 0.05, "shampoo": 0.01,
		"shampoo+nograft": 0.01,
	},
	"rosenbrock": {
		"sgd": 0.001, "sgd+momentum": 0.001, "sgd+nesterov": 0.001,
		"adam": 0.005, "rmsprop": 0.0005, "rmsprop+momentum": 0.0005, "adagrad": 0.5,
		"adamw": 0.005, "nadam": 0.003, "radam": 0.001, "lion": 0.001, "schedulefree": 0.01, "shampoo": 0.01,
		"shampoo+nograft": 0.003,
	},
}

// harnessTol loosens a case's tolerance for an optimizer whose iterates
// cannot settle closer: Lion moves every coordinate by exactly ±lr, so
// with a constant rate it ends in a cycle of a few steps of lr around the
// minimiser.
var harnessTol = map[string]float64{"lion": 3 * 0.001}

// harnessCase is a problem with its step budget and tolerance on the
// distance to the minimiser; slow cases are skipped with -short.
type harnessCase struct {
	problem func(testing.TB) *harnessProblem
	steps   int
	tol     float64
	slow    bool
}

var harnessCases = []harnessCase{
	{quadraticProblem, 5000, 1e-3, false},
	{leastSquaresProblem, 5000, 1e-3, false},
	{rosenbrockProblem, 20000, 1e-2, true},
}

// runSteps takes n optimizer steps on h.
func runSteps(t testing.TB, o Optimizer, h *harnessProblem, n int) {
	t.Helper()
	g := h.params.Like()
	for range n {
		h.f(h.params, g)
		if err := o.Step(h.params, g); err != nil {
			t.Fatal(err)
		}
	}
}

func newOptimizer(t testing.TB, name string, c Config) Optimizer {
	t.Helper()
	o, err := New(name, c)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestHarnessGradients(t *testing.T) {
	for _, hc := range harnessCases {
		h := hc.problem(t)
		loss := func() (float64, error) { return h.f(h.params, nil), nil }
		grad := func(g *params.Params) error { h.f(h.params, g); return nil }
		if err := graph.CheckGradients(h.params, loss, grad, graph.FDOptions{Tol: 1e-6}); err != nil {
			t.Errorf("%s: %v", h.name, err)
		}
	}
}

func TestConvergence(t *testing.T) {
	for _, hc := range harnessCases {
		for _, v := range harnessVariants() {
			h := hc.problem(t)
			t.Run(h.name+"/"+v.label, func(t *testing.T) {
				if hc.slow && testing.Short() {
					t.Skip("slow problem skipped with -short")
				}
				c := v.c
				c.LR = harnessLR[h.name][v.label]
				o := newOptimizer(t, v.name, c)
				runSteps(t, o, h, hc.steps)
				var d float64
				if err := EvalAt(o, h.params, func() error { d = h.dist(); return nil }); err != nil {
					t.Fatal(err)
				}
				tol := max(hc.tol, harnessTol[v.label])
				if !(d < tol) {
					t.Errorf("after %d steps at lr %v: distance to minimiser %.3g, want < %g", hc.steps, o.LearningRate(), d, tol)
				}
			})
		}
	}
}
