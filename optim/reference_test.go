package optim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/params"
)

// referenceTol is the largest difference allowed between an optimizer's
// parameters and its reference implementation's after each of
// referenceSteps steps: both compute the same real numbers, so only the
// order of the floating-point operations differs.
const (
	referenceTol   = 1e-12
	referenceSteps = 20
)

// referenceShapes are the parameters of the reference runs: a matrix, a
// vector, a scalar and a tensor with a dimension of size 1.
var referenceShapes = []struct {
	name  string
	shape []int
}{{"w", []int{4, 5}}, {"b", []int{7}}, {"s", []int{1}}, {"u", []int{2, 1, 3}}}

// refParams are the start of a reference run: seeded values in [-1, 1).
func refParams(t testing.TB) *params.Params {
	rng := rand.New(rand.NewPCG(7, 8))
	p := params.New()
	for _, s := range referenceShapes {
		d, err := p.Add(s.name, s.shape...)
		if err != nil {
			t.Fatal(err)
		}
		for i := range d {
			d[i] = 2*rng.Float64() - 1
		}
	}
	return p
}

// refGradients is the fixed sequence of gradients of a reference run,
// one set per step, seeded Gaussian with scales that differ by tensor
// and step so that moment estimates and preconditioners are not trivial.
func refGradients(t testing.TB) []*params.Params {
	rng := rand.New(rand.NewPCG(9, 10))
	out := make([]*params.Params, referenceSteps)
	for k := range out {
		g := refParams(t).Like()
		for j, n := range g.Names() {
			scale := math.Pow(3, float64(j-1)) * (1 + 0.5*math.Sin(float64(k)))
			for i := range g.Data(n) {
				g.Data(n)[i] = scale * rng.NormFloat64()
			}
		}
		out[k] = g
	}
	return out
}

// refStepper is a reference implementation: it updates the tensor p (the
// i-th of referenceShapes, with shape shape) from its gradient g at step
// t (from 1), keeping its own state.
type refStepper interface {
	step(i int, shape []int, p, g []float64, t int)
}

// refCase is an optimizer configuration and its reference.
type refCase struct {
	name string
	c    Config
	ref  func() refStepper
}

// refAverager is a reference whose answer differs from its gradient
// point: x returns the i-th tensor of its answer.
type refAverager interface {
	refStepper
	x(i int) []float64
}

// checkAgainstReference runs the optimizer and its reference over the
// fixed gradients and fails at the first step where their parameters (and,
// for an Averager, their evaluation points) differ by more than
// referenceTol.
func checkAgainstReference(t *testing.T, rc refCase) {
	t.Helper()
	o := newOptimizer(t, rc.name, rc.c)
	p, q := refParams(t), refParams(t)
	r := rc.ref()
	for k, g := range refGradients(t) {
		if err := o.Step(p, g); err != nil {
			t.Fatal(err)
		}
		for i, s := range referenceShapes {
			r.step(i, s.shape, q.Data(s.name), g.Data(s.name), k+1)
		}
		if d, where := maxDiff(p, q); !(d <= referenceTol) {
			t.Fatalf("step %d: parameters differ from the reference by %.3g at %s", k+1, d, where)
		}
		ra, ok := r.(refAverager)
		if !ok {
			continue
		}
		got, want := p.Like(), p.Like()
		if err := o.(Averager).EvalParams(got, p); err != nil {
			t.Fatal(err)
		}
		for i, s := range referenceShapes {
			copy(want.Data(s.name), ra.x(i))
		}
		if d, where := maxDiff(got, want); !(d <= referenceTol) {
			t.Fatalf("step %d: evaluation point differs from the reference's x by %.3g at %s", k+1, d, where)
		}
	}
}

// maxDiff is the largest absolute difference between a and b, and where.
func maxDiff(a, b *params.Params) (float64, string) {
	d, where := 0.0, ""
	for _, n := range a.Names() {
		for i, x := range a.Data(n) {
			if e := math.Abs(x - b.Data(n)[i]); e > d || math.IsNaN(e) {
				d, where = e, fmt.Sprintf("%s[%d]", n, i)
			}
		}
	}
	return d, where
}

// moments is per-tensor first and second moments of a reference.
type moments struct{ m, v map[int][]float64 }

func newMoments() moments { return moments{m: map[int][]float64{}, v: map[int][]float64{}} }

// of returns tensor i's moments, zero at first sight.
func (s moments) of(i, n int) ([]float64, []float64) {
	if s.m[i] == nil {
		s.m[i], s.v[i] = make([]float64, n), make([]float64, n)
	}
	return s.m[i], s.v[i]
}

// refAdamW is torch.optim.AdamW's documented algorithm (Loshchilov and
// Hutter 2019, Algorithm 2): θ ← θ − γλθ, then Adam with bias-corrected
// moments m̂, v̂ and θ ← θ − γ m̂ / (√v̂ + ε).
type refAdamW struct {
	lr, b1, b2, eps, lambda float64
	moments
}

