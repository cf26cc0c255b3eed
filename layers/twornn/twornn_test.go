package twornn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/spectral"
)

const valueTol = 1e-12

func randRNN(rng *rand.Rand, n, d, p int) spectral.RNN {
	r := spectral.Zero(n, d, p)
	for _, v := range [][]float64{r.Alpha, r.A, r.Omega} {
		for i := range v {
			v[i] = 0.5 * rng.NormFloat64()
		}
	}
	return r
}

func sample(t *testing.T, target spectral.RNN, n, l int, noise float64, rng *rand.Rand) datasets.TwoRNNData {
	t.Helper()
	p := spectral.TwoRNNProblem{Name: "t", Target: target}
	s, err := p.Sample(n, l, noise, rng)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// evalNonlinear is a hand-written 2-RNN forward pass with activation f.
func evalNonlinear(r spectral.RNN, x []float64, f func(float64) float64) []float64 {
	n, d := r.States, r.In
	h := append([]float64(nil), r.Alpha...)
	for t := 0; t < len(x)/d; t++ {
		next := make([]float64, n)
		for i := range n {
			for c := range d {
				for j := range n {
					next[j] += h[i] * x[t*d+c] * r.A[(i*d+c)*n+j]
				}
			}
		}
		for j := range next {
			next[j] = f(next[j])
		}
		h = next
	}
	y := make([]float64, r.Out)
	for o := range y {
		for j := range n {
			y[o] += r.Omega[o*n+j] * h[j]
		}
	}
	return y
}

// The graph computes Eq. (1) for every activation, checked against a
// hand-written forward pass; the activation.LeakyReLU slope changes without a new
// graph.
func TestModelMatchesHandWritten(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	r := randRNN(rng, 3, 2, 2)
	data := sample(t, randRNN(rng, 2, 2, 2), 7, 4, 0.5, rng)
	leaky := func(s float64) func(float64) float64 {
		return func(z float64) float64 {
			if z < 0 {
				return s * z
			}
			return z
		}
	}
	for _, c := range []struct {
		act   activation.Activation
		slope float64
		f     func(float64) float64
	}{
		{activation.Identity, 1, func(z float64) float64 { return z }},
		{activation.Tanh, 1, math.Tanh},
		{activation.LeakyReLU, 1, leaky(1)},
		{activation.LeakyReLU, 0.2, leaky(0.2)},
	} {
		m, err := NewModel("m", 2, 3, 2, c.act)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.SetFromRNN(r); err != nil {
			t.Fatal(err)
		}
		reg, err := NewRegression(m, []datasets.TwoRNNData{data})
		if err != nil {
			t.Fatal(err)
		}
		all := []int{0, 1, 2, 3, 4, 5, 6}
		// Build the graph at slope 1, then move the slope.
		if _, err := reg.Loss(all); err != nil {
			t.Fatal(err)
		}
		if err := m.Cell.SetSlope(c.slope); err != nil {
			t.Fatal(err)
		}
		got, err := reg.Loss(all)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for i := range data.N() {
			y := evalNonlinear(r, data.Seq(i), c.f)
			for o := range y {
				e := y[o] - data.Y[i*2+o]
				want += e * e / 2
			}
		}
		want /= float64(data.N())
		if math.Abs(got-want) > valueTol*(1+want) {
			t.Fatalf("%s slope %g: loss %.15g, hand-written %.15g", c.act, c.slope, got, want)
		}
	}
}

// Finite-difference gradient check of every parameter, for every
// activation, on a batch mixing two lengths.
func TestModelGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	target := randRNN(rng, 2, 3, 2)
	sets := []datasets.TwoRNNData{sample(t, target, 4, 1, 0.3, rng), sample(t, target, 5, 3, 0.3, rng)}
	for _, act := range []activation.Activation{activation.Identity, activation.Tanh, activation.LeakyReLU} {
		m, err := NewModel("m", 3, 3, 2, act)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Init(rng); err != nil {
			t.Fatal(err)
		}
		if err := m.Cell.SetSlope(0.3); err != nil {
			t.Fatal(err)
		}
		reg, err := NewRegression(m, sets)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]int, reg.NumExamples())
		for i := range all {
			all[i] = i
		}
		err = graph.CheckGradients(m.Params,
			func() (float64, error) { return reg.Loss(all) },
			func(g *params.Params) error { _, err := reg.LossGrad(all, g); return err },
			graph.FDOptions{Tol: 1e-6})
		if err != nil {
			t.Fatalf("%s: %v", act, err)
		}
	}
}

// The spectral estimate round-trips through the model, and its loss on
// noiseless data of its own function is zero.
func TestSetFromRNNRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	r := randRNN(rng, 4, 3, 2)
	m, _ := NewModel("m", 3, 4, 2, activation.Identity)
	if err := m.SetFromRNN(r); err != nil {
		t.Fatal(err)
	}
	back := m.RNN()
	for i := range r.A {
		if back.A[i] != r.A[i] {
			t.Fatal("A changed")
		}
	}
	for i := range r.Omega {
		if back.Omega[i] != r.Omega[i] {
			t.Fatal("Omega changed")
		}
	}
	mse, err := m.MSE(sample(t, r, 20, 5, 0, rng))
	if err != nil {
		t.Fatal(err)
	}
	if mse > 1e-24 {
		t.Fatalf("MSE %g on its own outputs", mse)
	}
	if err := m.SetFromRNN(randRNN(rng, 3, 3, 2)); err == nil {
		t.Fatal("wrong state count accepted")
	}
}

// Fine-tuning with optim.Trainer (Adam, lr 0.001 as in the
// paper) lowers the loss of a perturbed linear 2-RNN on noisy data.
func TestFineTuneLowersLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	target := randRNN(rng, 2, 3, 1)
	var sets []datasets.TwoRNNData
	for _, l := range []int{1, 2, 3} {
		sets = append(sets, sample(t, target, 100, l, 0.1, rng))
	}
	start := target
	start.A = append([]float64(nil), target.A...)
	for i := range start.A {
		start.A[i] += 0.05 * rng.NormFloat64()
	}
	m, _ := NewModel("m", 3, 2, 1, activation.Identity)
	if err := m.SetFromRNN(start); err != nil {
		t.Fatal(err)
	}
	reg, err := NewRegression(m, sets)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := m.MSE(sets[2])
	opt, err := optim.New("adam", optim.Config{LR: 0.001})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := optim.NewTrainer(reg, opt, optim.TrainConfig{Epochs: 15, BatchSize: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	after, _ := m.MSE(sets[2])
	t.Logf("length-3 MSE %.4g -> %.4g", before, after)
	if !(after < 0.8*before) {
		t.Fatalf("fine-tuning did not lower the loss: %g -> %g", before, after)
	}
}

func TestBadInput(t *testing.T) {
	if _, err := NewModel("m", 0, 2, 1, activation.Identity); err == nil {
		t.Fatal("d = 0 accepted")
	}
	if _, err := NewModel("m", 2, 2, 1, activation.SymSigmoid); err == nil {
		t.Fatal("unsupported activation accepted")
	}
	m, _ := NewModel("m", 2, 2, 1, activation.LeakyReLU)
	if err := m.Cell.SetSlope(math.NaN()); err == nil {
		t.Fatal("NaN slope accepted")
	}
	bad := datasets.TwoRNNData{Len: 1, In: 3, Out: 1, X: []float64{1, 2, 3}, Y: []float64{1}}
	if _, err := NewRegression(m, []datasets.TwoRNNData{bad}); err == nil {
		t.Fatal("d mismatch accepted")
	}
}
