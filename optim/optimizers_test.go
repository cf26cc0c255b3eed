package optim

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/graph"
)

// harnessProblem is a deterministic test problem: a loss with its gradient
// as a function of named parameters, a start point and the minimiser.
// It implements Problem and Evaluator (every batch is the full batch).
type harnessProblem struct {
	name   string
	params *graph.Params
	// f returns the loss at params and, when g is not nil, writes the
	// gradient into it.
	f    func(p, g *graph.Params) float64
	want map[string][]float64 // minimiser
}

func (h *harnessProblem) Params() *graph.Params { return h.params }
func (h *harnessProblem) NumExamples() int      { return 1 }

func (h *harnessProblem) LossGrad(batch []int, grads *graph.Params) (float64, error) {
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

func mustParams(t testing.TB, shapes map[string][]int, order ...string) *graph.Params {
	t.Helper()
	p := graph.NewParams()
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
	f := func(p, g *graph.Params) float64 {
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
	f := func(p, g *graph.Params) float64 {
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
	f := func(p, g *graph.Params) float64 {
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

// harnessVariants lists every registered optimizer with its default
// Config, plus the momentum variants of sgd and rmsprop.
func harnessVariants() []harnessVariant {
	var v []harnessVariant
	for _, n := range Names() {
		v = append(v, harnessVariant{label: n, name: n})
	}
	return append(v,
		harnessVariant{"sgd+momentum", "sgd", Config{Momentum: 0.9}},
		harnessVariant{"sgd+nesterov", "sgd", Config{Momentum: 0.9, Nesterov: true}},
		harnessVariant{"rmsprop+momentum", "rmsprop", Config{Momentum: 0.9}},
	)
}

// harnessLR overrides the default learning rate where it does not suit a
// problem within its step budget. The values sit in the middle of a range
// that passes, found by a sweep over {1, 0.5, 0.3, 0.1, 0.05, ..., 2e-4}; a
// new optimizer needs an entry only if its default fails. RMSProp without
// momentum keeps taking steps of about lr near the minimum (g/√v stays of
// order 1), so its rate bounds the attainable distance.
var harnessLR = map[string]map[string]float64{
	"quadratic": {
		"sgd": 0.01, "sgd+momentum": 0.005, "sgd+nesterov": 0.005,
		"adam": 0.01, "rmsprop+momentum": 0.0005, "adagrad": 0.5,
	},
	"leastsquares": {
		"adam": 0.01, "rmsprop+momentum": 0.0005, "adagrad": 0.5,
	},
	"rosenbrock": {
		"sgd": 0.001, "sgd+momentum": 0.001, "sgd+nesterov": 0.001,
		"adam": 0.005, "rmsprop": 0.0005, "rmsprop+momentum": 0.0005, "adagrad": 0.5,
	},
}

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
		grad := func(g *graph.Params) error { h.f(h.params, g); return nil }
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
				if d := h.dist(); !(d < hc.tol) {
					t.Errorf("after %d steps at lr %v: distance to minimiser %.3g, want < %g", hc.steps, o.LearningRate(), d, hc.tol)
				}
			})
		}
	}
}

// stateVariants are harnessVariants with clipping and weight decay on,
// so that state tests also exercise the gradient preprocessing.
func stateVariants() []harnessVariant {
	v := harnessVariants()
	for i := range v {
		v[i].c.ClipNorm, v[i].c.WeightDecay = 0.5, 0.01
	}
	return v
}

// sameBits returns an error message naming the first tensor of a and b
// that differs in layout or in any bit, or "".
func sameBits(a, b *graph.Params) string {
	if err := a.SameLayout(b); err != nil {
		return err.Error()
	}
	for _, n := range a.Names() {
		x, y := a.Data(n), b.Data(n)
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return n + " differs"
			}
		}
	}
	return ""
}

func TestStateRoundTrip(t *testing.T) {
	for _, v := range stateVariants() {
		t.Run(v.label, func(t *testing.T) {
			whole := leastSquaresProblem(t)
			o := newOptimizer(t, v.name, v.c)
			runSteps(t, o, whole, 10)

			split := leastSquaresProblem(t)
			first := newOptimizer(t, v.name, v.c)
			runSteps(t, first, split, 5)
			st := first.State()
			second := newOptimizer(t, v.name, v.c)
			if err := second.LoadState(st); err != nil {
				t.Fatal(err)
			}
			runSteps(t, second, split, 5)

			if msg := sameBits(whole.params, split.params); msg != "" {
				t.Errorf("parameters after 10 steps versus 5+5: %s", msg)
			}
			if msg := sameBits(o.State(), second.State()); msg != "" {
				t.Errorf("state after 10 steps versus 5+5: %s", msg)
			}
		})
	}
}

