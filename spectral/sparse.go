package spectral

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"
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

// triplets accumulates (row, col, value) entries before compression.
type triplets struct {
	rows, cols int
	r, c       []int
	v          []float64
}

func newTriplets(rows, cols int) *triplets { return &triplets{rows: rows, cols: cols} }

func (t *triplets) add(r, c int, v float64) {
	t.r = append(t.r, r)
	t.c = append(t.c, c)
	t.v = append(t.v, v)
}

// csr compresses the triplets, summing duplicates: two stable counting
// sorts, by column and then by row, so duplicates are summed in insertion
// order.
func (t *triplets) csr() *Sparse {
	idx := make([]int, len(t.r))
	for i := range idx {
		idx[i] = i
	}
	byCol := countingSort(idx, t.c, t.cols)
	start := make([]int, t.rows+1)
	for _, r := range t.r {
		start[r+1]++
	}
	for i := range t.rows {
		start[i+1] += start[i]
	}
	order := countingSort(byCol, t.r, t.rows)
	m := &Sparse{Rows: t.rows, Cols: t.cols, RowPtr: make([]int, t.rows+1), Col: make([]int, 0, len(t.r)), Val: make([]float64, 0, len(t.r))}
	for r := range t.rows {
		first := len(m.Col)
		for _, i := range order[start[r]:start[r+1]] {
			if n := len(m.Col); n > first && m.Col[n-1] == t.c[i] {
				m.Val[n-1] += t.v[i]
				continue
			}
			m.Col = append(m.Col, t.c[i])
			m.Val = append(m.Val, t.v[i])
		}
		m.RowPtr[r+1] = len(m.Col)
	}
	return m
}

// countingSort returns idx ordered by key[i] in [0, n), stably.
func countingSort(idx, key []int, n int) []int {
	next := make([]int, n+1)
	for _, i := range idx {
		next[key[i]+1]++
	}
	for k := range n {
		next[k+1] += next[k]
	}
	out := make([]int, len(idx))
	for _, i := range idx {
		out[next[key[i]]] = i
		next[key[i]]++
	}
	return out
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

// mulDense returns m x (Cols x k).
func (m *Sparse) mulDense(x *mat.Dense) *mat.Dense {
	_, k := x.Dims()
	out := mat.NewDense(m.Rows, k, nil)
	xr := x.RawMatrix()
	for i := range m.Rows {
		o := out.RawRowView(i)
		for p := m.RowPtr[i]; p < m.RowPtr[i+1]; p++ {
			v, row := m.Val[p], xr.Data[m.Col[p]*xr.Stride:m.Col[p]*xr.Stride+k]
			for j, a := range row {
				o[j] += v * a
			}
		}
	}
	return out
}

// tMulDense returns m^T x (Rows x k).
func (m *Sparse) tMulDense(x *mat.Dense) *mat.Dense {
	_, k := x.Dims()
	out := mat.NewDense(m.Cols, k, nil)
	or := out.RawMatrix()
	for i := range m.Rows {
		row := x.RawRowView(i)
		for p := m.RowPtr[i]; p < m.RowPtr[i+1]; p++ {
			v, o := m.Val[p], or.Data[m.Col[p]*or.Stride:m.Col[p]*or.Stride+k]
			for j, a := range row {
				o[j] += v * a
			}
		}
	}
	return out
}

// SVD is a truncated singular value decomposition M ~ U diag(S) V^T with
// the singular values in decreasing order.
type SVD struct {
	// U is rows x k and V cols x k, with orthonormal columns.
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
// with k + max(10, k/2) vectors and iters power iterations (0 means 4), its
// start drawn from rng, so a seed fixes the result. k must be in
// [1, min(Rows, Cols)].
func (m *Sparse) TruncatedSVD(k, iters int, rng *rand.Rand) (SVD, error) {
	if k < 1 || k > min(m.Rows, m.Cols) {
		return SVD{}, errors.Errorf("spectral: truncated SVD of rank %d of a %d x %d matrix", k, m.Rows, m.Cols)
	}
	if min(m.Rows, m.Cols) <= denseSVDLimit {
		return denseSVD(m.Dense(), k)
	}
	if iters == 0 {
		iters = 4
	}
	l := min(k+max(10, k/2), m.Rows, m.Cols)
	omega := mat.NewDense(m.Cols, l, nil)
	raw := omega.RawMatrix().Data
	for i := range raw {
		raw[i] = rng.NormFloat64()
	}
	q := orthonormalize(m.mulDense(omega))
	for range iters {
		q = orthonormalize(m.mulDense(orthonormalize(m.tMulDense(q))))
	}
	bt := m.tMulDense(q) // cols x l = (Q^T M)^T
	var svd mat.SVD
	if !svd.Factorize(bt, mat.SVDThin) {
		return SVD{}, errors.New("spectral: SVD did not converge")
	}
	var w, z mat.Dense
	svd.UTo(&w) // cols x l
	svd.VTo(&z) // l x l
	s := svd.Values(nil)
	u := mat.NewDense(m.Rows, k, nil)
	u.Mul(q, z.Slice(0, l, 0, k))
	v := mat.DenseCopyOf(w.Slice(0, m.Cols, 0, k))
	return SVD{U: u, V: v, S: s[:k]}, nil
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
	var g mat.SymDense
	g.SymOuterK(1, a.T())
	var ch mat.Cholesky
	if !ch.Factorize(&g) {
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
	var q mat.Dense
	q.Mul(a, &rinv)
	a.Copy(&q)
	return true
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
		o := t.RawRowView(g)
		for p := m.RowPtr[i]; p < m.RowPtr[i+1]; p++ {
			x, row := m.Val[p], vr.Data[m.Col[p]*vr.Stride:m.Col[p]*vr.Stride+k]
			for j, a := range row {
				o[j] += x * a
			}
		}
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
