package spectral

import (
	"github.com/pkg/errors"

	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
)

// Hankel is the finite Hankel tensor H^(l) in R^{d x ... x d x p} of
// order l+1 (Section 4.1): H[i_1..i_l, :] = f(e_{i_1}, ..., e_{i_l}).
// Data is row-major, so Data is also the d^l x p matricisation
// H<<l,1>> and, for any m <= l, the d^m x (d^(l-m) p) matricisation
// H<<m, l-m+1>>.
type Hankel struct {
	// Len is l; In is d; Out is p.
	Len, In, Out int
	// Data holds d^l * p entries.
	Data []float64
}

// NewHankel returns a zero Hankel tensor; it fails if d^l p overflows or
// exceeds maxDense entries.
func NewHankel(l, d, p int) (Hankel, error) {
	if l < 1 || d < 1 || p < 1 {
		return Hankel{}, errors.Errorf("spectral: Hankel tensor with l = %d, d = %d, p = %d, want all >= 1", l, d, p)
	}
	rows, ok := powInt(d, l)
	if !ok || rows > maxDense/p {
		return Hankel{}, errors.Errorf("spectral: dense Hankel tensor of %d^%d x %d entries is too large (limit %d)", d, l, p, maxDense)
	}
	return Hankel{Len: l, In: d, Out: p, Data: make([]float64, rows*p)}, nil
}

// maxDense caps the entries of a dense Hankel tensor or design matrix
// row (2^26 float64s, 512 MiB); bigger problems need the tensor-train path.
const maxDense = 1 << 26

// powInt returns d^l and whether it fits in maxDense.
func powInt(d, l int) (int, bool) {
	r := 1
	for range l {
		if r > maxDense/d {
			return 0, false
		}
		r *= d
	}
	return r, true
}

// Rows is d^l.
func (h Hankel) Rows() int { return len(h.Data) / h.Out }

// Matrix returns the d^m x (d^(l-m) p) matricisation H<<m, l-m+1>> as a
// view on Data (0 <= m <= l).
func (h Hankel) Matrix(m int) *mat.Dense {
	r, _ := powInt(h.In, m)
	return mat.NewDense(r, len(h.Data)/r, h.Data)
}

// Balanced returns ceil(l/2), the row modes of the matricisation that
// nuclear-norm minimisation and IHT work on (Algorithm 1, line 6).
func (h Hankel) Balanced() int { return (h.Len + 1) / 2 }

// ExactHankel returns H^(l) of the model by evaluating it on every
// sequence of l one-hot inputs (the definition, Section 4.1).
func ExactHankel(m RNN, l int) (Hankel, error) {
	if err := m.Validate(); err != nil {
		return Hankel{}, err
	}
	h, err := NewHankel(l, m.In, m.Out)
	if err != nil {
		return Hankel{}, err
	}
	w := m.WFA()
	word := make([]int, l)
	for r := range h.Rows() {
		for t, q := l-1, r; t >= 0; t-- {
			word[t] = q % m.In
			q /= m.In
		}
		y, err := w.Eval(word)
		if err != nil {
			return Hankel{}, err
		}
		copy(h.Data[r*m.Out:(r+1)*m.Out], y)
	}
	return h, nil
}

// Design returns the N x d^l Kronecker design matrix of s: row i is
// x_1 (x) ... (x) x_l of example i (Section 4.2), so that in the
// noiseless case Y = X H<<l,1>>. It fails if the matrix would hold more
// than maxDense entries.
func Design(s datasets.TwoRNNData) (*mat.Dense, error) {
	if err := s.Validate(); err != nil {
		return nil, errors.Wrap(err, "spectral")
	}
	cols, ok := powInt(s.In, s.Len)
	if !ok || cols > maxDense/s.N() {
		return nil, errors.Errorf("spectral: design matrix of %d x %d^%d entries (examples x input size^length) is too large (limit %d)",
			s.N(), s.In, s.Len, maxDense)
	}
	x := mat.NewDense(s.N(), cols, nil)
	for i := range s.N() {
		kronInto(x.RawRowView(i), s.Seq(i), s.In)
	}
	return x, nil
}

// kronInto writes x_1 (x) ... (x) x_l into dst (d^l values), where seq
// holds the l steps of d values.
func kronInto(dst, seq []float64, d int) {
	dst[0] = 1
	size := 1
	for t := 0; t < len(seq)/d; t++ {
		x := seq[t*d : (t+1)*d]
		// Expand in place from the back so no entry is overwritten
		// before it is read.
		for a := size - 1; a >= 0; a-- {
			v := dst[a]
			for c := d - 1; c >= 0; c-- {
				dst[a*d+c] = v * x[c]
			}
		}
		size *= d
	}
}

// targets returns Y as an N x p matrix view on s.Y.
func targets(s datasets.TwoRNNData) *mat.Dense { return mat.NewDense(s.N(), s.Out, s.Y) }

// LeastSquares recovers H^(l) from the examples of s by least squares
// (Algorithm 1, line 4): argmin ||X H<<l,1>> - Y||_F. With N >= d^l the
// solution is unique with probability one (Theorem 4) and is computed by
// QR; with fewer examples the minimum-norm solution is returned (SVD).
func LeastSquares(s datasets.TwoRNNData) (Hankel, error) {
	x, err := Design(s)
	if err != nil {
		return Hankel{}, err
	}
	h, err := NewHankel(s.Len, s.In, s.Out)
	if err != nil {
		return Hankel{}, err
	}
	sol := mat.NewDense(h.Rows(), s.Out, h.Data)
	N, D := x.Dims()
	if N >= D {
		var qr mat.QR
		qr.Factorize(x)
		if err := qr.SolveTo(sol, false, targets(s)); err != nil {
			return Hankel{}, errors.Errorf("spectral: least squares on length %d: %v (the design matrix is rank deficient)", s.Len, err)
		}
		return h, nil
	}
	var svd mat.SVD
	if !svd.Factorize(x, mat.SVDThin) {
		return Hankel{}, errors.Errorf("spectral: least squares on length %d: SVD failed", s.Len)
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	sv := svd.Values(nil)
	// Minimum-norm solution V diag(1/s) U^T Y over the singular values
	// above the usual LAPACK cutoff max(N, D) eps s_max.
	cut := float64(max(N, D)) * eps * sv[0]
	uty := mat.NewDense(len(sv), s.Out, nil)
	uty.Mul(u.T(), targets(s))
	for k, s := range sv {
		f := 0.0
		if s > cut {
			f = 1 / s
		}
		row := uty.RawRowView(k)
		for o := range row {
			row[o] *= f
		}
	}
	sol.Mul(&v, uty)
	return h, nil
}

// eps is the float64 machine epsilon.
const eps = 0x1p-52

// checkFinite reports the first non-finite entry of v.
func checkFinite(what string, v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.Errorf("spectral: %s entry %d is %g", what, i, x)
		}
	}
	return nil
}
