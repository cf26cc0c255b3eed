package spectral

import (
	"github.com/pkg/errors"

	"math"

	"gonum.org/v1/gonum/mat"
)

// TT is a tensor train [[G_1, ..., G_K]] (Oseledets 2011; Section 2 of the
// 2-RNN paper): T[i_1..i_K] = G_1[:, i_1, :] G_2[:, i_2, :] ... G_K[:, i_K, :].
// Core k has shape Ranks[k] x Dims[k] x Ranks[k+1], row-major, with
// Ranks[0] = Ranks[K] = 1.
type TT struct {
	// Dims holds d_1..d_K.
	Dims []int
	// Ranks holds r_0..r_K (K+1 values, r_0 = r_K = 1).
	Ranks []int
	// Cores holds the K cores.
	Cores [][]float64
}

// core returns core k as the (r_k d_k) x r_{k+1} matrix (a view).
func (t TT) core(k int) *mat.Dense {
	return mat.NewDense(t.Ranks[k]*t.Dims[k], t.Ranks[k+1], t.Cores[k])
}

// TTSVD compresses the dense tensor data (row-major, shape dims) into a
// tensor train by sequential truncated SVDs (Oseledets 2011, Algorithm 1).
// Each rank is at most maxRank (0 means no cap) and each truncation
// drops the smallest singular values whose squares sum to at most
// (tol ||T||_F)^2 / (K-1), so the result is within tol ||T||_F of the
// input when no rank cap binds. tol = 0 drops only exact zeros.
func TTSVD(data []float64, dims []int, maxRank int, tol float64) (TT, error) {
	size := 1
	for _, d := range dims {
		if d < 1 {
			return TT{}, errors.Errorf("spectral: TT-SVD of a tensor with dimensions %v, want all >= 1", dims)
		}
		size *= d
	}
	if len(dims) == 0 || len(data) != size {
		return TT{}, errors.Errorf("spectral: TT-SVD of %d values with dimensions %v", len(data), dims)
	}
	if maxRank < 0 || !(tol >= 0) {
		return TT{}, errors.Errorf("spectral: TT-SVD with rank cap %d and tolerance %g, want both >= 0", maxRank, tol)
	}
	if err := checkFinite("TT-SVD input", data); err != nil {
		return TT{}, err
	}
	K := len(dims)
	t := TT{Dims: append([]int(nil), dims...), Ranks: make([]int, K+1), Cores: make([][]float64, K)}
	t.Ranks[0], t.Ranks[K] = 1, 1
	delta := 0.0
	if K > 1 {
		delta = tol * mat.Norm(mat.NewVecDense(len(data), data), 2) / math.Sqrt(float64(K-1))
	}
	c := mat.NewDense(dims[0], size/dims[0], append([]float64(nil), data...))
	for k := 0; k < K-1; k++ {
		u, s, vt, r, err := truncSVD(c, maxRank, delta)
		if err != nil {
			return TT{}, err
		}
		t.Ranks[k+1] = r
		t.Cores[k] = denseData(u)
		// The remainder diag(s) V^T, reshaped to (r d_{k+1}) x rest.
		scaleRows(vt, s, r)
		rest := denseData(vt)
		c = mat.NewDense(r*dims[k+1], len(rest)/(r*dims[k+1]), rest)
	}
	t.Cores[K-1] = denseData(c)
	return t, nil
}

// truncSVD returns the rank-r truncated SVD U_r, s_r, V_r^T of a with r
// the smallest rank whose discarded tail has Frobenius norm <= delta,
// capped by maxRank (0: no cap), and at least 1.
func truncSVD(a *mat.Dense, maxRank int, delta float64) (*mat.Dense, []float64, *mat.Dense, int, error) {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return nil, nil, nil, 0, errors.New("spectral: SVD failed")
	}
	s := svd.Values(nil)
	r := len(s)
	tail := 0.0
	for r > 1 {
		if next := tail + s[r-1]*s[r-1]; next <= delta*delta {
			tail = next
			r--
			continue
		}
		break
	}
	if maxRank > 0 && r > maxRank {
		r = maxRank
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	m, n := a.Dims()
	ur := mat.DenseCopyOf(u.Slice(0, m, 0, r))
	vt := mat.DenseCopyOf(v.Slice(0, n, 0, r).T())
	return ur, s[:r], vt, r, nil
}

