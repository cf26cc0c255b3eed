package autoenc

import (
	"math"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Approximate returns the autoencoder with p hidden units built, as in
// ClosedForm, from V and Lambda of Xi, but with V and Lambda computed by
// ApproxSVD (Algorithms 1-3 of section 3.1) instead of an exact SVD, so
// that Xi is never formed. This is what the paper uses for its
// experiments.
func Approximate(seqs [][]float64, k, p int) (*Model, error) {
	d, err := newData(seqs, k)
	if err != nil {
		return nil, err
	}
	v, lambda, err := approxSVD(d, p)
	if err != nil {
		return nil, err
	}
	return fromSVD(d, v, lambda)
}

// ApproxSVD approximates the p leading left singular vectors V (rows x p,
// one row per step of every sequence, in order) and singular values
// Lambda of Xi by Algorithm 1 of section 3.1 (SVFORBIGDATA): the k-wide
// column slices of Xi are taken in reverse order and each is appended to
// the current V Lambda, whose p-truncated SVD (Algorithm 2, KECO: through
// the kernel M M^T when M has no more rows than columns, else through the
// covariance M^T M; Algorithm 3, INDIRECTSVD: the SVD of the R of a QR
// factorisation) gives the next V Lambda. Xi is never formed: slice i has
// x_{t-i} in row (q, t) and zeros where t < i, so only those "active" rows
// are touched and the rows of V Lambda outside them stay zero. Peak memory
// is about 3 x rows x p values plus a slice. When p >= rank(Xi) nothing
// is dropped and the result equals the exact SVD up to rounding (and the
// signs of the columns). p larger than rank(Xi) is an error.
func ApproxSVD(seqs [][]float64, k, p int) (*mat.Dense, []float64, error) {
	d, err := newData(seqs, k)
	if err != nil {
		return nil, nil, err
	}
	return approxSVD(d, p)
}

// approxSVD is ApproxSVD on validated data.
func approxSVD(d *data, p int) (*mat.Dense, []float64, error) {
	if p < 1 || p > min(d.rows, d.k*d.maxLen) {
		return nil, nil, errors.Errorf("autoenc: p = %d hidden units, want 1 <= p <= min(rows, columns) of Xi = %d", p, min(d.rows, d.k*d.maxLen))
	}
	// Rows in order of decreasing t, so that the rows active in slice i
	// (t >= i) are a prefix: active[i] of them.
	type ref struct{ q, t int }
	order := make([]ref, 0, d.rows)
	active := make([]int, d.maxLen)
	for t := d.maxLen - 1; t >= 0; t-- {
		for q := range d.seqs {
			if d.steps(q) > t {
				order = append(order, ref{q, t})
			}
		}
		active[t] = len(order)
	}
	// The nonzero entries of every input vector: piano rolls have about 4
	// notes out of 88, so the slice products below work on these lists.
	nz := make([][][]entry, len(d.seqs))
	for q, s := range d.seqs {
		nz[q] = make([][]entry, d.steps(q))
		for t := range nz[q] {
			for j, v := range s[t*d.k : (t+1)*d.k] {
				if v != 0 {
					nz[q][t] = append(nz[q][t], entry{j, v})
				}
			}
		}
	}
	rowsNZ := make([][]entry, d.rows)
	// z holds V Lambda (rows in `order`); buf receives the next one, and
	// the two swap after each slice. Rows and columns beyond those in use
	// are never written before they come into use, so they stay zero.
	z, buf := mat.NewDense(d.rows, p, nil), mat.NewDense(d.rows, p, nil)
	var lambda []float64
	cols := 0 // columns of z in use
	for i := d.maxLen - 1; i >= 0; i-- {
		a := active[i]
		for r := range a {
			o := order[r]
			rowsNZ[r] = nz[o.q][o.t-i]
		}
		keep := min(p, d.k+cols, a)
		var (
			err     error
			swapped bool
		)
		lambda, swapped, err = keco(slice{k: d.k, rows: rowsNZ[:a]}, z.Slice(0, a, 0, p).(*mat.Dense),
			buf.Slice(0, a, 0, p).(*mat.Dense), lambda, cols, keep)
		if swapped {
			z, buf = buf, z
		}
		if err != nil {
			return nil, nil, errors.Errorf("autoenc: slice %d: %v", i, err)
		}
		cols = keep
	}
	if cols < p {
		return nil, nil, errors.Errorf("autoenc: p = %d exceeds rank(Xi) <= %d", p, cols)
	}
	// V = (V Lambda) Lambda^{-1}, back in the original row order.
	tol := float64(max(d.rows, d.k*d.maxLen)) * 0x1p-52 * lambda[0]
	if lambda[p-1] <= tol {
		return nil, nil, errors.Errorf("autoenc: singular value %d of Xi is %.3g (numerically 0): p = %d exceeds rank(Xi)", p, lambda[p-1], p)
	}
	v := mat.NewDense(d.rows, p, nil)
	for r, o := range order {
		src := z.RawRowView(r)
		dst := v.RawRowView(d.off[o.q] + o.t)
		for j, l := range lambda {
			dst[j] = src[j] / l
		}
	}
	return v, lambda, nil
}

// entry is a nonzero input value and its unit.
type entry struct {
	j int
	v float64
}

// slice is a k-wide column slice of Xi restricted to its active rows,
// each row given by its nonzero entries.
type slice struct {
	k    int
	rows [][]entry
}

// dense returns the slice as an a x k matrix.
func (s slice) dense() *mat.Dense {
	m := mat.NewDense(len(s.rows), s.k, nil)
	for r, row := range s.rows {
		for _, e := range row {
			m.Set(r, e.j, e.v)
		}
	}
	return m
}

// keco computes the first keep columns of V Lambda of M = [s, z[:, :cols]]
// (Algorithm 2), where z (a x p) holds in its first cols columns V Lambda
// of the slices so far, with column norms lambda. It writes them either
// into z (swapped false) or into the first keep columns of next (a x p,
// swapped true), and returns their singular values.
func keco(s slice, z, next *mat.Dense, lambda []float64, cols, keep int) ([]float64, bool, error) {
	a, k := len(s.rows), s.k
	c := k + cols
	zc := z.Slice(0, a, 0, max(cols, 1)).(*mat.Dense)
	if a <= c {
		// Kernel route: K = M M^T = S S^T + Z Z^T (a x a); its leading
		// eigenvectors are V and its eigenvalues Lambda^2.
		sd := s.dense()
		var kern mat.Dense
		kern.Mul(sd, sd.T())
		if cols > 0 {
			var zz mat.Dense
			zz.Mul(zc, zc.T())
			kern.Add(&kern, &zz)
		}
		vecs, sq, err := indirectSVD(&kern, keep)
		if err != nil {
			return nil, false, err
		}
		out := make([]float64, keep)
		z.Zero()
		for j := range keep {
			out[j] = math.Sqrt(max(sq[j], 0))
			for r := range a {
				z.Set(r, j, vecs.At(r, j)*out[j])
			}
		}
		return out, false, nil
	}
	// Covariance route: C = M^T M = [S^T S, S^T Z; Z^T S, Z^T Z] with
	// Z^T Z = Lambda^2 (the columns of V are orthonormal); the S products
	// run over the nonzero entries only.
	cov := mat.NewDense(c, c, nil)
	for r, row := range s.rows {
		zr := z.RawRowView(r)[:cols]
		for _, e := range row {
			cr := cov.RawRowView(e.j)
			for _, f := range row {
				cr[f.j] += e.v * f.v
			}
			floats.AddScaled(cr[k:c], e.v, zr)
		}
	}
	for j := range cols {
		for i := range k {
			cov.Set(k+j, i, cov.At(i, k+j))
		}
		cov.Set(k+j, k+j, lambda[j]*lambda[j])
	}
	u, sq, err := indirectSVD(cov, keep)
	if err != nil {
		return nil, false, err
	}
	// V Lambda = M U = S U_top + Z U_bottom (V = M U S^{-1/2}, Lambda = S^{1/2}).
	nk := next.Slice(0, a, 0, keep).(*mat.Dense)
	if cols > 0 {
		nk.Mul(zc, u.Slice(k, c, 0, keep))
	} else {
		nk.Zero()
	}
	for r, row := range s.rows {
		nr := nk.RawRowView(r)
		for _, e := range row {
			floats.AddScaled(nr, e.v, u.RawRowView(e.j))
		}
	}
	out := make([]float64, keep)
	for j := range keep {
		out[j] = math.Sqrt(max(sq[j], 0))
	}
	return out, true, nil
}

// indirectSVD is Algorithm 3 (INDIRECTSVD): the p-truncated SVD of m
// through a QR factorisation, m = Q R, R = V_r S U^T, V = Q V_r. It returns
// the first p left singular vectors and singular values. For the
// symmetric positive semi-definite kernel and covariance matrices of
// Algorithm 2 these are eigenvectors and eigenvalues.
func indirectSVD(m *mat.Dense, p int) (*mat.Dense, []float64, error) {
	var qr mat.QR
	qr.Factorize(m)
	var q, r mat.Dense
	qr.QTo(&q)
	qr.RTo(&r)
	var svd mat.SVD
	if !svd.Factorize(&r, mat.SVDThinU) {
		return nil, nil, errors.Errorf("SVD did not converge")
	}
	var vr mat.Dense
	svd.UTo(&vr)
	rows, _ := m.Dims()
	var v mat.Dense
	v.Mul(&q, &vr)
	return mat.DenseCopyOf(v.Slice(0, rows, 0, p)), svd.Values(nil)[:p], nil
}
