package autoenc

import (
	"math"
	"runtime"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// symEig returns the eigenvalues of the symmetric n x n matrix m, largest
// first, and the matching eigenvectors as the rows of an n x n row-major
// slice, or ok false if the QL iteration did not converge. It computes
// what LAPACK's Dsyev does, the same way: Householder reduction to a
// tridiagonal T = Q^T m Q (Dsytrd, Dorgtr), then the implicit QL
// iteration with Wilkinson shifts on T (EISPACK tql2), its plane
// rotations accumulated into Q. gonum's Dsteqr applies each rotation down
// two columns of the row-major Q, one cache line per row, which made it
// most of the run time of Algorithm 1 at p = 250; here Q is held
// transposed, so every rotation combines two contiguous rows.
func symEig(m *mat.SymDense) (vals, vecs []float64, ok bool) {
	n := m.SymmetricDim()
	raw := m.RawSymmetric()
	a := make([]float64, n*n)
	for i := range n {
		copy(a[i*n+i:(i+1)*n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
	}
	d, e, tau := make([]float64, n), make([]float64, n), make([]float64, max(n-1, 1))
	var impl gonum.Implementation
	work := make([]float64, 2) // workspace queries
	impl.Dsytrd(blas.Upper, n, a, n, d, e, tau, work, -1)
	impl.Dorgtr(blas.Upper, n, a, n, tau, work[1:], -1)
	work = make([]float64, int(max(work[0], work[1])))
	impl.Dsytrd(blas.Upper, n, a, n, d, e, tau, work, len(work))
	impl.Dorgtr(blas.Upper, n, a, n, tau, work, len(work))
	// e[i] = T[i, i+1]; e[n-1] = 0. vecs = Q^T.
	e[n-1] = 0
	vecs = make([]float64, n*n)
	for i := range n {
		for j := range n {
			vecs[j*n+i] = a[i*n+j]
		}
	}
	if !tql2(d, e, vecs) {
		return nil, nil, false
	}
	// Sort largest first, moving the rows of vecs along.
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(x, y int) bool { return d[idx[x]] > d[idx[y]] })
	vals = make([]float64, n)
	sorted := a // Q is no longer needed
	for i, j := range idx {
		vals[i] = d[j]
		copy(sorted[i*n:(i+1)*n], vecs[j*n:(j+1)*n])
	}
	return vals, sorted, true
}

// tql2 diagonalises the symmetric tridiagonal matrix with diagonal d and
// off-diagonal e[:n-1] (e[n-1] = 0) by the implicit QL iteration of
// EISPACK's tql2 (as in JAMA), leaving the eigenvalues in d and applying
// each rotation to the rows of z (n x n, row-major; see rotate): if z
// holds Q^T on entry, its rows are the eigenvectors of Q T Q^T on
// return. It reports
// false if an eigenvalue needs more than 30 iterations (LAPACK's limit).
func tql2(d, e, z []float64) bool {
	n := len(d)
	const eps = 0x1p-52
	f, tst1 := 0.0, 0.0
	cs := make([]float64, 2*n) // the rotations of one QL sweep
	for l := range n {
		tst1 = max(tst1, math.Abs(d[l])+math.Abs(e[l]))
		m := l
		for m < n-1 && math.Abs(e[m]) > eps*tst1 {
			m++
		}
		for iter := 0; m > l; iter++ {
			if iter == 30 {
				return false
			}
			// Implicit (Wilkinson) shift.
			g := d[l]
			p := (d[l+1] - g) / (2 * e[l])
			r := math.Hypot(p, 1)
			if p < 0 {
				r = -r
			}
			d[l] = e[l] / (p + r)
			d[l+1] = e[l] * (p + r)
			dl1 := d[l+1]
			h := g - d[l]
			for i := l + 2; i < n; i++ {
				d[i] -= h
			}
			f += h
			// Implicit QL transformation.
			p = d[m]
			c, c2, c3 := 1.0, 1.0, 1.0
			el1 := e[l+1]
			s, s2 := 0.0, 0.0
			for i := m - 1; i >= l; i-- {
				c3, c2, s2 = c2, c, s
				g = c * e[i]
				h = c * p
				r = math.Hypot(p, e[i])
				e[i+1] = s * r
				s = e[i] / r
				c = p / r
				p = c*d[i] - s*g
				d[i+1] = h + s*(c*g+s*d[i])
				cs[2*i], cs[2*i+1] = c, s
			}
			rotate(z, n, l, m, cs)
			p = -s * s2 * c3 * el1 * e[l] / dl1
			e[l] = s * p
			d[l] = c * p
			if math.Abs(e[l]) <= eps*tst1 {
				break
			}
		}
		d[l] += f
		e[l] = 0
	}
	return true
}

// rotate applies the plane rotations (c, s) = cs[2i], cs[2i+1] of a QL
// sweep, i = m-1 down to l, to rows i and i+1 of z (n x n, row-major).
// Each column sees the same operations in the same order however the
// columns are split, so a large sweep is shared among goroutines by
// ranges of columns without changing a bit of the result.
func rotate(z []float64, n, l, m int, cs []float64) {
	apply := func(lo, hi int) {
		for i := m - 1; i >= l; i-- {
			c, s := cs[2*i], cs[2*i+1]
			zi := z[i*n+lo : i*n+hi]
			zj := z[(i+1)*n+lo : (i+1)*n+hi][:len(zi)]
			for k, x := range zi {
				y := zj[k]
				zj[k] = s*x + c*y
				zi[k] = c*x - s*y
			}
		}
	}
	parts := min(runtime.GOMAXPROCS(0), 4)
	if parts < 2 || (m-l)*n < rotateSerial {
		apply(0, n)
		return
	}
	inParts(n, parts, func(_, lo, hi int) { apply(lo, hi) })
}

// rotateSerial is the number of rotated pairs below which rotate stays on
// one goroutine.
const rotateSerial = 1 << 14