// denseData returns the row-major data of a compact matrix.
func denseData(a *mat.Dense) []float64 {
	raw := a.RawMatrix()
	if raw.Stride == raw.Cols {
		return raw.Data[:raw.Rows*raw.Cols]
	}
	return mat.DenseCopyOf(a).RawMatrix().Data
}

// scaleRows multiplies row i of a by s[i], i < r: diag(s_r) V_r^T in place.
func scaleRows(a *mat.Dense, s []float64, r int) {
	for i := range r {
		row := a.RawRowView(i)
		for j := range row {
			row[j] *= s[i]
		}
	}
}

// carryRight splits core k, as (r_k d_k) x r_{k+1}, by a truncated SVD
// U S V^T (rank at most maxRank, 0: no cap, discarded tail at most delta),
// keeps the left-orthonormal U as core k and carries S V^T into core k+1.
func (t *TT) carryRight(k, maxRank int, delta float64) error {
	u, s, vt, r, err := truncSVD(t.core(k), maxRank, delta)
	if err != nil {
		return err
	}
	scaleRows(vt, s, r)
	next := mat.NewDense(r, t.Dims[k+1]*t.Ranks[k+2], nil)
	next.Mul(vt, mat.NewDense(t.Ranks[k+1], t.Dims[k+1]*t.Ranks[k+2], t.Cores[k+1]))
	t.Cores[k] = denseData(u)
	t.Cores[k+1] = next.RawMatrix().Data
	t.Ranks[k+1] = r
	return nil
}

// carryLeft splits core k (k >= 1), as r_k x (d_k r_{k+1}), by an SVD
// U S V^T with V^T row-orthonormal, keeps V^T as core k and carries U S
// into core k-1. Exact-zero directions are dropped.
func (t *TT) carryLeft(k int) error {
	ck := mat.NewDense(t.Ranks[k], t.Dims[k]*t.Ranks[k+1], t.Cores[k])
	u, s, vt, r, err := truncSVD(ck, 0, 0)
	if err != nil {
		return err
	}
	for c := range r {
		for i := range t.Ranks[k] {
			u.Set(i, c, u.At(i, c)*s[c])
		}
	}
	prev := mat.NewDense(t.Ranks[k-1]*t.Dims[k-1], r, nil)
	prev.Mul(t.core(k-1), u)
	t.Cores[k] = denseData(vt)
	t.Cores[k-1] = prev.RawMatrix().Data
	t.Ranks[k] = r
	return nil
}

// Dense returns the full tensor, row-major.
func (t TT) Dense() []float64 {
	acc := mat.NewDense(t.Dims[0], t.Ranks[1], append([]float64(nil), t.Cores[0]...))
	for k := 1; k < len(t.Dims); k++ {
		rows, _ := acc.Dims()
		next := mat.NewDense(rows, t.Dims[k]*t.Ranks[k+1], nil)
		next.Mul(acc, mat.NewDense(t.Ranks[k], t.Dims[k]*t.Ranks[k+1], t.Cores[k]))
		acc = mat.NewDense(rows*t.Dims[k], t.Ranks[k+1], next.RawMatrix().Data)
	}
	return acc.RawMatrix().Data
}

// Round re-compresses the train to ranks at most maxRank (0: no cap) with
// relative tolerance tol, as TTSVD does, without forming the dense tensor
// (Oseledets 2011, Algorithm 2): right-to-left orthogonalisation,
// then left-to-right truncated SVDs. The receiver is not modified.
func (t TT) Round(maxRank int, tol float64) (TT, error) {
	K := len(t.Dims)
	if maxRank < 0 || !(tol >= 0) {
		return TT{}, errors.Errorf("spectral: TT rounding with rank cap %d and tolerance %g, want both >= 0", maxRank, tol)
	}
	// Right-to-left orthogonalisation: SVDs rather than QRs so that wide
	// and tall cores are handled alike.
	out, err := t.orthRight(1)
	if err != nil {
		return TT{}, err
	}
	delta := 0.0
	if K > 1 {
		delta = tol * mat.Norm(mat.NewVecDense(len(out.Cores[0]), out.Cores[0]), 2) / math.Sqrt(float64(K-1))
	}
	for k := 0; k < K-1; k++ {
		if err := out.carryRight(k, maxRank, delta); err != nil {
			return TT{}, err
		}
	}
	return out, nil
}

