package spectral

import (
	"github.com/pkg/errors"

	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
)

// RNN is a linear 2-RNN with n states, d inputs and p outputs (Eq. (1) of
// the 2-RNN paper with identity activations):
//
//	h_0 = Alpha,  h_t[j] = sum_{i,c} h_{t-1}[i] x_t[c] A[i,c,j],  y_t = Omega h_t.
//
// Parameters are flat and row-major: A[i,c,j] = A[(i*d+c)*n+j] (n x d x n),
// Omega[o,j] = Omega[o*n+j] (p x n). It is the one linear 2-RNN type of
// rtn: the paper's synthetic targets (RandomTwoRNN, AdditionTwoRNN), the
// spectral estimates, and the WFA conversions of Theorem 2 all use it.
type RNN struct {
	// States, In and Out are n, d and p.
	States, In, Out int
	// Alpha is h_0 (n); A the transition tensor (n*d*n); Omega the output
	// matrix (p*n).
	Alpha, A, Omega []float64
}

// Zero is the linear 2-RNN with n states computing the zero function.
func Zero(n, d, p int) RNN {
	return RNN{States: n, In: d, Out: p, Alpha: make([]float64, n), A: make([]float64, n*d*n), Omega: make([]float64, p*n)}
}

// Predict returns the outputs of the model on every example of s as an
// N x p matrix. One step for the whole batch is a GEMM of the N x n states
// with the n x (d n) reshape of A, then a contraction with the inputs.
func (m RNN) Predict(s datasets.TwoRNNData) (*mat.Dense, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, errors.Wrap(err, "spectral")
	}
	if s.In != m.In || s.Out != m.Out {
		return nil, errors.Errorf("spectral: data has d = %d, p = %d but the 2-RNN has d = %d, p = %d", s.In, s.Out, m.In, m.Out)
	}
	n, d, N := m.States, m.In, s.N()
	h := mat.NewDense(N, n, nil)
	for b := range N {
		h.SetRow(b, m.Alpha)
	}
	a := mat.NewDense(n, d*n, m.A)
	z := mat.NewDense(N, d*n, nil)
	for t := range s.Len {
		z.Mul(h, a)
		for b := range N {
			x := s.X[(b*s.Len+t)*d : (b*s.Len+t+1)*d]
			zr := z.RawRowView(b)
			hr := h.RawRowView(b)
			clear(hr)
			for c, xc := range x {
				for j, v := range zr[c*n : (c+1)*n] {
					hr[j] += xc * v
				}
			}
		}
	}
	y := mat.NewDense(N, m.Out, nil)
	y.Mul(h, mat.NewDense(m.Out, n, m.Omega).T())
	return y, nil
}

// MSE is the mean over examples and outputs of the squared error of the
// model on s.
func (m RNN) MSE(s datasets.TwoRNNData) (float64, error) {
	y, err := m.Predict(s)
	if err != nil {
		return math.NaN(), err
	}
	ss := 0.0
	for i, v := range y.RawMatrix().Data {
		e := v - s.Y[i]
		ss += e * e
	}
	return ss / float64(len(s.Y)), nil
}

// WFA is a p-dimensional vector-valued weighted finite automaton with n
// states over the alphabet {0, ..., len(Trans)-1} (Section 2 of the 2-RNN
// paper): f(s_1..s_k) = Omega (A_{s_1} ... A_{s_k})^T Alpha.
type WFA struct {
	// States and Out are n and p.
	States, Out int
	// Alpha holds the n initial weights.
	Alpha []float64
	// Trans[s] is the n x n transition matrix of symbol s, row-major.
	Trans [][]float64
	// Omega is the p x n matrix of final weights, row-major.
	Omega []float64
}

// Validate checks the sizes (at least one symbol) and finiteness.
func (w WFA) Validate() error {
	if w.States < 1 || w.Out < 1 || len(w.Trans) < 1 {
		return errors.Errorf("spectral: WFA with %d states, %d outputs, %d symbols, want all >= 1", w.States, w.Out, len(w.Trans))
	}
	n := w.States
	if len(w.Alpha) != n || len(w.Omega) != w.Out*n {
		return errors.Errorf("spectral: WFA has %d initial and %d final weights, want %d and %d", len(w.Alpha), len(w.Omega), n, w.Out*n)
	}
	for s, a := range w.Trans {
		if len(a) != n*n {
			return errors.Errorf("spectral: WFA transition matrix of symbol %d has %d entries, want %d", s, len(a), n*n)
		}
	}
	return w.RNN().Validate()
}

// Eval returns f(word) (p values). It fails on a symbol out of range.
func (w WFA) Eval(word []int) ([]float64, error) {
	n := w.States
	row := append([]float64(nil), w.Alpha...)
	next := make([]float64, n)
	for t, s := range word {
		if s < 0 || s >= len(w.Trans) {
			return nil, errors.Errorf("spectral: WFA symbol %d at position %d out of range [0, %d)", s, t, len(w.Trans))
		}
		mat.NewVecDense(n, next).MulVec(mat.NewDense(n, n, w.Trans[s]).T(), mat.NewVecDense(n, row))
		row, next = next, row
	}
	y := make([]float64, w.Out)
	mat.NewVecDense(w.Out, y).MulVec(mat.NewDense(w.Out, n, w.Omega), mat.NewVecDense(n, row))
	return y, nil
}

// RNN returns the linear 2-RNN (Alpha, A, Omega) with A[:,s,:] = Trans[s],
// which computes on one-hot inputs what the WFA computes on symbols
// (Theorem 2, first direction). The parameters are copied.
func (w WFA) RNN() RNN {
	n, d := w.States, len(w.Trans)
	a := make([]float64, n*d*n)
	for s, t := range w.Trans {
		for i := range n {
			copy(a[(i*d+s)*n:(i*d+s+1)*n], t[i*n:(i+1)*n])
		}
	}
	return RNN{States: n, In: d, Out: w.Out, Alpha: append([]float64(nil), w.Alpha...), A: a, Omega: append([]float64(nil), w.Omega...)}
}

// WFA returns the automaton over d symbols with Trans[s] = A[:,s,:], which
// computes on symbol strings what the 2-RNN computes on their one-hot
// encodings (Theorem 2, second direction). The parameters are copied.
func (m RNN) WFA() WFA {
	n, d := m.States, m.In
	tr := make([][]float64, d)
	for s := range tr {
		tr[s] = make([]float64, n*n)
		for i := range n {
			copy(tr[s][i*n:(i+1)*n], m.A[(i*d+s)*n:(i*d+s+1)*n])
		}
	}
	return WFA{States: n, Out: m.Out, Alpha: append([]float64(nil), m.Alpha...), Trans: tr, Omega: append([]float64(nil), m.Omega...)}
}
