package spectral

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/internal/vec"
)

// Sparse is a sparse matrix in compressed sparse row form: the entries of
// row i are Val[RowPtr[i]:RowPtr[i+1]] in the columns Col[...], in
// increasing column order.
type Sparse struct {
	// Rows and Cols are the dimensions.
	Rows, Cols int
	// RowPtr has Rows+1 offsets into Col and Val.
	RowPtr []int
	// Col and Val hold the column index and value of each stored entry.
	Col []int
	Val []float64
}

// rowBuilder assembles a CSR matrix whose entries come row by row, each
// row in column order, into arrays of the capacity given (the number of
// entries when it is known: then nothing is copied; more entries grow
// them).
type rowBuilder struct{ m *Sparse }

func newRowBuilder(rows, cols, capacity int) *rowBuilder {
	return &rowBuilder{m: &Sparse{Rows: rows, Cols: cols, RowPtr: make([]int, rows+1),
		Col: make([]int, 0, capacity), Val: make([]float64, 0, capacity)}}
}

// add appends an entry to the current row.
func (b *rowBuilder) add(c int, v float64) {
	b.m.Col, b.m.Val = append(b.m.Col, c), append(b.m.Val, v)
}

// endRow closes row r: the entries added since the previous row are its.
func (b *rowBuilder) endRow(r int) { b.m.RowPtr[r+1] = len(b.m.Col) }

// build returns the matrix.
func (b *rowBuilder) build() *Sparse { return b.m }

// leadingBlock returns a copy of the block of m's first rows rows and cols
// columns (each row's entries are sorted by column).
func (m *Sparse) leadingBlock(rows, cols int) *Sparse {
	b := &Sparse{Rows: rows, Cols: cols, RowPtr: make([]int, rows+1)}
	ends := make([]int, rows)
	for i := range rows {
		lo, hi := m.RowPtr[i], m.RowPtr[i+1]
		k, _ := slices.BinarySearch(m.Col[lo:hi], cols)
		ends[i] = lo + k
		b.RowPtr[i+1] = b.RowPtr[i] + k
	}
	b.Col, b.Val = make([]int, b.RowPtr[rows]), make([]float64, b.RowPtr[rows])
	for i, end := range ends {
		copy(b.Col[b.RowPtr[i]:], m.Col[m.RowPtr[i]:end])
		copy(b.Val[b.RowPtr[i]:], m.Val[m.RowPtr[i]:end])
	}
	return b
}

// NNZ is the number of stored entries.
func (m *Sparse) NNZ() int { return len(m.Val) }

// Dense returns m as a dense matrix.
func (m *Sparse) Dense() *mat.Dense {
	d := mat.NewDense(m.Rows, m.Cols, nil)
	for i := range m.Rows {
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			d.Set(i, m.Col[k], d.At(i, m.Col[k])+m.Val[k])
		}
	}
	return d
}

// mulDenseTo sets out (Rows x k) to m x (Cols x k).
func (m *Sparse) mulDenseTo(out, x *mat.Dense) {
	_, k := x.Dims()
	xr := x.RawMatrix()
	for i := range m.Rows {
		m.rowTimes(out.RawRowView(i)[:k], i, xr.Data, xr.Stride)
	}
}

// rowTimes sets o (k values) to row i of m times the Cols x k matrix held
// in xd at stride. Each value is summed over the row's entries in order,
// from 0; four entries at a time go through one pass over o, with the same
// additions in the same order as one axpy each.
func (m *Sparse) rowTimes(o []float64, i int, xd []float64, stride int) {
	k := len(o)
	xrow := func(p int) []float64 { return xd[m.Col[p]*stride : m.Col[p]*stride+k] }
	p, end := m.RowPtr[i], m.RowPtr[i+1]
	if p+4 > end {
		clear(o)
	}
	for first := true; p+4 <= end; p, first = p+4, false {
		a0, a1, a2, a3 := m.Val[p], m.Val[p+1], m.Val[p+2], m.Val[p+3]
		x0, x1, x2, x3 := xrow(p), xrow(p + 1)[:k], xrow(p + 2)[:k], xrow(p + 3)[:k]
		if first {
			for j, v := range x0 {
				o[j] = 0 + float64(a0*v) + float64(a1*x1[j]) + float64(a2*x2[j]) + float64(a3*x3[j])
			}
			continue
		}
		for j, v := range x0 {
			o[j] = o[j] + float64(a0*v) + float64(a1*x1[j]) + float64(a2*x2[j]) + float64(a3*x3[j])
		}
	}
	for ; p < end; p++ {
		vec.Axpy(m.Val[p], xrow(p), o)
	}
}

