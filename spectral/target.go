package spectral

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
)

// This file holds the paper's synthetic targets (a random 2-RNN and the
// addition task) and the regression problems they define.

// Validate checks the sizes and that every parameter is finite.
func (m RNN) Validate() error {
	n, d, p := m.States, m.In, m.Out
	if n < 1 || d < 1 || p < 1 {
		return errors.Errorf("spectral: linear 2-RNN with n = %d, d = %d, p = %d, want all >= 1", n, d, p)
	}
	if n > math.MaxInt/n/d || n > math.MaxInt/p {
		return errors.Errorf("spectral: linear 2-RNN with n = %d, d = %d, p = %d: its arrays are larger than any slice", n, d, p)
	}
	for _, f := range []struct {
		name string
		v    []float64
		want int
	}{{"Alpha", m.Alpha, n}, {"A", m.A, n * d * n}, {"Omega", m.Omega, p * n}} {
		if len(f.v) != f.want {
			return errors.Errorf("spectral: linear 2-RNN %s has %d values, want %d", f.name, len(f.v), f.want)
		}
		for i, x := range f.v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return errors.Errorf("spectral: linear 2-RNN %s[%d] is %g", f.name, i, x)
			}
		}
	}
	return nil
}

// Eval returns the output y = f(x_1..x_k) (Out values) for the k steps of
// x (k*In values, step-major). It panics if len(x) is not a multiple of
// In; callers validate first.
func (m RNN) Eval(x []float64) []float64 {
	n, d := m.States, m.In
	if len(x)%d != 0 {
		panic(fmt.Sprintf("spectral: RNN.Eval with %d inputs, not a multiple of %d", len(x), d))
	}
	h := append([]float64(nil), m.Alpha...)
	next := make([]float64, n)
	for t := 0; t < len(x)/d; t++ {
		xt := x[t*d : (t+1)*d]
		clear(next)
		for i, hi := range h {
			if hi == 0 {
				continue
			}
			for c, xc := range xt {
				w := hi * xc
				row := m.A[(i*d+c)*n : (i*d+c+1)*n]
				for j, a := range row {
					next[j] += w * a
				}
			}
		}
		h, next = next, h
	}
	y := make([]float64, m.Out)
	for o := range y {
		s := 0.0
		for j, hj := range h {
			s += m.Omega[o*n+j] * hj
		}
		y[o] = s
	}
	return y
}

// RandomTwoRNNConfig describes the random target of the paper's first
// experiment. The zero value gives the paper's setting.
type RandomTwoRNNConfig struct {
	// States is n; if 0 it defaults to 5.
	States int
	// In is d; if 0 it defaults to 3.
	In int
	// Out is p; if 0 it defaults to 2.
	Out int
	// Std is the STANDARD DEVIATION of the Gaussian entries of Alpha, A and
	// Omega (the paper's "N(0, 0.2)", read as a std as the authors' code
	// does); if 0 it defaults to 0.2.
	Std float64
	// ScaleSeqs is the number of length-ScaleLen sequences used to measure
	// the output scale; if 0 it defaults to 1,000.
	ScaleSeqs int
	// ScaleLen is their length; if 0 it defaults to 4.
	ScaleLen int
}

func (c RandomTwoRNNConfig) withDefaults() RandomTwoRNNConfig {
	if c.States == 0 {
		c.States = 5
	}
	if c.In == 0 {
		c.In = 3
	}
	if c.Out == 0 {
		c.Out = 2
	}
	if c.Std == 0 {
		c.Std = 0.2
	}
	if c.ScaleSeqs == 0 {
		c.ScaleSeqs = 1000
	}
	if c.ScaleLen == 0 {
		c.ScaleLen = 4
	}
	return c
}

// RandomTwoRNN draws the random linear 2-RNN target of the paper's first
// experiment: every entry of Alpha, A and Omega is N(0, Std^2). The output
// scale is then normalised as in the authors' code: with m the mean of
// y^2 (over all outputs) on ScaleSeqs sequences of length ScaleLen with
// N(0, I) inputs, Alpha is divided by 10 m, so that the mean of y^2 on
// those lengths becomes 1/(100 m). Draws only from rng.
func RandomTwoRNN(cfg RandomTwoRNNConfig, rng *rand.Rand) (RNN, error) {
	c := cfg.withDefaults()
	if c.States < 1 || c.In < 1 || c.Out < 1 || c.ScaleSeqs < 1 || c.ScaleLen < 1 {
		return RNN{}, errors.Errorf("spectral: random 2-RNN with states %d, in %d, out %d, scale %d x %d: want all >= 1",
			c.States, c.In, c.Out, c.ScaleSeqs, c.ScaleLen)
	}
	if !(c.Std > 0) || math.IsInf(c.Std, 0) {
		return RNN{}, errors.Errorf("spectral: random 2-RNN std %g, want finite and > 0", c.Std)
	}
	n, d, p := c.States, c.In, c.Out
	normal := func(k int) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = c.Std * rng.NormFloat64()
		}
		return v
	}
	m := RNN{States: n, In: d, Out: p, Alpha: normal(n), A: normal(n * d * n), Omega: normal(p * n)}
	x := make([]float64, c.ScaleLen*d)
	ss := 0.0
	for range c.ScaleSeqs {
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for _, y := range m.Eval(x) {
			ss += y * y
		}
	}
	ms := ss / float64(c.ScaleSeqs*p)
	if !(ms > 0) || math.IsInf(ms, 0) {
		return RNN{}, errors.Errorf("spectral: random 2-RNN has output scale %g, cannot normalise", ms)
	}
	for i := range m.Alpha {
		m.Alpha[i] /= 10 * ms
	}
	return m, nil
}

