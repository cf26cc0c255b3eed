package datasets

import (
	"github.com/pkg/errors"

	"math"
	"math/rand/v2"
)

// TwoRNNData holds N input/output examples of one length l, the linear
// measurements of a Hankel tensor in the 2-RNN spectral paper
// (Section 4.2): example i is the inputs x_1..x_l and one output y in R^p,
// the (possibly noisy) value of the target on the whole sequence.
type TwoRNNData struct {
	// Len is l; In is d; Out is p.
	Len, In, Out int
	// X holds N*Len*In inputs: example i, step t, input c is
	// X[(i*Len+t)*In+c].
	X []float64
	// Y holds N*Out outputs: output o of example i is Y[i*Out+o].
	Y []float64
}

// N is the number of examples.
func (s TwoRNNData) N() int {
	if s.Out < 1 {
		return 0
	}
	return len(s.Y) / s.Out
}

// Seq returns the Len*In inputs of example i (a view).
func (s TwoRNNData) Seq(i int) []float64 {
	w := s.Len * s.In
	return s.X[i*w : (i+1)*w]
}

// Validate checks the sizes (at least one example) and that every value is
// finite.
func (s TwoRNNData) Validate() error {
	if s.Len < 1 || s.In < 1 || s.Out < 1 {
		return errors.Errorf("datasets: 2-RNN data with length %d, d = %d, p = %d, want all >= 1", s.Len, s.In, s.Out)
	}
	n := s.N()
	if n < 1 || len(s.Y) != n*s.Out {
		return errors.Errorf("datasets: 2-RNN data of length %d has %d outputs, want a positive multiple of p = %d", s.Len, len(s.Y), s.Out)
	}
	if len(s.X) != n*s.Len*s.In {
		return errors.Errorf("datasets: 2-RNN data of length %d has %d inputs, want N*l*d = %d*%d*%d", s.Len, len(s.X), n, s.Len, s.In)
	}
	for i, x := range s.X {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.Errorf("datasets: 2-RNN data of length %d: input %d of example %d is %g", s.Len, i%(s.Len*s.In), i/(s.Len*s.In), x)
		}
	}
	for i, y := range s.Y {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return errors.Errorf("datasets: 2-RNN data of length %d: output %d of example %d is %g", s.Len, i%s.Out, i/s.Out, y)
		}
	}
	return nil
}

// OutputVar is the mean over examples and outputs of (y - mean_o)^2, the
// variance of the targets with one mean per output coordinate.
func (s TwoRNNData) OutputVar() float64 {
	n := s.N()
	if n == 0 {
		return math.NaN()
	}
	v := 0.0
	for o := range s.Out {
		m := 0.0
		for i := range n {
			m += s.Y[i*s.Out+o]
		}
		m /= float64(n)
		for i := range n {
			e := s.Y[i*s.Out+o] - m
			v += e * e
		}
	}
	return v / float64(n*s.Out)
}

// TwoRNNProblem is one of the paper's synthetic regression problems: a
// linear 2-RNN target and its input distribution.
type TwoRNNProblem struct {
	// Name is "random2rnn" or "addition".
	Name string
	// Target computes the noiseless outputs.
	Target LinearTwoRNN
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
func (p TwoRNNProblem) Sample(n, length int, noise float64, rng *rand.Rand) (TwoRNNData, error) {
	if err := p.Target.Validate(); err != nil {
		return TwoRNNData{}, err
	}
	if n < 1 || length < 1 {
		return TwoRNNData{}, errors.Errorf("datasets: %s sample of %d examples of length %d, want both >= 1", p.Name, n, length)
	}
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return TwoRNNData{}, errors.Errorf("datasets: %s noise std %g, want finite and >= 0", p.Name, noise)
	}
	d, o := p.Target.In, p.Target.Out
	s := TwoRNNData{Len: length, In: d, Out: o, X: make([]float64, n*length*d), Y: make([]float64, n*o)}
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
	Train [3]TwoRNNData
	// Test is the noiseless test set.
	Test TwoRNNData
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
		return TwoRNNSplits{}, errors.Errorf("datasets: %s splits with L = %d, want >= 1", p.Name, cfg.L)
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
