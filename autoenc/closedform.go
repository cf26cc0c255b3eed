package autoenc

import (
	"math"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"
)

// Model is a linear autoencoder for sequences (eqs. 2-3): encoder
// y_t = A x_t + B y_{t-1} from y_0 = 0, decoder [x_t; y_{t-1}] = C y_t
// with C = [A^T; B^T].
type Model struct {
	// K is the input width k and P the state width p.
	K, P int
	// A is p x k and B is p x p.
	A, B *mat.Dense
	// Lambda holds the p singular values of Xi the model was built from,
	// largest first (the diagonal of Lambda^(p)).
	Lambda []float64
}

// C returns the decoder matrix [A^T; B^T], (k + p) x p (eq. 3).
func (m *Model) C() *mat.Dense {
	c := mat.NewDense(m.K+m.P, m.P, nil)
	c.Slice(0, m.K, 0, m.P).(*mat.Dense).Copy(m.A.T())
	c.Slice(m.K, m.K+m.P, 0, m.P).(*mat.Dense).Copy(m.B.T())
	return c
}

// Encode runs eq. (2) over one sequence (T*k values, step-major) and
// returns its states as the rows of a T x p matrix (the sequence's rows
// of Y = Xi Omega).
func (m *Model) Encode(seq []float64) (*mat.Dense, error) {
	if len(seq) == 0 || len(seq)%m.K != 0 {
		return nil, errors.Errorf("autoenc: sequence of %d values, want a positive multiple of k = %d", len(seq), m.K)
	}
	T := len(seq) / m.K
	x := mat.NewDense(T, m.K, seq)
	y := mat.NewDense(T, m.P, nil)
	y.Mul(x, m.A.T()) // input terms x_t^T A^T for every t at once
	prev := mat.NewVecDense(m.P, nil)
	for t := 1; t < T; t++ {
		prev.MulVec(m.B, y.RowView(t-1))
		row := y.RawRowView(t)
		for j := range row {
			row[j] += prev.AtVec(j)
		}
	}
	return y, nil
}

// Decode runs the decoder C backwards from state y (length p) for T steps
// and returns the reconstructed sequence x_1 .. x_T, step-major (T*k
// values): x_t = A^T y_t, then y_{t-1} = B^T y_t (eq. 3).
func (m *Model) Decode(y []float64, T int) ([]float64, error) {
	if len(y) != m.P || T < 1 {
		return nil, errors.Errorf("autoenc: decode from a state of %d values for %d steps, want p = %d values and T >= 1", len(y), T, m.P)
	}
	out := make([]float64, T*m.K)
	state := mat.NewVecDense(m.P, append([]float64(nil), y...))
	next := mat.NewVecDense(m.P, nil)
	for t := T - 1; t >= 0; t-- {
		mat.NewVecDense(m.K, out[t*m.K:(t+1)*m.K]).MulVec(m.A.T(), state)
		next.MulVec(m.B.T(), state)
		state, next = next, state
	}
	return out, nil
}

// Reconstruct encodes seq and decodes it from its last state.
func (m *Model) Reconstruct(seq []float64) ([]float64, error) {
	y, err := m.Encode(seq)
	if err != nil {
		return nil, err
	}
	T, _ := y.Dims()
	return m.Decode(y.RawRowView(T-1), T)
}

// ReconstructionError is the sum over seqs of the squared error of
// Reconstruct, ||x - x_hat||^2 over every step and unit.
func (m *Model) ReconstructionError(seqs [][]float64) (float64, error) {
	sum := 0.0
	for q, s := range seqs {
		r, err := m.Reconstruct(s)
		if err != nil {
			return 0, errors.Errorf("autoenc: sequence %d: %v", q, err)
		}
		for i, x := range s {
			sum += (x - r[i]) * (x - r[i])
		}
	}
	return sum, nil
}

// ClosedForm builds Xi from seqs (width k, step-major), takes its exact
// SVD Xi = V Lambda U^T and returns the autoencoder with p hidden units of
// section 2: A = U_1^(p)T and B = Q^T with Q = Lambda V^T R^T V Lambda^{-1}
// (the solution of eq. 4). With p = rank(Xi) (see Rank) the decoder
// reconstructs every sequence exactly; with a smaller p this is the
// truncated closed form that Refine improves on. Xi has sum(T_q) rows
// and k * max(T_q) columns and is held densely: for big data use
// Approximate. p larger than rank(Xi) is an error.
func ClosedForm(seqs [][]float64, k, p int) (*Model, error) {
	d, err := newData(seqs, k)
	if err != nil {
		return nil, err
	}
	v, lambda, rank, err := exactSVD(d)
	if err != nil {
		return nil, err
	}
	if p < 1 || p > rank {
		return nil, errors.Errorf("autoenc: p = %d hidden units, want 1 <= p <= rank(Xi) = %d", p, rank)
	}
	return fromSVD(d, v.Slice(0, d.rows, 0, p).(*mat.Dense), lambda[:p])
}

// Rank is the numerical rank of Xi for seqs (width k): the number of
// singular values above max(rows, cols) * eps * the largest one.
func Rank(seqs [][]float64, k int) (int, error) {
	d, err := newData(seqs, k)
	if err != nil {
		return 0, err
	}
	_, _, r, err := exactSVD(d)
	return r, err
}

// exactSVD returns the left singular vectors V (rows x min(rows, cols)),
// the singular values and the numerical rank of Xi.
func exactSVD(d *data) (*mat.Dense, []float64, int, error) {
	xi := d.dense()
	var svd mat.SVD
	if !svd.Factorize(xi, mat.SVDThinU) {
		return nil, nil, 0, errors.Errorf("autoenc: SVD of Xi (%d x %d) did not converge", d.rows, d.k*d.maxLen)
	}
	s := svd.Values(nil)
	var v mat.Dense
	svd.UTo(&v) // gonum's U is the paper's V: Xi = V Lambda U^T
	return &v, s, numRank(s, max(d.rows, d.k*d.maxLen)), nil
}

// numRank counts the singular values above n * eps * s[0].
func numRank(s []float64, n int) int {
	if len(s) == 0 {
		return 0
	}
	tol := float64(n) * 0x1p-52 * s[0]
	r := 0
	for _, x := range s {
		if x > tol {
			r++
		}
	}
	return r
}

// fromSVD completes section 2's construction from the p leading left
// singular vectors V (rows x p) and singular values lambda of Xi:
// U_1 = Xi_1^T V Lambda^{-1} (the first block of U^(p) = Xi^T V Lambda^{-1}),
// A = U_1^T, Q = Lambda (V^T R^T V) Lambda^{-1}, B = Q^T.
func fromSVD(d *data, v *mat.Dense, lambda []float64) (*Model, error) {
	p := len(lambda)
	for j, l := range lambda {
		if !(l > 0) || math.IsInf(l, 0) {
			return nil, errors.Errorf("autoenc: singular value %d of Xi is %g: p = %d exceeds what the data allow", j+1, l, p)
		}
	}
	u1 := d.firstBlockT(v) // k x p
	a := mat.NewDense(p, d.k, nil)
	for i := range d.k {
		for j := range p {
			a.Set(j, i, u1.At(i, j)/lambda[j])
		}
	}
	var w mat.Dense
	w.Mul(v.T(), d.shiftT(v)) // V^T R^T V
	b := mat.NewDense(p, p, nil)
	for i := range p {
		for j := range p {
			b.Set(j, i, lambda[i]*w.At(i, j)/lambda[j]) // B = Q^T
		}
	}
	return &Model{K: d.k, P: p, A: a, B: b, Lambda: append([]float64(nil), lambda...)}, nil
}