// AdditionTwoRNN returns the linear 2-RNN with 2 states computing the
// paper's second target, f(x_1..x_k) = sum_t (x_t[1] - x_t[0]), on inputs
// x_t = (u_t, v_t, 1) (d = 3, p = 1): the state is (running sum, 1),
// Alpha = (0, 1), and the constant third input carries both coordinates
// forward.
func AdditionTwoRNN() RNN {
	const n, d = 2, 3
	a := make([]float64, n*d*n)
	set := func(i, c, j int, v float64) { a[(i*d+c)*n+j] = v }
	set(0, 2, 0, 1)  // sum carried by the constant input
	set(1, 0, 0, -1) // - u_t
	set(1, 1, 0, 1)  // + v_t
	set(1, 2, 1, 1)  // the constant state
	return RNN{States: n, In: d, Out: 1, Alpha: []float64{0, 1}, A: a, Omega: []float64{1, 0}}
}

// TwoRNNProblem is one of the paper's synthetic regression problems: a
// linear 2-RNN target and its input distribution.
type TwoRNNProblem struct {
	// Name is "random2rnn" or "addition".
	Name string
	// Target computes the noiseless outputs.
	Target RNN
	// Bias, when true, makes the last input coordinate the constant 1 and
	// draws only the others from N(0, 1); otherwise x_t ~ N(0, I_d).
	Bias bool
}

// RandomTwoRNNProblem is the paper's first experiment: a RandomTwoRNN
// target with N(0, I) inputs.
func RandomTwoRNNProblem(cfg RandomTwoRNNConfig, rng *rand.Rand) (TwoRNNProblem, error) {
	m, err := RandomTwoRNN(cfg, rng)
	if err != nil {
		return TwoRNNProblem{}, err
	}
	return TwoRNNProblem{Name: "random2rnn", Target: m}, nil
}

// AdditionProblem is the paper's second experiment: x_t = (u_t, v_t, 1)
// with u_t, v_t ~ N(0, 1) and y = sum_t (v_t - u_t) (AdditionTwoRNN).
func AdditionProblem() TwoRNNProblem {
	return TwoRNNProblem{Name: "addition", Target: AdditionTwoRNN(), Bias: true}
}

// Sample draws n examples of the given length; each output is the
// target's value plus independent Gaussian noise of standard deviation
// noise (0 for noiseless data). Draws only from rng.
func (p TwoRNNProblem) Sample(n, length int, noise float64, rng *rand.Rand) (datasets.TwoRNNData, error) {
	if err := p.Target.Validate(); err != nil {
		return datasets.TwoRNNData{}, err
	}
	if n < 1 || length < 1 {
		return datasets.TwoRNNData{}, errors.Errorf("spectral: %s sample of %d examples of length %d, want both >= 1", p.Name, n, length)
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return datasets.TwoRNNData{}, errors.Errorf("spectral: %s noise std %g, want finite and >= 0", p.Name, noise)
	}
	d, o := p.Target.In, p.Target.Out
	s := datasets.TwoRNNData{Len: length, In: d, Out: o, X: make([]float64, n*length*d), Y: make([]float64, n*o)}
	for i := range n {
		x := s.Seq(i)
		for j := range x {
			if p.Bias && j%d == d-1 {
				x[j] = 1
			} else {
				x[j] = rng.NormFloat64()
			}
		}
		y := p.Target.Eval(x)
		for k, v := range y {
			if noise > 0 {
				v += noise * rng.NormFloat64()
			}
			s.Y[i*o+k] = v
		}
	}
	return s, nil
}

// TwoRNNSplits is the paper's data for one run: training sets of lengths
// L, 2L and 2L+1 (N examples each, noisy) and a noiseless test set.
type TwoRNNSplits struct {
	// Train holds the sets of lengths L, 2L and 2L+1, in that order.
	Train [3]datasets.TwoRNNData
	// Test is the noiseless test set.
	Test datasets.TwoRNNData
}

// TwoRNNSplitConfig sizes TwoRNNSplits. The zero value is invalid for N;
// the other fields default to the paper's values.
type TwoRNNSplitConfig struct {
	// N is the number of training examples of each length (>= 1).
	N int
	// L is the prefix length; if 0 it defaults to 2.
	L int
	// Noise is the standard deviation of the training output noise.
	Noise float64
	// TestN is the number of test sequences; if 0 it defaults to 1,000.
	TestN int
	// TestLen is their length; if 0 it defaults to 6.
	TestLen int
}

// Splits draws the training sets (lengths L, 2L, 2L+1 in that order) and
// then the noiseless test set, all from rng.
func (p TwoRNNProblem) Splits(cfg TwoRNNSplitConfig, rng *rand.Rand) (TwoRNNSplits, error) {
	if cfg.L == 0 {
		cfg.L = 2
	}
	if cfg.TestN == 0 {
		cfg.TestN = 1000
	}
	if cfg.TestLen == 0 {
		cfg.TestLen = 6
	}
	if cfg.L < 1 {
		return TwoRNNSplits{}, errors.Errorf("spectral: %s splits with L = %d, want >= 1", p.Name, cfg.L)
	}
	var out TwoRNNSplits
	for k, l := range []int{cfg.L, 2 * cfg.L, 2*cfg.L + 1} {
		s, err := p.Sample(cfg.N, l, cfg.Noise, rng)
		if err != nil {
			return TwoRNNSplits{}, err
		}
		out.Train[k] = s
	}
	t, err := p.Sample(cfg.TestN, cfg.TestLen, 0, rng)
	if err != nil {
		return TwoRNNSplits{}, err
	}
	out.Test = t
	return out, nil
}