func (r *refAdamW) step(i int, _ []int, p, g []float64, t int) {
	m, v := r.of(i, len(p))
	for j := range p {
		p[j] -= r.lr * r.lambda * p[j]
		m[j] = r.b1*m[j] + (1-r.b1)*g[j]
		v[j] = r.b2*v[j] + (1-r.b2)*g[j]*g[j]
		mhat := m[j] / (1 - math.Pow(r.b1, float64(t)))
		vhat := v[j] / (1 - math.Pow(r.b2, float64(t)))
		p[j] -= r.lr * mhat / (math.Sqrt(vhat) + r.eps)
	}
}

// refNAdam is torch.optim.NAdam's documented algorithm (Dozat 2016 with
// the momentum schedule μ_t = β1 (1 − ½ 0.96^(tψ))), the products of μ
// recomputed from scratch, with coupled weight decay wd:
//
//	m̂ = μ_{t+1} m / (1 − Π_{i≤t+1} μ_i) + (1 − μ_t) g / (1 − Π_{i≤t} μ_i)
//	θ ← θ − γ m̂ / (√(v / (1−β2ᵗ)) + ε)
type refNAdam struct {
	lr, b1, b2, eps, psi, wd float64
	moments
}

func (r *refNAdam) mu(t int) float64 { return r.b1 * (1 - 0.5*math.Pow(0.96, float64(t)*r.psi)) }

func (r *refNAdam) prod(t int) float64 {
	out := 1.0
	for i := 1; i <= t; i++ {
		out *= r.mu(i)
	}
	return out
}

func (r *refNAdam) step(i int, _ []int, p, g []float64, t int) {
	m, v := r.of(i, len(p))
	for j := range p {
		gj := g[j] + r.wd*p[j]
		m[j] = r.b1*m[j] + (1-r.b1)*gj
		v[j] = r.b2*v[j] + (1-r.b2)*gj*gj
		mhat := r.mu(t+1)*m[j]/(1-r.prod(t+1)) + (1-r.mu(t))*gj/(1-r.prod(t))
		vhat := v[j] / (1 - math.Pow(r.b2, float64(t)))
		p[j] -= r.lr * mhat / (math.Sqrt(vhat) + r.eps)
	}
}

// refRAdam is torch.optim.RAdam's documented algorithm (Liu et al. 2020,
// Algorithm 2): the adaptive step, rectified by r_t, only once ρ_t > 5.
type refRAdam struct {
	lr, b1, b2, eps float64
	moments
}

func (r *refRAdam) step(i int, _ []int, p, g []float64, t int) {
	m, v := r.of(i, len(p))
	tf := float64(t)
	rhoInf := 2/(1-r.b2) - 1
	rho := rhoInf - 2*tf*math.Pow(r.b2, tf)/(1-math.Pow(r.b2, tf))
	for j := range p {
		m[j] = r.b1*m[j] + (1-r.b1)*g[j]
		v[j] = r.b2*v[j] + (1-r.b2)*g[j]*g[j]
		mhat := m[j] / (1 - math.Pow(r.b1, tf))
		if rho <= 5 {
			p[j] -= r.lr * mhat
			continue
		}
		l := math.Sqrt(1-math.Pow(r.b2, tf)) / (math.Sqrt(v[j]) + r.eps)
		rect := math.Sqrt((rho - 4) * (rho - 2) * rhoInf / ((rhoInf - 4) * (rhoInf - 2) * rho))
		p[j] -= r.lr * mhat * rect * l
	}
}

// refLion is Program 1 of Chen et al. (2023).
type refLion struct {
	lr, b1, b2, lambda float64
	moments
}

func (r *refLion) step(i int, _ []int, p, g []float64, _ int) {
	m, _ := r.of(i, len(p))
	for j := range p {
		update := 0.0 // sign(β1 m + (1−β1) g)
		switch c := r.b1*m[j] + (1-r.b1)*g[j]; {
		case c > 0:
			update = 1
		case c < 0:
			update = -1
		}
		p[j] -= r.lr * (update + r.lambda*p[j])
		m[j] = r.b2*m[j] + (1-r.b2)*g[j]
	}
}

// refScheduleFree is Algorithm 1 of Defazio et al. (2024) with the three
// sequences kept explicitly and the averaging weights summed afresh:
// γ_t = γ min(1, t/W) √(1−β2ᵗ), c_{t+1} = w_t / Σ_{i≤t} w_i with
// w_i = (max_{j≤i} γ_j)².
type refScheduleFree struct {
	lr, b1, b2, eps, lambda float64
	warmup                  int
	z, xs, v                map[int][]float64
}