// ContractKron contracts the first l modes of the train with the inputs of
// N sequences, the rank-one measurements x_1 (x) ... (x) x_l of Section
// 4.2, without forming the Kronecker products: seqs holds N*l*d values
// (example-major, step-major), every one of the first l dimensions must
// be d, and the train must have exactly l+1 modes. It returns the N x
// Dims[l] matrix of <T, x_1 (x) ... (x) x_l (x) e_o>. Cost
// O(N l d r^2 + N r p).
func (t TT) ContractKron(seqs []float64, l, d int) (*mat.Dense, error) {
	if len(t.Dims) != l+1 {
		return nil, errors.Errorf("spectral: contracting a %d-mode tensor train with sequences of length %d (want %d modes)", len(t.Dims), l, l+1)
	}
	for k := range l {
		if t.Dims[k] != d {
			return nil, errors.Errorf("spectral: tensor-train mode %d has dimension %d, inputs have d = %d", k, t.Dims[k], d)
		}
	}
	if d < 1 || len(seqs)%(l*d) != 0 {
		return nil, errors.Errorf("spectral: %d input values are not N sequences of %d x %d", len(seqs), l, d)
	}
	N := len(seqs) / (l * d)
	v := mat.NewDense(N, 1, nil)
	for i := range N {
		v.Set(i, 0, 1)
	}
	for k := range l {
		rk, rn := t.Ranks[k], t.Ranks[k+1]
		// z[b, (c, j)] = sum_i v[b, i] G_k[i, c, j]; then contract c with x.
		z := mat.NewDense(N, d*rn, nil)
		z.Mul(v, mat.NewDense(rk, d*rn, t.Cores[k]))
		next := mat.NewDense(N, rn, nil)
		for b := range N {
			x := seqs[(b*l+k)*d : (b*l+k+1)*d]
			zr, nr := z.RawRowView(b), next.RawRowView(b)
			for c, xc := range x {
				for j, w := range zr[c*rn : (c+1)*rn] {
					nr[j] += xc * w
				}
			}
		}
		v = next
	}
	out := mat.NewDense(N, t.Dims[l], nil)
	out.Mul(v, mat.NewDense(t.Ranks[l], t.Dims[l], t.Cores[l]))
	return out, nil
}

// Add returns the train of t + u (same dimensions): ranks add up, the
// first and last cores are concatenated and the inner cores are
// block-diagonal (Oseledets 2011, Section 4.1). Round brings the ranks
// back down.
func (t TT) Add(u TT) (TT, error) {
	a, b := t, u
	if len(a.Dims) != len(b.Dims) {
		return TT{}, errors.Errorf("spectral: adding tensor trains with %d and %d modes", len(a.Dims), len(b.Dims))
	}
	for k := range a.Dims {
		if a.Dims[k] != b.Dims[k] {
			return TT{}, errors.Errorf("spectral: adding tensor trains with dimensions %v and %v", a.Dims, b.Dims)
		}
	}
	K := len(a.Dims)
	s := TT{Dims: append([]int(nil), a.Dims...), Ranks: make([]int, K+1), Cores: make([][]float64, K)}
	for k := range s.Ranks {
		s.Ranks[k] = a.Ranks[k] + b.Ranks[k]
	}
	s.Ranks[0], s.Ranks[K] = 1, 1
	for k := range K {
		ra, rb := a.Ranks[k], b.Ranks[k]
		oa, ob := 0, ra
		if k == 0 {
			ob = 0
		}
		ca, cb := a.Ranks[k+1], b.Ranks[k+1]
		pa, pb := 0, ca
		if k == K-1 {
			pb = 0
		}
		core := make([]float64, s.Ranks[k]*a.Dims[k]*s.Ranks[k+1])
		for c := range a.Dims[k] {
			for i := range ra {
				for j := range ca {
					core[((oa+i)*a.Dims[k]+c)*s.Ranks[k+1]+pa+j] += a.Cores[k][(i*a.Dims[k]+c)*ca+j]
				}
			}
			for i := range rb {
				for j := range cb {
					core[((ob+i)*a.Dims[k]+c)*s.Ranks[k+1]+pb+j] += b.Cores[k][(i*a.Dims[k]+c)*cb+j]
				}
			}
		}
		s.Cores[k] = core
	}
	return s, nil
}
