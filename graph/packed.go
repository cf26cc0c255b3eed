package graph

import "github.com/rtnlab/rtn/internal/gemm"

// PackedOf is the right factor op(b) of many products, prepared once: a
// step kernel packs its recurrent weights (U for the forward steps, U
// transposed for the backward ones) at the start of a pass, and each time
// step's product then skips the copy GemmOf makes of op(b) at every call.
// Where GemmOf runs on the assembly kernels, Pack copies op(b) into their
// panels (a copy of k x n values, rounded up to a panel); elsewhere it
// keeps b itself, and Mul calls GemmOf. Mul's products have GemmOf's bits
// either way. The matrix b must not change between Pack and the Muls that
// read it. The zero value is empty; Pack reuses its storage.
type PackedOf[F Float] struct {
	fast   gemm.PackedB[F]
	onFast bool
	transB bool
	b      []F
	ldb    int
	k, n   int
}

// Pack prepares op(b), k x n (b stored n x k with stride ldb when transB is
// set, k x n otherwise).
func (p *PackedOf[F]) Pack(transB bool, k, n int, b []F, ldb int) {
	p.k, p.n = k, n
	p.onFast = fastGemm[F]() != nil
	if p.onFast {
		p.fast.Pack(transB, k, n, b, ldb)
		p.b = nil
		return
	}
	p.transB, p.b, p.ldb = transB, b, ldb
}

// Mul sets c = alpha op(a) op(b) + beta c, op(a) m x k (a stored k x m when
// transA is set), c m x n, for the op(b) of the last Pack.
func (p *PackedOf[F]) Mul(transA bool, m int, alpha F, a []F, lda int, beta F, c []F, ldc int) {
	if m == 0 || p.n == 0 {
		return
	}
	if p.onFast {
		gemm.GemmPacked(transA, m, alpha, a, lda, &p.fast, beta, c, ldc)
		return
	}
	GemmOf(transA, p.transB, m, p.n, p.k, alpha, a, lda, p.b, p.ldb, beta, c, ldc)
}

// PackedWeightOf is a step kernel's recurrent weight matrix U, rows x cols,
// packed for the two products every time step makes with it: h U in the
// forward pass and g U^T in the backward pass. Each side is packed at its
// first product after Reset, which the kernel calls where a pass starts
// (in InitialState): the parameters change between passes, never within
// one.
type PackedWeightOf[F Float] struct {
	fwd, back           PackedOf[F]
	fwdReady, backReady bool
}

// Reset marks both packings stale: the next products re-pack U.
func (w *PackedWeightOf[F]) Reset() { w.fwdReady, w.backReady = false, false }

// Forward sets c = h u + beta c, h m x rows, u rows x cols (stride cols),
// c m x cols.
func (w *PackedWeightOf[F]) Forward(u []F, rows, cols, m int, h []F, beta F, c []F) {
	if !w.fwdReady {
		w.fwd.Pack(false, rows, cols, u, cols)
		w.fwdReady = true
	}
	w.fwd.Mul(false, m, 1, h, rows, beta, c, cols)
}

// Backward sets c = g u^T + beta c, g m x cols, u rows x cols (stride
// cols), c m x rows.
func (w *PackedWeightOf[F]) Backward(u []F, rows, cols, m int, g []F, beta F, c []F) {
	if !w.backReady {
		w.back.Pack(true, cols, rows, u, cols)
		w.backReady = true
	}
	w.back.Mul(false, m, 1, g, cols, beta, c, rows)
}
