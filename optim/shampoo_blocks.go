package optim

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// shampooLayout is how Shampoo sees one parameter: its shape without the
// dimensions of size 1, as a rows x cols matrix (the first dimension
// against the product of the others) when two or more remain, as a
// vector of rows (cols 1) when one remains, and as a vector of one value
// for a scalar. The matrix is cut into blocks of at most dim rows and dim
// columns (the last ones smaller); a matrix block has a left and a right
// preconditioner, a vector block a left one only.
type shampooLayout struct {
	rows, cols int
	matrix     bool
	blocks     []shampooBlock
	size       int // values in the statistics tensor (and in the roots tensor)
}

// shampooBlock is one block: rows [r0, r1) and columns [c0, c1), and the
// offsets of its factors in the statistics and roots tensors, each stored
// as a full square matrix (right is unused for a vector block).
type shampooBlock struct {
	r0, r1, c0, c1 int
	left, right    int
}

func newShampooLayout(shape []int, dim int) shampooLayout {
	var dims []int
	for _, d := range shape {
		if d != 1 {
			dims = append(dims, d)
		}
	}
	l := shampooLayout{rows: 1, cols: 1}
	switch len(dims) {
	case 0:
	case 1:
		l.rows = dims[0]
	default:
		l.matrix, l.rows = true, dims[0]
		for _, d := range dims[1:] {
			l.cols *= d
		}
	}
	for r0 := 0; r0 < l.rows; r0 += dim {
		r1 := min(r0+dim, l.rows)
		for c0 := 0; c0 < l.cols; c0 += dim {
			c1 := min(c0+dim, l.cols)
			b := shampooBlock{r0: r0, r1: r1, c0: c0, c1: c1, left: l.size, right: -1}
			l.size += (r1 - r0) * (r1 - r0)
			if l.matrix {
				b.right = l.size
				l.size += (c1 - c0) * (c1 - c0)
			}
			l.blocks = append(l.blocks, b)
		}
	}
	return l
}

// order is the number of preconditioned dimensions of a block: the
// inverse roots are of order 2·order (Gupta et al. 2018, Algorithm 2:
// −1/4 for a matrix, and −1/2 for a vector, full-matrix AdaGrad).
func (l shampooLayout) order() int {
	if l.matrix {
		return 2
	}
	return 1
}

// accumulate updates the factors of block b from the gradient block G:
// L ← β2 L + (1−β2) G Gᵀ and, for a matrix, R ← β2 R + (1−β2) Gᵀ G. The
// factors are stored as full square matrices of which only the upper
// triangle is read and written.
func (l shampooLayout) accumulate(b shampooBlock, stats, g []float64, beta2 float64) {
	G := mat.NewDense(l.rows, l.cols, g).Slice(b.r0, b.r1, b.c0, b.c1)
	m, n := b.r1-b.r0, b.c1-b.c0
	left := mat.NewSymDense(m, stats[b.left:b.left+m*m])
	left.ScaleSym(beta2, left)
	left.SymRankK(left, 1-beta2, G)
	if l.matrix {
		right := mat.NewSymDense(n, stats[b.right:b.right+n*n])
		right.ScaleSym(beta2, right)
		right.SymRankK(right, 1-beta2, G.T())
	}
}

// inverseRoot writes into root (n x n, full) (S/c + εI)^(−1/p) for the
// symmetric S stored in the upper triangle of s, through the
// eigendecomposition S/c = Q Λ Qᵀ with eigenvalues below 0 (rounding)
// taken as 0. It reports false, leaving root unchanged, if the
// decomposition fails.
func inverseRoot(root, s []float64, n int, c, eps, p float64) bool {
	scaled := mat.NewSymDense(n, nil)
	scaled.ScaleSym(1/c, mat.NewSymDense(n, s))
	var es mat.EigenSym
	if !es.Factorize(scaled, true) {
		return false
	}
	vals := es.Values(nil)
	var q mat.Dense
	es.VectorsTo(&q)
	qs := mat.DenseCopyOf(&q)
	for j, lam := range vals {
		f := math.Pow(math.Max(lam, 0)+eps, -1/p)
		for i := range n {
			qs.Set(i, j, qs.At(i, j)*f)
		}
	}
	mat.NewDense(n, n, root).Mul(qs, q.T())
	return true
}

// direction writes into dir (block b of a rows x cols matrix laid out as
// the parameter) the preconditioned step Lr M Rr, or Lr M for a vector
// block, from the momentum m and the roots; tmp holds at least
// (r1−r0)(c1−c0) values.
func (l shampooLayout) direction(b shampooBlock, dir, m, roots, tmp []float64) {
	rows, cols := b.r1-b.r0, b.c1-b.c0
	M := mat.NewDense(l.rows, l.cols, m).Slice(b.r0, b.r1, b.c0, b.c1)
	D := mat.NewDense(l.rows, l.cols, dir).Slice(b.r0, b.r1, b.c0, b.c1).(*mat.Dense)
	left := mat.NewDense(rows, rows, roots[b.left:b.left+rows*rows])
	if !l.matrix {
		D.Mul(left, M)
		return
	}
	right := mat.NewDense(cols, cols, roots[b.right:b.right+cols*cols])
	lm := mat.NewDense(rows, cols, tmp[:rows*cols])
	lm.Mul(left, M)
	D.Mul(lm, right)
}

// blockNorm is the Frobenius norm of block b of x (laid out as the
// parameter).
func (l shampooLayout) blockNorm(b shampooBlock, x []float64) float64 {
	return mat.Norm(mat.NewDense(l.rows, l.cols, x).Slice(b.r0, b.r1, b.c0, b.c1), 2)
}

// scaleBlock multiplies block b of x by f.
func (l shampooLayout) scaleBlock(b shampooBlock, x []float64, f float64) {
	for i := b.r0; i < b.r1; i++ {
		row := x[i*l.cols+b.c0 : i*l.cols+b.c1]
		for j := range row {
			row[j] *= f
		}
	}
}