func TestStateIsDeepCopy(t *testing.T) {
	for _, v := range stateVariants() {
		t.Run(v.label, func(t *testing.T) {
			h := leastSquaresProblem(t)
			o := newOptimizer(t, v.name, v.c)
			runSteps(t, o, h, 2)
			st := o.State()
			for _, n := range st.Names() {
				if err := st.Fill(n, 42); err != nil {
					t.Fatal(err)
				}
			}
			if msg := sameBits(o.State(), st); msg == "" && st.Len() > 0 {
				t.Error("changing the returned state changed the optimizer")
			}
			loaded := o.State()
			if err := o.LoadState(loaded); err != nil {
				t.Fatal(err)
			}
			runSteps(t, o, h, 1)
			if msg := sameBits(o.State(), loaded); msg == "" && loaded.Len() > 0 {
				t.Error("stepping changed the state passed to LoadState")
			}
		})
	}
}

func TestLoadStateForeign(t *testing.T) {
	states := map[string]*graph.Params{}
	variants := harnessVariants()
	for _, v := range variants {
		o := newOptimizer(t, v.name, v.c)
		runSteps(t, o, leastSquaresProblem(t), 1)
		states[v.label] = o.State()
	}
	// Same optimizer, other configuration: the slots differ.
	sameName := [][2]string{{"sgd+momentum", "sgd"}, {"rmsprop", "rmsprop+momentum"}, {"rmsprop+momentum", "rmsprop"}}
	for _, from := range variants {
		for _, to := range variants {
			foreign := from.name != to.name && states[from.label].Len() > 0
			for _, p := range sameName {
				foreign = foreign || (p[0] == from.label && p[1] == to.label)
			}
			if !foreign {
				continue
			}
			o := newOptimizer(t, to.name, to.c)
			err := o.LoadState(states[from.label])
			if err == nil || !strings.Contains(err.Error(), "state") {
				t.Errorf("loading %s state into %s: error %v, want one about foreign state", from.label, to.label, err)
			}
		}
	}
}

// stateTensor is a state tensor of n values, all v, for hand-made states.
type stateTensor struct {
	name string
	n    int
	v    float64
}

func TestLoadStateInvalid(t *testing.T) {
	tests := []struct {
		name   string
		state  []stateTensor
		substr string
	}{
		{"fractional step", []stateTensor{{"m/w", 3, 0}, {"v/w", 3, 1}, {"t/w", 1, 1.5}}, `step counter "t/w"`},
		{"negative step", []stateTensor{{"m/w", 3, 0}, {"v/w", 3, 1}, {"t/w", 1, -1}}, `step counter "t/w"`},
		{"counter shape", []stateTensor{{"m/w", 3, 0}, {"v/w", 3, 1}, {"t/w", 2, 1}}, "2 values"},
		{"no counter", []stateTensor{{"m/w", 3, 0}, {"v/w", 3, 1}}, "lacks step counter"},
		{"slot shapes differ", []stateTensor{{"m/w", 3, 0}, {"v/w", 4, 1}, {"t/w", 1, 1}}, "shape"},
		{"no slash", []stateTensor{{"velocity", 3, 0}}, "<slot>/<param>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := graph.NewParams()
			for _, st := range tt.state {
				mustAdd(s, st.name, st.n)
				_ = s.Fill(st.name, st.v)
			}
			err := newOptimizer(t, "adam", Config{}).LoadState(s)
			if err == nil || !strings.Contains(err.Error(), tt.substr) {
				t.Errorf("error %v, want one containing %q", err, tt.substr)
			}
		})
	}
	if err := newOptimizer(t, "adam", Config{}).LoadState(nil); err == nil {
		t.Error("LoadState(nil): no error")
	}
}

