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
	v, lambda, err := approxSVD(d, p, true)
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
// covariance M^T M; Algorithm 3: the truncated SVD of that symmetric
// positive semi-definite matrix, here its eigendecomposition) gives the
// next V Lambda. Xi is never formed: slice i has x_{t-i} in row (q, t)
// and zeros where t < i, so only those "active" rows are touched and the
// rows of V Lambda outside them stay zero. Forming V Lambda = M U at
// every slice would cost rows x p^2 each time; the rotations U are
// instead accumulated in a small matrix and V Lambda is formed only when
// that becomes the cheaper course (see sweep), which changes nothing but
// rounding. Peak memory is about 3 x rows x p values plus a slice. When
// p >= rank(Xi) nothing is dropped and the result equals the exact SVD up
// to rounding (and the signs of the columns). p larger than rank(Xi) is
// an error.
func ApproxSVD(seqs [][]float64, k, p int) (*mat.Dense, []float64, error) {
	d, err := newData(seqs, k)
	if err != nil {
		return nil, nil, err
	}
	return approxSVD(d, p, true)
}

// approxSVD is ApproxSVD on validated data. With deferred false, V Lambda
// is formed after every slice, as Algorithm 1 is written.
func approxSVD(d *data, p int, deferred bool) (*mat.Dense, []float64, error) {
	if p < 1 || p > min(d.rows, d.k*d.maxLen) {
		return nil, nil, errors.Errorf("autoenc: p = %d hidden units, want 1 <= p <= min(rows, columns) of Xi = %d", p, min(d.rows, d.k*d.maxLen))
	}
	sw := newSweep(d, p, deferred)
	for i := d.maxLen - 1; i >= 0; i-- {
		if err := sw.step(i); err != nil {
			return nil, nil, errors.Errorf("autoenc: slice %d: %v", i, err)
		}
	}
	sw.flush()
	lambda := sw.lambda
	if sw.cols < p {
		return nil, nil, errors.Errorf("autoenc: p = %d exceeds rank(Xi) <= %d", p, sw.cols)
	}
	// V = (V Lambda) Lambda^{-1}, back in the original row order.
	tol := float64(max(d.rows, d.k*d.maxLen)) * 0x1p-52 * lambda[0]
	if lambda[p-1] <= tol {
		return nil, nil, errors.Errorf("autoenc: singular value %d of Xi is %.3g (numerically 0): p = %d exceeds rank(Xi)", p, lambda[p-1], p)
	}
	v := mat.NewDense(d.rows, p, nil)
	for r, o := range sw.order {
		src := sw.base.RawRowView(r)
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

// ref is a row of Xi: step t of sequence q.
type ref struct{ q, t int }

// slice is the k-wide column slice i of Xi restricted to its a active
// rows (the first a rows of sweep.order) and to the units nonzero in
// them: the other columns are zero, so they only add zero rows and
// columns to the covariance of Algorithm 2 and zero rows to its
// eigenvectors of nonzero eigenvalue.
type slice struct {
	i, a  int
	unit  []int // unit j's column among the units present, or -1
	units int   // the number of units present
	nnz   int   // nonzero entries
}

// sweep is the state of Algorithm 1 between slices. Z = V Lambda of the
// slices taken so far (rows in order, nonzero only in the first a) is
// held as the product
//
//	Z = [B, S_1, ..., S_m] G,
//
// where B (the first bcols columns of base) is the V Lambda last formed
// explicitly, S_1 .. S_m (pend) are the slices taken since, restricted to
// their units, and G ((bcols + their units) x cols) accumulates the
// eigenvectors U of Algorithm 2: V Lambda = M U = [S, Z] U gives
// G <- [G U_bottom; U_top]. G is the identity (g nil) when m = 0.
// Forming Z costs a x bcols x cols; updating G costs rows(G) x cols x
// cols, far less while few slices are pending, so Z is formed (flush)
// only once the work spent on G since the last flush reaches the cost of
// forming it: when that work grows linearly with the number of pending
// slices, this is the spacing of flushes with the least work per slice.
// On JSB at p = 250 it forms Z at about one slice in ten.
type sweep struct {
	d        *data
	p        int
	order    []ref       // rows of Xi by decreasing t
	active   []int       // active[i]: rows active in slice i, a prefix of order
	nz       [][][]entry // nz[q][t]: the nonzero entries of x_t of sequence q
	base     *mat.Dense  // rows x p: B, then Z at the end
	buf      *mat.Dense  // rows x p: receives the next B
	a        int         // rows of Z that may be nonzero
	lambda   []float64   // singular values of Z, largest first
	cols     int         // columns of Z
	bcols    int         // columns of B
	g        *mat.Dense  // G, nil for the identity
	pend     []slice     // S_1 .. S_m
	work     float64     // flops spent on G since the last flush
	deferred bool        // whether to defer forming Z at all
}

// newSweep prepares Algorithm 1 on d for p columns.
func newSweep(d *data, p int, deferred bool) *sweep {
	sw := &sweep{d: d, p: p, deferred: deferred, active: make([]int, d.maxLen)}
	// Rows in order of decreasing t, so that the rows active in slice i
	// (t >= i) are a prefix: active[i] of them.
	sw.order = make([]ref, 0, d.rows)
	for t := d.maxLen - 1; t >= 0; t-- {
		for q := range d.seqs {
			if d.steps(q) > t {
				sw.order = append(sw.order, ref{q, t})
			}
		}
		sw.active[t] = len(sw.order)
	}
	// Piano rolls have about 4 notes out of 88, so the slice products
	// work on the lists of nonzero entries.
	sw.nz = make([][][]entry, len(d.seqs))
	for q, s := range d.seqs {
		sw.nz[q] = make([][]entry, d.steps(q))
		for t := range sw.nz[q] {
			for j, v := range s[t*d.k : (t+1)*d.k] {
				if v != 0 {
					sw.nz[q][t] = append(sw.nz[q][t], entry{j, v})
				}
			}
		}
	}
	// Rows and columns of base and buf beyond those in use are never
	// written before they come into use, so they stay zero.
	sw.base, sw.buf = mat.NewDense(d.rows, p, nil), mat.NewDense(d.rows, p, nil)
	return sw
}

// row returns the nonzero entries of active row r of slice s.
func (sw *sweep) row(s slice, r int) []entry {
	o := sw.order[r]
	return sw.nz[o.q][o.t-s.i]
}

// slice returns slice i with its units.
func (sw *sweep) slice(i int) slice {
	s := slice{i: i, a: sw.active[i], unit: make([]int, sw.d.k)}
	for j := range s.unit {
		s.unit[j] = -1
	}
	for r := range s.a {
		for _, e := range sw.row(s, r) {
			if s.unit[e.j] < 0 {
				s.unit[e.j] = s.units
				s.units++
			}
			s.nnz++
		}
	}
	return s
}

// step takes slice i (Algorithm 1's loop body): M = [S_i, Z] is replaced
// by its first min(p, k + cols, a) left singular vectors times singular
// values through Algorithm 2.
func (sw *sweep) step(i int) error {
	s := sw.slice(i)
	keep := min(sw.p, sw.d.k+sw.cols, s.a)
	// Algorithm 2's choice; M = 0 with no columns of Z yet also takes the
	// kernel route, where the covariance would be empty.
	if s.a <= sw.d.k+sw.cols || s.units+sw.cols == 0 {
		sw.flush()
		return sw.kernel(s, keep)
	}
	return sw.covariance(s, keep)
}

// kernel is the kernel route of Algorithm 2 (KECO), for a <= k + cols:
// K = M M^T = S S^T + Z Z^T (a x a), whose leading eigenvectors are V and
// eigenvalues Lambda^2. Z must have been formed; V Lambda replaces it.
func (sw *sweep) kernel(s slice, keep int) error {
	sd := mat.NewDense(s.a, sw.d.k, nil)
	for r := range s.a {
		for _, e := range sw.row(s, r) {
			sd.Set(r, e.j, e.v)
		}
	}
	var kern mat.SymDense
	kern.SymOuterK(1, sd)
	if sw.cols > 0 {
		kern.SymRankK(&kern, 1, sw.base.Slice(0, s.a, 0, sw.cols))
	}
	vecs, sq, err := truncatedEig(&kern, keep)
	if err != nil {
		return err
	}
	z := sw.base.Slice(0, s.a, 0, sw.p).(*mat.Dense)
	z.Zero()
	lambda := make([]float64, keep)
	for j := range sq {
		lambda[j] = math.Sqrt(max(sq[j], 0))
		for r := range s.a {
			z.Set(r, j, vecs.At(r, j)*lambda[j])
		}
	}
	sw.lambda, sw.cols, sw.bcols, sw.a = lambda, keep, keep, s.a
	return nil
}

// covariance is the covariance route of Algorithm 2 (KECO), for
// a > k + cols: the leading eigenvectors U of C = M^T M (see cov) give the
// new V Lambda = M U, deferred as G <- [G U_bottom; U_top] (see sweep).
func (sw *sweep) covariance(s slice, keep int) error {
	c, w := sw.cov(s)
	vecs, sq, err := truncatedEig(c, keep)
	if err != nil {
		return err
	}
	// A zero slice (no units) adds no rows to G.
	u, n, m := s.units, c.SymmetricDim(), len(sq)
	g := mat.NewDense(w+u, keep, nil)
	if sw.cols > 0 {
		gt, ub := g.Slice(0, w, 0, m).(*mat.Dense), vecs.Slice(u, n, 0, m)
		if sw.g == nil {
			gt.Copy(ub)
		} else {
			gt.Mul(sw.g, ub)
			sw.work += 2 * float64(w*sw.cols*m)
		}
	}
	if u > 0 {
		g.Slice(w, w+u, 0, m).(*mat.Dense).Copy(vecs.Slice(0, u, 0, m))
	}
	lambda := make([]float64, keep)
	for j := range sq {
		lambda[j] = math.Sqrt(max(sq[j], 0))
	}
	sw.g, sw.pend, sw.lambda, sw.cols, sw.a = g, append(sw.pend, s), lambda, keep, s.a
	// Forming Z: the product with B plus one row of G per nonzero of S_j.
	nnz := 0
	for _, pj := range sw.pend {
		nnz += pj.nnz
	}
	if !sw.deferred || sw.work >= 2*float64(sw.cols)*float64(sw.a*sw.bcols+nnz) {
		sw.flush()
	}
	return nil
}

// cov returns Algorithm 2's covariance C = M^T M of M = [S, Z] over the
// units present in S, (units + cols) x (units + cols):
// [S^T S, S^T Z; Z^T S, Z^T Z] with Z^T Z = Lambda^2 (the columns of V
// are orthonormal) and S^T Z = (S^T [B, S_1, ..., S_m]) G, all S products
// running over the nonzero entries only. It also returns the number of
// rows of G, and adds the deferred part of its work to sw.work.
func (sw *sweep) cov(s slice) (*mat.SymDense, int) {
	u, n := s.units, s.units+sw.cols
	w := sw.bcols
	for _, pj := range sw.pend {
		w += pj.units
	}
	c := mat.NewSymDense(n, nil)
	cd := c.RawSymmetric().Data // n x n, upper triangle used
	var t *mat.Dense            // S^T [B, S_1, ..., S_m], u x w
	if u > 0 && sw.cols > 0 {
		t = mat.NewDense(u, w, nil)
	}
	pairs := 0 // products of S with S_1 .. S_m, deferred work too
	for r := range s.a {
		row := sw.row(s, r)
		for _, e := range row {
			ce := s.unit[e.j]
			for _, f := range row {
				if cf := s.unit[f.j]; ce <= cf {
					cd[ce*n+cf] += e.v * f.v
				}
			}
			if t == nil {
				continue
			}
			tr := t.RawRowView(ce)
			floats.AddScaled(tr[:sw.bcols], e.v, sw.base.RawRowView(r)[:sw.bcols])
			off := sw.bcols
			for _, pj := range sw.pend {
				if r < pj.a {
					for _, f := range sw.row(pj, r) {
						tr[off+pj.unit[f.j]] += e.v * f.v
					}
					pairs += len(sw.row(pj, r))
				}
				off += pj.units
			}
		}
	}
	sw.work += 2 * float64(pairs)
	if t != nil {
		stz := mat.NewDense(n, n, cd).Slice(0, u, u, n).(*mat.Dense)
		if sw.g == nil {
			stz.Copy(t)
		} else {
			stz.Mul(t, sw.g)
			sw.work += 2 * float64(u*w*sw.cols)
		}
	}
	for j, l := range sw.lambda {
		cd[(u+j)*n+u+j] = l * l
	}
	return c, w
}

// flush forms Z = [B, S_1, ..., S_m] G (see sweep) and makes it the new B.
func (sw *sweep) flush() {
	if sw.g == nil {
		return
	}
	z := sw.buf.Slice(0, sw.a, 0, sw.cols).(*mat.Dense)
	if sw.bcols > 0 {
		z.Mul(sw.base.Slice(0, sw.a, 0, sw.bcols), sw.g.Slice(0, sw.bcols, 0, sw.cols))
	} else {
		z.Zero()
	}
	off := sw.bcols
	for _, pj := range sw.pend {
		for r := range pj.a {
			zr := z.RawRowView(r)
			for _, f := range sw.row(pj, r) {
				floats.AddScaled(zr, f.v, sw.g.RawRowView(off+pj.unit[f.j]))
			}
		}
		off += pj.units
	}
	sw.base, sw.buf = sw.buf, sw.base
	sw.bcols, sw.g, sw.pend, sw.work = sw.cols, nil, sw.pend[:0], 0
}

// truncatedEig is Algorithm 3's p-truncated SVD for the symmetric
// positive semi-definite kernel and covariance matrices of Algorithm 2.
// Their left singular vectors are eigenvectors and their singular values
// eigenvalues, so one symmetric eigendecomposition (symEig) stands in for
// INDIRECTSVD's QR factorisation followed by a general SVD of R, at a
// fraction of the cost. It returns the min(p, n) leading eigenvectors
// (n x min(p, n)) and eigenvalues, largest first.
func truncatedEig(m *mat.SymDense, p int) (*mat.Dense, []float64, error) {
	vals, rows, ok := symEig(m)
	if !ok {
		return nil, nil, errors.Errorf("eigendecomposition did not converge")
	}
	n := m.SymmetricDim()
	p = min(p, n)
	vecs := mat.NewDense(n, p, nil)
	for j := range p {
		for r, x := range rows[j*n : (j+1)*n] {
			vecs.Set(r, j, x)
		}
	}
	return vecs, vals[:p], nil
}