func (r *refScheduleFree) gamma(t int) float64 {
	sched := 1.0
	if t < r.warmup {
		sched = float64(t) / float64(r.warmup)
	}
	return r.lr * sched * math.Sqrt(1-math.Pow(r.b2, float64(t)))
}

func (r *refScheduleFree) weight(t int) float64 {
	w := 0.0
	for i := 1; i <= t; i++ {
		w = math.Max(w, r.gamma(i))
	}
	return w * w
}

func (r *refScheduleFree) step(i int, _ []int, y, g []float64, t int) {
	if r.z[i] == nil {
		r.z[i], r.xs[i], r.v[i] = append([]float64(nil), y...), append([]float64(nil), y...), make([]float64, len(y))
	}
	z, x, v := r.z[i], r.xs[i], r.v[i]
	sum := 0.0
	for k := 1; k <= t; k++ {
		sum += r.weight(k)
	}
	c := r.weight(t) / sum
	for j := range y {
		v[j] = r.b2*v[j] + (1-r.b2)*g[j]*g[j]
		z[j] = z[j] - r.gamma(t)*g[j]/(math.Sqrt(v[j])+r.eps) - r.gamma(t)*r.lambda*y[j]
		x[j] = (1-c)*x[j] + c*z[j]
		y[j] = (1-r.b1)*z[j] + r.b1*x[j]
	}
}

func (r *refScheduleFree) x(i int) []float64 { return r.xs[i] }

func newRefScheduleFree(lr, b1, b2, eps, lambda float64, warmup int) *refScheduleFree {
	return &refScheduleFree{lr: lr, b1: b1, b2: b2, eps: eps, lambda: lambda, warmup: warmup,
		z: map[int][]float64{}, xs: map[int][]float64{}, v: map[int][]float64{}}
}

func TestOptimizersMatchReferences(t *testing.T) {
	cases := []refCase{
		{"adamw", Config{LR: 0.05}, func() refStepper { return &refAdamW{0.05, 0.9, 0.999, 1e-8, 0.01, newMoments()} }},
		{"adamw", Config{LR: 0.1, Beta1: 0.8, Beta2: 0.99, Eps: 1e-6, DecoupledDecay: 0.3},
			func() refStepper { return &refAdamW{0.1, 0.8, 0.99, 1e-6, 0.3, newMoments()} }},
		{"nadam", Config{LR: 0.05}, func() refStepper { return &refNAdam{0.05, 0.9, 0.999, 1e-8, 0.004, 0, newMoments()} }},
		{"nadam", Config{LR: 0.02, Beta1: 0.95, Beta2: 0.98, MomentumDecay: 0.3, WeightDecay: 0.1},
			func() refStepper { return &refNAdam{0.02, 0.95, 0.98, 1e-8, 0.3, 0.1, newMoments()} }},
		{"radam", Config{LR: 0.05}, func() refStepper { return &refRAdam{0.05, 0.9, 0.999, 1e-8, newMoments()} }},
		{"radam", Config{LR: 0.05, Beta1: 0.5, Beta2: 0.9, Eps: 1e-3},
			func() refStepper { return &refRAdam{0.05, 0.5, 0.9, 1e-3, newMoments()} }},
		{"lion", Config{LR: 0.01}, func() refStepper { return &refLion{0.01, 0.9, 0.99, 0, newMoments()} }},
		{"lion", Config{LR: 0.03, Beta1: 0.5, Beta2: 0.9, DecoupledDecay: 2},
			func() refStepper { return &refLion{0.03, 0.5, 0.9, 2, newMoments()} }},
		{"schedulefree", Config{LR: 0.05}, func() refStepper { return newRefScheduleFree(0.05, 0.9, 0.999, 1e-8, 0, 0) }},
		{"schedulefree", Config{LR: 0.1, Beta1: 0.7, Beta2: 0.95, WarmupSteps: 6, DecoupledDecay: 0.2},
			func() refStepper { return newRefScheduleFree(0.1, 0.7, 0.95, 1e-8, 0.2, 6) }},
	}
	cases = append(cases, shampooRefCases()...)
	for _, rc := range cases {
		t.Run(fmt.Sprintf("%s%+v", rc.name, rc.c), func(t *testing.T) { checkAgainstReference(t, rc) })
	}
}

// TestRAdamRectifies checks that the reference runs exercise both of
// RAdam's branches: ρ_t ≤ 5 at first, > 5 later, for both β2 used.
func TestRAdamRectifies(t *testing.T) {
	for _, b2 := range []float64{0.999, 0.9} {
		rho := func(t float64) float64 {
			inf := 2/(1-b2) - 1
			return inf - 2*t*math.Pow(b2, t)/(1-math.Pow(b2, t))
		}
		if !(rho(1) <= 5 && rho(referenceSteps) > 5) {
			t.Errorf("beta2 %v: rho_1 %v, rho_%d %v: the reference run does not cross 5", b2, rho(1), referenceSteps, rho(referenceSteps))
		}
	}
}