func TestLoadStateEmptyResets(t *testing.T) {
	h1, h2 := leastSquaresProblem(t), leastSquaresProblem(t)
	o := newOptimizer(t, "adam", Config{})
	runSteps(t, o, h1, 3)
	if err := o.LoadState(graph.NewParams()); err != nil {
		t.Fatal(err)
	}
	if err := h1.params.CopyFrom(h2.params); err != nil {
		t.Fatal(err)
	}
	runSteps(t, o, h1, 3)
	runSteps(t, newOptimizer(t, "adam", Config{}), h2, 3)
	if msg := sameBits(h1.params, h2.params); msg != "" {
		t.Errorf("after loading an empty state: %s, want a fresh start", msg)
	}
}

func TestStepErrors(t *testing.T) {
	shapes := map[string][]int{"w": {3}, "b": {1}, "v": {4}}
	tests := []struct {
		name   string
		grads  func(t *testing.T) *graph.Params
		substr string
	}{
		{"missing", func(t *testing.T) *graph.Params { return mustParams(t, shapes, "w", "v") }, `no gradient for parameter "b"`},
		{"extra", func(t *testing.T) *graph.Params { return mustParams(t, shapes, "w", "b", "v") }, "3 gradients for 2"},
		{"shape", func(t *testing.T) *graph.Params {
			return mustParams(t, map[string][]int{"w": {3, 1}, "b": {1}}, "w", "b")
		}, "shape [3] but its gradient [3 1]"},
		{"nan", func(t *testing.T) *graph.Params {
			g := mustParams(t, shapes, "w", "b")
			g.Data("b")[0] = math.NaN()
			return g
		}, `gradient of "b" holds NaN`},
	}
	for _, v := range stateVariants() {
		for _, tt := range tests {
			t.Run(v.label+"/"+tt.name, func(t *testing.T) {
				o := newOptimizer(t, v.name, v.c)
				p := mustParams(t, shapes, "w", "b")
				p.Data("w")[0] = 1
				before, st := p.Clone(), o.State()
				err := o.Step(p, tt.grads(t))
				if err == nil || !strings.Contains(err.Error(), tt.substr) {
					t.Errorf("error %v, want one containing %q", err, tt.substr)
				}
				if msg := sameBits(p, before); msg != "" {
					t.Errorf("failed step changed the parameters: %s", msg)
				}
				if msg := sameBits(o.State(), st); msg != "" {
					t.Errorf("failed step changed the state: %s", msg)
				}
			})
		}
	}
}

func TestShapeChangeIsError(t *testing.T) {
	for _, v := range harnessVariants() {
		t.Run(v.label, func(t *testing.T) {
			o := newOptimizer(t, v.name, v.c)
			small := mustParams(t, map[string][]int{"w": {3}}, "w")
			if err := o.Step(small, small.Like()); err != nil {
				t.Fatal(err)
			}
			big := mustParams(t, map[string][]int{"w": {4}}, "w")
			err := o.Step(big, big.Like())
			if o.State().Len() == 0 {
				return // stateless: nothing to mismatch
			}
			if err == nil || !strings.Contains(err.Error(), "state holds [3]") {
				t.Errorf("error %v, want one about the state shape", err)
			}
		})
	}
}

func TestStepDoesNotModifyGrads(t *testing.T) {
	for _, v := range stateVariants() {
		t.Run(v.label, func(t *testing.T) {
			h := leastSquaresProblem(t)
			o := newOptimizer(t, v.name, v.c)
			g := h.params.Like()
			for range 3 {
				h.f(h.params, g)
				before := g.Clone()
				if err := o.Step(h.params, g); err != nil {
					t.Fatal(err)
				}
				if msg := sameBits(g, before); msg != "" {
					t.Fatalf("Step changed the gradient: %s", msg)
				}
			}
		})
	}
}

// clipTol is the relative rounding allowed on a clipped step's norm.
const clipTol = 1e-12

