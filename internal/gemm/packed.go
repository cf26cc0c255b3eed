package gemm

import "fmt"

// PackedB is op(b) of a product, k x n, copied once into the panels the
// kernels read, for products that use the same op(b) many times (the
// transposed recurrent weights of every backward time step): GemmPacked
// then skips the copy that Gemm makes at each call. Its products have
// the bits of Gemm's. The zero value is empty; Pack fills it, reusing its
// storage when big enough.
type PackedB[F Float] struct {
	k, n    int
	npanels int // panels of gemmNR columns, the last zero-padded
	data    []F // for each chunk of gemmKC terms, its panels in turn
}

// Pack copies op(b), k x n (b stored n x k with stride ldb when transB is
// set, k x n otherwise), into p. It panics when b is too short for its
// shape, and when the kernels do not run here (Available).
func (p *PackedB[F]) Pack(transB bool, k, n int, b []F, ldb int) {
	if !available {
		panic("gemm: no assembly kernel on this platform")
	}
	if k < 0 || n < 0 {
		panic(fmt.Sprintf("gemm: PackedB of negative size %d x %d", k, n))
	}
	rows, cols := k, n
	if transB {
		rows, cols = n, k
	}
	checkMatrix("b", b, rows, cols, ldb)
	nr := gemmNR[F]()
	p.k, p.n, p.npanels = k, n, (n+nr-1)/nr
	size := k * p.npanels * nr
	if cap(p.data) < size {
		p.data = make([]F, size)
	}
	p.data = p.data[:size]
	for q := 0; q < k; q += gemmKC {
		kc := min(gemmKC, k-q)
		packBBlock(p.data[p.panel(q, 0):], nr, transB, b, ldb, q, kc, 0, n)
	}
}

// panel is the offset in data of the panel holding column j (a multiple
// of gemmNR) for the chunk of terms starting at q (a multiple of gemmKC).
func (p *PackedB[F]) panel(q, j int) int {
	return q*p.npanels*gemmNR[F]() + j*min(gemmKC, p.k-q)
}

// K and N are the sizes of the packed op(b), k x n.
func (p *PackedB[F]) K() int { return p.k }

// N is the number of columns of the packed op(b).
func (p *PackedB[F]) N() int { return p.n }

// GemmPacked is Gemm with op(b) from a PackedB: c = alpha op(a) op(b) +
// beta c, c m x n, op(a) m x k, for the k and n of b. Its products have
// the bits of Gemm's on the matrix b was packed from.
func GemmPacked[F Float](transA bool, m int, alpha F, a []F, lda int, b *PackedB[F], beta F, c []F, ldc int) {
	if !available {
		panic("gemm: no assembly kernel on this platform")
	}
	k, n := b.k, b.n
	if m < 0 {
		panic(fmt.Sprintf("gemm: GemmPacked of negative size %d x %d x %d", m, n, k))
	}
	if transA {
		checkMatrix("a", a, k, m, lda)
	} else {
		checkMatrix("a", a, m, k, lda)
	}
	checkMatrix("c", c, m, n, ldc)
	run(transA, m, n, k, alpha, a, lda, bSource[F]{packed: b}, beta, c, ldc)
}
