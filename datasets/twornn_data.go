package datasets

import (
	"github.com/pkg/errors"

	"math"
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
