package optim

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// refShampoo is Shampoo (Gupta et al. 2018, Algorithm 2, blocked, with
// the exponential averages, bias corrections and Adam grafting of
// Distributed Shampoo) written out with index loops over full matrices;
// inverse roots come from a Jacobi eigendecomposition (jacobiEigen), not
// from gonum.
type refShampoo struct {
	lr, b1, b2, eps, meps, lambda float64
	dim, every                    int
	graft                         bool
	tensors                       map[int]*refShampooTensor
}

type refShampooTensor struct {
	m, v   []float64
	blocks []*refShampooBlock
}

// refShampooBlock holds the flat index of each element of a block
// (idx[a][b]), its statistics and their inverse roots.
type refShampooBlock struct {
	idx          [][]int
	matrix       bool
	L, R, Lr, Rr [][]float64
}

// newRefShampooTensor cuts a tensor of the given shape into blocks: the
// dimensions of size 1 dropped, the first remaining one against the
// product of the others, rows and columns in chunks of dim.
func newRefShampooTensor(shape []int, dim int) *refShampooTensor {
	var dims []int
	for _, d := range shape {
		if d > 1 {
			dims = append(dims, d)
		}
	}
	rows, cols, matrix := 1, 1, len(dims) >= 2
	if len(dims) >= 1 {
		rows = dims[0]
		for _, d := range dims[1:] {
			cols *= d
		}
	}
	st := &refShampooTensor{m: make([]float64, rows*cols), v: make([]float64, rows*cols)}
	for r0 := 0; r0 < rows; r0 += dim {
		for c0 := 0; c0 < cols; c0 += dim {
			b := &refShampooBlock{matrix: matrix}
			for a := r0; a < rows && a < r0+dim; a++ {
				var row []int
				for c := c0; c < cols && c < c0+dim; c++ {
					row = append(row, a*cols+c)
				}
				b.idx = append(b.idx, row)
			}
			b.L, b.Lr = zeros(len(b.idx), len(b.idx)), zeros(len(b.idx), len(b.idx))
			b.R, b.Rr = zeros(len(b.idx[0]), len(b.idx[0])), zeros(len(b.idx[0]), len(b.idx[0]))
			st.blocks = append(st.blocks, b)
		}
	}
	return st
}

func zeros(r, c int) [][]float64 {
	out := make([][]float64, r)
	for i := range out {
		out[i] = make([]float64, c)
	}
	return out
}

func (r *refShampoo) step(i int, shape []int, p, g []float64, t int) {
	if r.tensors[i] == nil {
		r.tensors[i] = newRefShampooTensor(shape, r.dim)
	}
	st := r.tensors[i]
	c1, c2 := 1-math.Pow(r.b1, float64(t)), 1-math.Pow(r.b2, float64(t))
	for j := range p {
		st.m[j] = r.b1*st.m[j] + (1-r.b1)*g[j]
		st.v[j] = r.b2*st.v[j] + (1-r.b2)*g[j]*g[j]
	}
	d := make([]float64, len(p))
	for _, b := range st.blocks {
		G, M, A := b.gather(g, 1), b.gather(st.m, 1/c1), b.gather(st.m, 1/c1)
		for a, row := range b.idx {
			for c, k := range row {
				A[a][c] /= math.Sqrt(st.v[k]/c2) + r.eps
			}
		}
		ema(b.L, matMul(G, transpose(G)), r.b2)
		ema(b.R, matMul(transpose(G), G), r.b2)
		order := 1.0
		if b.matrix {
			order = 2
		}
		if (t-1)%r.every == 0 {
			b.Lr = refInverseRoot(b.L, c2, r.meps, 2*order)
			b.Rr = refInverseRoot(b.R, c2, r.meps, 2*order)
		}
		D := matMul(b.Lr, M)
		if b.matrix {
			D = matMul(D, b.Rr)
		}
		if r.graft && frobenius(D) > 0 {
			f := frobenius(A) / frobenius(D)
			for _, row := range D {
				for c := range row {
					row[c] *= f
				}
			}
		}
		for a, row := range b.idx {
			for c, k := range row {
				d[k] = D[a][c]
			}
		}
	}
	for j := range p {
		p[j] = p[j] - r.lr*r.lambda*p[j] - r.lr*d[j]
	}
}

