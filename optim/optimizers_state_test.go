package optim

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/params"
)

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
func sameBits(a, b *params.Params) string {
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
	states := map[string]*params.Params{}
	variants := harnessVariants()
	for _, v := range variants {
		o := newOptimizer(t, v.name, v.c)
		runSteps(t, o, leastSquaresProblem(t), 1)
		states[v.label] = o.State()
	}
	// Same optimizer, other configuration: the slots differ.
	sameName := [][2]string{{"sgd+momentum", "sgd"}, {"rmsprop", "rmsprop+momentum"}, {"rmsprop+momentum", "rmsprop"}}
	// adam, adamw and radam keep the same moments ("m", "v", "t"), so each
	// accepts the others' state; a checkpoint names its optimizer, which
	// Trainer.Resume checks.
	sameSlots := map[string]bool{"adam": true, "adamw": true, "radam": true}
	for _, from := range variants {
		for _, to := range variants {
			foreign := from.name != to.name && states[from.label].Len() > 0 && !(sameSlots[from.name] && sameSlots[to.name])
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
			s := params.New()
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
	if err := o.LoadState(params.New()); err != nil {
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
		grads  func(t *testing.T) *params.Params
		substr string
	}{
		{"missing", func(t *testing.T) *params.Params { return mustParams(t, shapes, "w", "v") }, `no gradient for parameter "b"`},
		{"extra", func(t *testing.T) *params.Params { return mustParams(t, shapes, "w", "b", "v") }, "3 gradients for 2"},
		{"shape", func(t *testing.T) *params.Params {
			return mustParams(t, map[string][]int{"w": {3, 1}, "b": {1}}, "w", "b")
		}, "shape [3] but its gradient [3 1]"},
		{"nan", func(t *testing.T) *params.Params {
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
		{"adamw", Config{DecoupledDecay: -0.1}, "optim: decoupled decay must be >= 0"},
		{"adamw", Config{Beta1: 1}, "optim: beta1 must be in [0, 1)"},
		{"nadam", Config{MomentumDecay: -1}, "optim: momentum decay must be positive"},
		{"radam", Config{Beta2: 1}, "optim: beta2 must be in [0, 1)"},
		{"lion", Config{DecoupledDecay: math.Inf(1)}, "optim: decoupled decay must be >= 0 and finite"},
		{"lion", Config{Beta2: 1.5}, "optim: beta2 must be in [0, 1)"},
		{"schedulefree", Config{WarmupSteps: -1}, "optim: warmup steps must be >= 0"},
		{"schedulefree", Config{Eps: math.NaN()}, "optim: eps must be positive"},
		{"shampoo", Config{MaxPreconditionerDim: -2}, "optim: max preconditioner dim must be >= 1"},
		{"shampoo", Config{PreconditionFrequency: -1}, "optim: precondition frequency must be >= 1"},
		{"shampoo", Config{MatrixEps: -1}, "optim: matrix eps must be positive"},
		{"shampoo", Config{Grafting: "sgd"}, `optim: grafting must be adam or none, got "sgd"`},
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
	defaultLR := map[string]float64{"sgd": 0.01, "adam": 0.001, "adamax": 0.002, "rmsprop": 0.001, "adagrad": 0.01,
		"adamw": 0.001, "nadam": 0.002, "radam": 0.001, "lion": 0.0001, "schedulefree": 0.0025, "shampoo": 0.001}
	if len(defaultLR) != len(Names()) {
		t.Errorf("registered %v, the test knows the default rates of %d", Names(), len(defaultLR))
	}
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