// tMulDenseTo sets out (Cols x k) to m^T x (Rows x k).
func (m *Sparse) tMulDenseTo(out, x *mat.Dense) {
	_, k := x.Dims()
	out.Zero()
	or := out.RawMatrix()
	for i := range m.Rows {
		row := x.RawRowView(i)
		for p := m.RowPtr[i]; p < m.RowPtr[i+1]; p++ {
			vec.Axpy(m.Val[p], row, or.Data[m.Col[p]*or.Stride:m.Col[p]*or.Stride+k])
		}
	}
}

// SVD is a truncated singular value decomposition M ~ U diag(S) V^T with
// the singular values in decreasing order.
type SVD struct {
	// U is rows x k and V cols x k, with orthonormal columns. V may be a
	// view of a wider matrix (its stride above k).
	U, V *mat.Dense
	// S holds the k singular values.
	S []float64
}

// denseSVDLimit is the smaller dimension up to which TruncatedSVD uses a
// full dense SVD (exact, and fast at that size).
const denseSVDLimit = 400

// TruncatedSVD returns the k leading singular triplets of m. Up to
// denseSVDLimit rows or columns it is a dense SVD; above, the randomized
// subspace iteration of Halko, Martinsson and Tropp (2011, Algorithm 4.4)
// with l = k + max(10, k/2) vectors and iters power iterations (0 means
// 4), its start drawn from rng, so a seed fixes the result. k must be in
// [1, min(Rows, Cols)] and every entry finite.
//
// The iteration works in place in one Rows x l and one Cols x l block, and
// the final SVD of the Cols x l block (Q^T m)^T overwrites it, so at most
// three blocks of that size are live at once: on a Hankel matrix with
// 200,000 rows and columns and l = 75, about 360 MB.
func (m *Sparse) TruncatedSVD(k, iters int, rng *rand.Rand) (SVD, error) {
	if k < 1 || k > min(m.Rows, m.Cols) {
		return SVD{}, errors.Errorf("spectral: truncated SVD of rank %d of a %d x %d matrix", k, m.Rows, m.Cols)
	}
	if p := slices.IndexFunc(m.Val, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }); p >= 0 {
		return SVD{}, errors.Errorf("spectral: SVD of a matrix with the entry %g (stored entry %d)", m.Val[p], p)
	}
	if min(m.Rows, m.Cols) <= denseSVDLimit {
		return denseSVD(m.Dense(), k)
	}
	if iters == 0 {
		iters = 4
	}
	l := min(k+max(10, k/2), m.Rows, m.Cols)
	p := mat.NewDense(m.Cols, l, nil)
	raw := p.RawMatrix().Data
	for i := range raw {
		raw[i] = rng.NormFloat64()
	}
	q := mat.NewDense(m.Rows, l, nil)
	m.mulDenseTo(q, p)
	orthonormalize(q)
	for range iters {
		m.tMulDenseTo(p, q)
		orthonormalize(p)
		m.mulDenseTo(q, p)
		orthonormalize(q)
	}
	m.tMulDenseTo(p, q) // (Q^T M)^T
	w, z, s, ok := thinSVDInPlace(p)
	if !ok {
		return SVD{}, errors.New("spectral: SVD did not converge")
	}
	u := mat.NewDense(m.Rows, k, nil)
	u.Mul(q, z.Slice(0, l, 0, k))
	return SVD{U: u, V: w.Slice(0, m.Cols, 0, k).(*mat.Dense), S: s[:k]}, nil
}

// thinSVDInPlace is mat.SVD's thin factorization a = w diag(s) z^T of an
// r x c matrix with r >= c, without its copy of a: a is destroyed. w is
// r x c and z c x c.
func thinSVDInPlace(a *mat.Dense) (w, z *mat.Dense, s []float64, ok bool) {
	r, c := a.Dims()
	ug := blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
	vt := blas64.General{Rows: c, Cols: c, Stride: c, Data: make([]float64, c*c)}
	s = make([]float64, c)
	work := []float64{0}
	lapack64.Gesvd(lapack.SVDStore, lapack.SVDStore, a.RawMatrix(), ug, vt, s, work, -1)
	work = make([]float64, int(work[0]))
	if !lapack64.Gesvd(lapack.SVDStore, lapack.SVDStore, a.RawMatrix(), ug, vt, s, work, len(work)) {
		return nil, nil, nil, false
	}
	z = mat.NewDense(c, c, nil)
	for i := range c {
		for j := range c {
			z.Set(j, i, vt.Data[i*vt.Stride+j])
		}
	}
	return mat.NewDense(r, c, ug.Data), z, s, true
}