// gather returns f times the block's elements of x as a matrix.
func (b *refShampooBlock) gather(x []float64, f float64) [][]float64 {
	out := zeros(len(b.idx), len(b.idx[0]))
	for a, row := range b.idx {
		for c, k := range row {
			out[a][c] = f * x[k]
		}
	}
	return out
}

// ema sets s to beta s + (1−beta) x.
func ema(s, x [][]float64, beta float64) {
	for i := range s {
		for j := range s[i] {
			s[i][j] = beta*s[i][j] + (1-beta)*x[i][j]
		}
	}
}

func matMul(a, b [][]float64) [][]float64 {
	out := zeros(len(a), len(b[0]))
	for i := range a {
		for j := range b[0] {
			for k := range b {
				out[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return out
}

func transpose(a [][]float64) [][]float64 {
	out := zeros(len(a[0]), len(a))
	for i := range a {
		for j := range a[i] {
			out[j][i] = a[i][j]
		}
	}
	return out
}

func frobenius(a [][]float64) float64 {
	s := 0.0
	for _, row := range a {
		for _, x := range row {
			s += x * x
		}
	}
	return math.Sqrt(s)
}

// refInverseRoot is (S/c + εI)^(−1/p) through the eigendecomposition
// of S/c, negative eigenvalues taken as 0.
func refInverseRoot(s [][]float64, c, eps, p float64) [][]float64 {
	a := zeros(len(s), len(s))
	for i := range s {
		for j := range s {
			a[i][j] = s[i][j] / c
		}
	}
	vals, vecs := jacobiEigen(a)
	out := zeros(len(s), len(s))
	for k, lam := range vals {
		f := math.Pow(math.Max(lam, 0)+eps, -1/p)
		for i := range out {
			for j := range out {
				out[i][j] += vecs[i][k] * f * vecs[j][k]
			}
		}
	}
	return out
}

// jacobiEigen diagonalises the symmetric a (overwritten) by cyclic Jacobi
// rotations (Golub and Van Loan, Algorithm 8.5.3) and returns its
// eigenvalues and the eigenvectors as columns.
func jacobiEigen(a [][]float64) ([]float64, [][]float64) {
	n := len(a)
	v := zeros(n, n)
	for i := range v {
		v[i][i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		off := 0.0
		for i := range n {
			for j := i + 1; j < n; j++ {
				off += a[i][j] * a[i][j]
			}
		}
		if off == 0 {
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				if a[p][q] == 0 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range n { // A ← A J
					akp, akq := a[k][p], a[k][q]
					a[k][p], a[k][q] = c*akp-s*akq, s*akp+c*akq
				}
				for k := range n { // A ← Jᵀ A
					apk, aqk := a[p][k], a[q][k]
					a[p][k], a[q][k] = c*apk-s*aqk, s*apk+c*aqk
				}
				a[p][q], a[q][p] = 0, 0
				for k := range n {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p], v[k][q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = a[i][i]
	}
	return vals, v
}

func newRefShampoo(c Config, lr, b1, b2, eps, meps, lambda float64, dim, every int) func() refStepper {
	return func() refStepper {
		return &refShampoo{lr: lr, b1: b1, b2: b2, eps: eps, meps: meps, lambda: lambda, dim: dim, every: every,
			graft: c.Grafting != "none", tensors: map[int]*refShampooTensor{}}
	}
}

// shampooRefCases are TestOptimizersMatchReferences' Shampoo cases: blocks
// smaller than the tensors (remainders included), roots held between
// refreshes, with and without grafting. MatrixEps is 1e-4 rather than its
// default: the first statistics have rank one, their null space has
// eigenvalues at the rounding level, and the roots there, ε^(−1/4), turn
// the rounding differences of two eigensolvers into differences of the
// step that grow as ε falls (2e-14 at 1e-4, 2e-13 at 1e-5, 1e-11 at
// 1e-12); the equations are what the test checks.
func shampooRefCases() []refCase {
	c1 := Config{LR: 0.05, MaxPreconditionerDim: 3, PreconditionFrequency: 3, MatrixEps: 1e-4}
	c2 := Config{LR: 0.01, Beta1: 0.5, Beta2: 0.99, MaxPreconditionerDim: 2, PreconditionFrequency: 1,
		Grafting: "none", MatrixEps: 1e-4, DecoupledDecay: 0.1}
	c3 := Config{LR: 0.02, PreconditionFrequency: 5, MatrixEps: 1e-4}
	return []refCase{
		{"shampoo", c1, newRefShampoo(c1, 0.05, 0.9, 0.999, 1e-8, 1e-4, 0, 3, 3)},
		{"shampoo", c2, newRefShampoo(c2, 0.01, 0.5, 0.99, 1e-8, 1e-4, 0.1, 2, 1)},
		{"shampoo", c3, newRefShampoo(c3, 0.02, 0.9, 0.999, 1e-8, 1e-4, 0, 128, 5)},
	}
}

// TestJacobiEigen checks the reference's eigendecomposition: A v = λ v
// for a seeded symmetric matrix.
func TestJacobiEigen(t *testing.T) {
	const n, tol = 6, 1e-13
	rng := rand.New(rand.NewPCG(3, 4))
	a := zeros(n, n)
	for i := range n {
		for j := i; j < n; j++ {
			a[i][j] = rng.NormFloat64()
			a[j][i] = a[i][j]
		}
	}
	work := zeros(n, n)
	for i := range a {
		copy(work[i], a[i])
	}
	vals, vecs := jacobiEigen(work)
	for k, lam := range vals {
		for i := range n {
			av := 0.0
			for j := range n {
				av += a[i][j] * vecs[j][k]
			}
			if math.Abs(av-lam*vecs[i][k]) > tol {
				t.Fatalf("eigenpair %d: (A v)_%d = %v, λ v_%d = %v", k, i, av, i, lam*vecs[i][k])
			}
		}
	}
}

func TestShampooLayout(t *testing.T) {
	tests := []struct {
		shape  []int
		dim    int
		rows   int
		cols   int
		blocks int
		size   int
	}{
		{[]int{1}, 4, 1, 1, 1, 1},
		{[]int{7}, 3, 7, 1, 3, 9 + 9 + 1},
		{[]int{4, 5}, 3, 4, 5, 4, (9 + 9) + (9 + 4) + (1 + 9) + (1 + 4)},
		{[]int{2, 1, 3}, 8, 2, 3, 1, 4 + 9},
		{[]int{5, 1}, 8, 5, 1, 1, 25},
	}
	for _, tt := range tests {
		l := newShampooLayout(tt.shape, tt.dim)
		if l.rows != tt.rows || l.cols != tt.cols || len(l.blocks) != tt.blocks || l.size != tt.size {
			t.Errorf("shape %v, dim %d: %d x %d, %d blocks, size %d; want %d x %d, %d blocks, size %d",
				tt.shape, tt.dim, l.rows, l.cols, len(l.blocks), l.size, tt.rows, tt.cols, tt.blocks, tt.size)
		}
	}
}

// TestShampooStateOfOtherBlocks checks that LoadState refuses a state
// saved with another block size, naming the tensor.
func TestShampooStateOfOtherBlocks(t *testing.T) {
	p := refParams(t)
	g := refGradients(t)[0]
	o := newOptimizer(t, "shampoo", Config{MaxPreconditionerDim: 2})
	if err := o.Step(p, g); err != nil {
		t.Fatal(err)
	}
	err := newOptimizer(t, "shampoo", Config{MaxPreconditionerDim: 3}).LoadState(o.State())
	if err == nil || !strings.Contains(err.Error(), `"stats/`) {
		t.Errorf("error %v, want one naming a statistics tensor", err)
	}
	if names := o.State().Names(); !slices.Contains(names, "roots/w") || !slices.Contains(names, "v/w") {
		t.Errorf("state %v lacks roots/w or v/w", names)
	}
}