func TestClipNormBoundsStep(t *testing.T) {
	const lr, clip = 1, 0.5
	for _, scale := range []float64{1e-3, 1, 1e3, 1e160} {
		o := newOptimizer(t, "sgd", Config{LR: lr, ClipNorm: clip})
		p := mustParams(t, map[string][]int{"a": {2}, "b": {1}}, "a", "b")
		g := p.Like()
		raw := []float64{3 * scale, -4 * scale, 12 * scale} // norm 13*scale
		copy(g.Data("a"), raw[:2])
		g.Data("b")[0] = raw[2]
		if err := o.Step(p, g); err != nil {
			t.Fatal(err)
		}
		step := append(p.Data("a"), p.Data("b")...)
		want := math.Min(13*scale, clip) * lr
		if n := p.Norm(); math.Abs(n-want) > clipTol*want {
			t.Errorf("gradient norm %g: step norm %g, want %g", 13*scale, n, want)
		}
		for i := range step { // direction kept: step = -c * raw
			if c := -step[i] / raw[i]; math.Abs(c*13*scale-want) > clipTol*want {
				t.Errorf("gradient norm %g: step %v is not along the gradient %v", 13*scale, step, raw)
				break
			}
		}
	}
}

func TestWeightDecayShrinks(t *testing.T) {
	for _, v := range harnessVariants() {
		t.Run(v.label, func(t *testing.T) {
			c := v.c
			c.WeightDecay = 0.1
			o := newOptimizer(t, v.name, c)
			p := mustParams(t, map[string][]int{"w": {3}}, "w")
			copy(p.Data("w"), []float64{1, -2, 3})
			g := p.Like() // zero gradient
			for range 5 {
				prev := append([]float64(nil), p.Data("w")...)
				if err := o.Step(p, g); err != nil {
					t.Fatal(err)
				}
				for i, x := range p.Data("w") {
					if !(math.Abs(x) < math.Abs(prev[i])) || x*prev[i] <= 0 {
						t.Fatalf("w[%d] went from %v to %v with zero gradient, want it to shrink", i, prev[i], x)
					}
				}
			}
			if g.Norm() != 0 {
				t.Error("Step wrote the gradient")
			}
		})
	}
}

// TestSGDHandComputed checks SGD against values worked out by hand (exact
// in binary up to the rounding of the products, so compared to 1e-15).
func TestSGDHandComputed(t *testing.T) {
	const tol = 1e-15
	g1, g2 := []float64{0.5, -1}, []float64{1, 2}
	tests := []struct {
		name string
		c    Config
		want []float64 // after steps with g1 then g2 from p = (1, 2)
	}{
		// p1 = p − 0.1 g1 = (0.95, 2.1); p2 = p1 − 0.1 g2 = (0.85, 1.9).
		{"plain", Config{LR: 0.1}, []float64{0.85, 1.9}},
		// b1 = g1, p1 = (0.95, 2.1); b2 = 0.9 b1 + g2 = (1.45, 1.1),
		// p2 = p1 − 0.1 b2 = (0.805, 1.99).
		{"momentum", Config{LR: 0.1, Momentum: 0.9}, []float64{0.805, 1.99}},
		// b1 = g1, p1 = p − 0.1 (g1 + 0.9 b1) = (0.905, 2.19);
		// b2 = (1.45, 1.1), p2 = p1 − 0.1 (g2 + 0.9 b2) = (0.6745, 1.891).
		{"nesterov", Config{LR: 0.1, Momentum: 0.9, Nesterov: true}, []float64{0.6745, 1.891}},
		// g1' = g1 + 0.5 p = (1, 0), p1 = (0.9, 2);
		// g2' = g2 + 0.5 p1 = (1.45, 3), p2 = (0.755, 1.7).
		{"weight decay", Config{LR: 0.1, WeightDecay: 0.5}, []float64{0.755, 1.7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newOptimizer(t, "sgd", tt.c)
			p := mustParams(t, map[string][]int{"w": {2}}, "w")
			copy(p.Data("w"), []float64{1, 2})
			g := p.Like()
			for _, gi := range [][]float64{g1, g2} {
				copy(g.Data("w"), gi)
				if err := o.Step(p, g); err != nil {
					t.Fatal(err)
				}
			}
			for i, x := range p.Data("w") {
				if math.Abs(x-tt.want[i]) > tol {
					t.Errorf("w = %v, want %v", p.Data("w"), tt.want)
					break
				}
			}
		})
	}
}

func TestNesterovDiffersFromMomentum(t *testing.T) {
	plain, nest := quadraticProblem(t), quadraticProblem(t)
	runSteps(t, newOptimizer(t, "sgd", Config{LR: 0.005, Momentum: 0.9}), plain, 3)
	runSteps(t, newOptimizer(t, "sgd", Config{LR: 0.005, Momentum: 0.9, Nesterov: true}), nest, 3)
	if msg := sameBits(plain.params, nest.params); msg == "" {
		t.Error("Nesterov and plain momentum gave identical parameters")
	}
}