// denseSVD is the exact truncated SVD of a dense matrix.
func denseSVD(d *mat.Dense, k int) (SVD, error) {
	var svd mat.SVD
	if !svd.Factorize(d, mat.SVDThin) {
		return SVD{}, errors.New("spectral: SVD did not converge")
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	r, _ := u.Dims()
	c, _ := v.Dims()
	return SVD{U: mat.DenseCopyOf(u.Slice(0, r, 0, k)), V: mat.DenseCopyOf(v.Slice(0, c, 0, k)), S: svd.Values(nil)[:k]}, nil
}

// orthonormalize returns an orthonormal basis of the columns of a, by
// Cholesky QR applied twice (two Gram matrices and triangular solves, all
// BLAS level 3); when a Gram matrix is not positive definite it falls back
// to modified Gram-Schmidt.
func orthonormalize(a *mat.Dense) *mat.Dense {
	for range 2 {
		if !cholQR(a) {
			return gramSchmidt(a)
		}
	}
	return a
}

// cholQR replaces a by a R^-1 with R^T R = a^T a; it reports false (a
// unchanged) when a^T a is not numerically positive definite.
func cholQR(a *mat.Dense) bool {
	_, c := a.Dims()
	g := tallGram(a)
	var ch mat.Cholesky
	if !ch.Factorize(g) {
		return false
	}
	var r mat.TriDense
	ch.UTo(&r)
	for i := range c {
		if r.At(i, i) < 1e-10*r.At(0, 0) {
			return false
		}
	}
	var rinv mat.TriDense
	if err := rinv.InverseTri(&r); err != nil {
		return false
	}
	trmmUpper(a, &rinv)
	return true
}

// tallGram returns a^T a. Its entries are those of SymOuterK(1, a.T()), bit
// for bit: each is summed over the rows of a in order, with the same
// updates. SymOuterK's Dsyrk reads a once per column of a, which on a tall
// matrix is that many passes over memory; tallGram reads it once, and
// adds four rows at a time where none of their entries in a column is
// zero (a zero entry's update is skipped, as Dsyrk does).
func tallGram(a *mat.Dense) *mat.SymDense {
	r, c := a.Dims()
	g := mat.NewSymDense(c, nil)
	gr := g.RawSymmetric()
	gi := func(i int) []float64 { return gr.Data[i*gr.Stride+i : i*gr.Stride+c] }
	l := 0
	for ; l+4 <= r; l += 4 {
		r0, r1, r2, r3 := a.RawRowView(l), a.RawRowView(l+1), a.RawRowView(l+2), a.RawRowView(l+3)
		for i := range c {
			t0, t1, t2, t3 := r0[i], r1[i], r2[i], r3[i]
			if t0 == 0 || t1 == 0 || t2 == 0 || t3 == 0 {
				for _, row := range [4][]float64{r0, r1, r2, r3} {
					if t := row[i]; t != 0 {
						vec.Axpy(t, row[i:], gi(i))
					}
				}
				continue
			}
			y, x0, x1, x2, x3 := gi(i), r0[i:], r1[i:c], r2[i:c], r3[i:c]
			y = y[:len(x0)]
			for j, v := range x0 {
				y[j] = y[j] + float64(t0*v) + float64(t1*x1[j]) + float64(t2*x2[j]) + float64(t3*x3[j])
			}
		}
	}
	for ; l < r; l++ {
		row := a.RawRowView(l)
		for i, t := range row {
			if t != 0 {
				vec.Axpy(t, row[i:], gi(i))
			}
		}
	}
	return g
}

// trmmUpper sets a to a r for an upper triangular r, in place, with the
// operations of gonum's Dtrmm (Right, NoTrans, Upper, NonUnit) in the same
// order: entry j of a row becomes t_j r_jj, then adds t_k r_kj for k = j-1
// down to 0, where t is the row before the product and a zero t_k (t_j)
// skips its update. Here each entry is computed whole, from a copy of its
// row and the columns of r, four rows at a time, without the tests for
// zeros when the four rows hold none.
func trmmUpper(a *mat.Dense, r *mat.TriDense) {
	rr := r.RawTriangular()
	n := rr.N
	// rt[j*n+k] = r_kj: the columns of r, contiguous.
	rt := make([]float64, n*n)
	for k := range n {
		for j := k; j < n; j++ {
			rt[j*n+k] = rr.Data[k*rr.Stride+j]
		}
	}
	rows, _ := a.Dims()
	t := make([]float64, 4*n)
	for i := 0; i < rows; i += 4 {
		m := min(4, rows-i)
		for q := range m {
			copy(t[q*n:(q+1)*n], a.RawRowView(i + q)[:n])
		}
		for q := m; q < 4; q++ {
			clear(t[q*n : (q+1)*n])
		}
		t0, t1, t2, t3 := t[:n], t[n:2*n], t[2*n:3*n], t[3*n:4*n]
		if m == 4 && !slices.Contains(t, 0) {
			// No entry to skip: the same sums without the tests.
			o0, o1, o2, o3 := a.RawRowView(i)[:n], a.RawRowView(i + 1)[:n], a.RawRowView(i + 2)[:n], a.RawRowView(i + 3)[:n]
			for j := range n {
				col := rt[j*n : j*n+j+1]
				d := col[j]
				s0, s1, s2, s3 := t0[j]*d, t1[j]*d, t2[j]*d, t3[j]*d
				for k := j - 1; k >= 0; k-- {
					c := col[k]
					s0 += float64(t0[k] * c)
					s1 += float64(t1[k] * c)
					s2 += float64(t2[k] * c)
					s3 += float64(t3[k] * c)
				}
				o0[j], o1[j], o2[j], o3[j] = s0, s1, s2, s3
			}
			continue
		}
		for j := range n {
			col := rt[j*n : j*n+j+1]
			d := col[j]
			s0, s1, s2, s3 := t0[j], t1[j], t2[j], t3[j]
			if s0 != 0 {
				s0 *= d
			}
			if s1 != 0 {
				s1 *= d
			}
			if s2 != 0 {
				s2 *= d
			}
			if s3 != 0 {
				s3 *= d
			}
			for k := j - 1; k >= 0; k-- {
				c := col[k]
				if v := t0[k]; v != 0 {
					s0 += float64(v * c)
				}
				if v := t1[k]; v != 0 {
					s1 += float64(v * c)
				}
				if v := t2[k]; v != 0 {
					s2 += float64(v * c)
				}
				if v := t3[k]; v != 0 {
					s3 += float64(v * c)
				}
			}
			out := [4]float64{s0, s1, s2, s3}
			for q := range m {
				a.Set(i+q, j, out[q])
			}
		}
	}
}

// gramSchmidt orthonormalises the columns of a in place by modified
// Gram-Schmidt applied twice; a column that vanishes becomes zero.
func gramSchmidt(a *mat.Dense) *mat.Dense {
	_, c := a.Dims()
	cols := make([][]float64, c)
	for j := range c {
		cols[j] = mat.Col(nil, j, a)
	}
	for j := range c {
		for range 2 {
			for i := range j {
				d := dot(cols[i], cols[j])
				for t, v := range cols[i] {
					cols[j][t] -= d * v
				}
			}
		}
		if n := math.Sqrt(dot(cols[j], cols[j])); n > 1e-300 {
			for t := range cols[j] {
				cols[j][t] /= n
			}
		} else {
			clear(cols[j])
		}
	}
	for j := range c {
		a.SetCol(j, cols[j])
	}
	return a
}

// projectSandwich returns U^T m V (k x k) for U rows x k and V cols x k,
// touching only the rows of m that hold entries.
func (m *Sparse) projectSandwich(u, v *mat.Dense) *mat.Dense {
	_, k := u.Dims()
	var rows []int
	for i := range m.Rows {
		if m.RowPtr[i+1] > m.RowPtr[i] {
			rows = append(rows, i)
		}
	}
	out := mat.NewDense(k, k, nil)
	if len(rows) == 0 {
		return out
	}
	ug := mat.NewDense(len(rows), k, nil)
	t := mat.NewDense(len(rows), k, nil)
	vr := v.RawMatrix()
	for g, i := range rows {
		ug.SetRow(g, u.RawRowView(i))
		m.rowTimes(t.RawRowView(g), i, vr.Data, vr.Stride)
	}
	out.Mul(ug.T(), t)
	return out
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