// TestAdamFirstStep checks the bias correction: the first Adam step is
// lr g / (|g| + eps) per coordinate, whatever Beta1 and Beta2.
func TestAdamFirstStep(t *testing.T) {
	const lr, eps, tol = 0.01, 1e-8, 1e-15
	for _, betas := range [][2]float64{{0.9, 0.999}, {0.5, 0.6}} {
		o := newOptimizer(t, "adam", Config{LR: lr, Beta1: betas[0], Beta2: betas[1], Eps: eps})
		p := mustParams(t, map[string][]int{"w": {3}}, "w")
		g := p.Like()
		copy(g.Data("w"), []float64{2, -1e-3, 0})
		if err := o.Step(p, g); err != nil {
			t.Fatal(err)
		}
		for i, gi := range g.Data("w") {
			want := -lr * gi / (math.Abs(gi) + eps)
			if got := p.Data("w")[i]; math.Abs(got-want) > tol {
				t.Errorf("betas %v: w[%d] = %v, want %v", betas, i, got, want)
			}
		}
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		c      Config
		substr string
	}{
		{"sgd", Config{LR: -1}, "optim: lr must be positive"},
		{"sgd", Config{LR: math.NaN()}, "optim: lr must be positive"},
		{"sgd", Config{Momentum: 1.5}, "optim: momentum must be in [0, 1), got 1.5"},
		{"sgd", Config{Momentum: -0.1}, "optim: momentum must be in [0, 1)"},
		{"sgd", Config{Nesterov: true}, "optim: nesterov needs momentum > 0"},
		{"sgd", Config{ClipNorm: -1}, "optim: clip norm must be >= 0"},
		{"sgd", Config{WeightDecay: -1}, "optim: weight decay must be >= 0"},
		{"adam", Config{Beta1: 1}, "optim: beta1 must be in [0, 1), got 1"},
		{"adam", Config{Beta2: -0.5}, "optim: beta2 must be in [0, 1)"},
		{"adam", Config{Eps: -1e-8}, "optim: eps must be positive"},
		{"adamax", Config{Beta2: 2}, "optim: beta2 must be in [0, 1)"},
		{"rmsprop", Config{Rho: 1}, "optim: rho must be in (0, 1), got 1"},
		{"rmsprop", Config{Momentum: 1}, "optim: momentum must be in [0, 1)"},
		{"adagrad", Config{LR: math.Inf(1)}, "optim: lr must be positive and finite"},
		{"nosuch", Config{}, `optim: unknown optimizer "nosuch"`},
	}
	for _, tt := range tests {
		_, err := New(tt.name, tt.c)
		if err == nil || !strings.Contains(err.Error(), tt.substr) || strings.Contains(err.Error(), "\n") {
			t.Errorf("New(%q, %+v): error %v, want one line containing %q", tt.name, tt.c, err, tt.substr)
		}
	}
}

func TestRegistry(t *testing.T) {
	defaultLR := map[string]float64{"sgd": 0.01, "adam": 0.001, "adamax": 0.002, "rmsprop": 0.001, "adagrad": 0.01}
	for name, lr := range defaultLR {
		o, err := New(name, Config{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if o.Name() != name || o.LearningRate() != lr {
			t.Errorf("New(%q) gave %q with lr %v, want lr %v", name, o.Name(), o.LearningRate(), lr)
		}
		o.SetLearningRate(0.5)
		if o.LearningRate() != 0.5 {
			t.Errorf("%s: SetLearningRate(0.5) gave %v", name, o.LearningRate())
		}
	}
}

func BenchmarkStep(b *testing.B) {
	for _, n := range []int{100, 10000, 1000000} {
		for _, v := range harnessVariants() {
			b.Run(v.label+"/"+strconv.Itoa(n), func(b *testing.B) {
				p := mustParams(b, map[string][]int{"w": {n}}, "w")
				g := p.Like()
				_ = g.Fill("w", 1e-3)
				o := newOptimizer(b, v.name, v.c)
				for b.Loop() {
					if err := o.Step(p, g); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
