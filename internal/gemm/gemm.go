package gemm

import (
	"fmt"
	"unsafe"
)

// Float is the element type of a product.
type Float interface{ float32 | float64 }

// is32 says whether F is float32.
func is32[F Float]() bool {
	var z F
	return unsafe.Sizeof(z) == 4
}

// Available reports whether Gemm runs here: on amd64 with AVX and FMA (and
// the operating system saving the YMM registers), not built with the
// purego tag.
func Available() bool { return available }

const (
	gemmMR      = 6    // rows of a panel of op(a)
	gemmNRBytes = 64   // bytes of a row of a panel of op(b): two YMM registers
	gemmKC      = 256  // terms summed per pass over c
	gemmMCBytes = 1536 // bytes of a column of the rows of op(a) packed at once (gemmMC)
	gemmNC      = 2048 // columns of op(b) packed at once, a multiple of both panel widths
)

// Reading a panel straight from the matrix instead of packing it pays only
// for few uses of the panel: panels of op(a) are read in place when c has
// at most directAMaxN panels of columns, panels of op(b) (the rows of a b
// not transposed) when c has at most directBMaxM rows; neither when the
// rows of its matrix are a multiple of conflictStride bytes apart (a panel
// read with such a stride falls into a few sets of the first-level cache
// and runs two to three times slower than packed).
var (
	directAMaxN = 8
	directBMaxM = 64
)

// conflictStride is the stride, in bytes, at which the rows of a panel
// map to one set of the first-level cache (its size over its ways).
const conflictStride = 4096

// gemmNR is the number of columns of a panel of op(b) in F: 8 float64s
// or 16 float32s.
func gemmNR[F Float]() int {
	var z F
	return gemmNRBytes / int(unsafe.Sizeof(z))
}

// gemmMC is the number of rows of op(a) packed at once, a multiple of
// gemmMR: 192 float64s or 384 float32s, whose panels over gemmKC terms
// (384 KiB) stay in the second-level cache while the panels of op(b) go by.
func gemmMC[F Float]() int {
	var z F
	return gemmMCBytes / int(unsafe.Sizeof(z))
}

// gemmBuf holds the packed panels and an edge block of c.
type gemmBuf[F Float] struct {
	a, b []F
	edge [gemmMR * gemmNRBytes / 4]F // gemmMR x gemmNR[F] used
}

// gemmBufs64 and gemmBufs32 keep the buffers of finished calls, up to 16
// of each type, for the next ones: once warm, Gemm allocates only when more
// than 16 calls run at once. (A sync.Pool would drop them at garbage
// collections, and at random under the race detector.)
var (
	gemmBufs64 = make(chan *gemmBuf[float64], 16)
	gemmBufs32 = make(chan *gemmBuf[float32], 16)
)

// gemmBufs is gemmBufs64 or gemmBufs32.
func gemmBufs[F Float]() chan *gemmBuf[F] {
	if is32[F]() {
		return any(gemmBufs32).(chan *gemmBuf[F])
	}
	return any(gemmBufs64).(chan *gemmBuf[F])
}

// getGemmBuf takes a kept buffer, or makes one, with room for the panels
// of op(b) of a product n columns wide: the buffers grow to the widest
// product they serve, up to gemmNC columns.
func getGemmBuf[F Float](n int) *gemmBuf[F] {
	var buf *gemmBuf[F]
	select {
	case buf = <-gemmBufs[F]():
	default:
		buf = &gemmBuf[F]{a: make([]F, (gemmMC[F]()+gemmMR)*gemmKC)} // room for a slot per panel (panelRows)
	}
	nr := gemmNR[F]()
	if need := gemmKC * min(gemmNC, (n+nr-1)/nr*nr); len(buf.b) < need {
		buf.b = make([]F, need)
	}
	return buf
}

// putGemmBuf keeps b unless 16 buffers are kept already.
func putGemmBuf[F Float](b *gemmBuf[F]) {
	select {
	case gemmBufs[F]() <- b:
	default:
	}
}

// Gemm computes c = alpha op(a) op(b) + beta c, op(x) being x or its
// transpose, for row-major matrices with strides lda, ldb, ldc: c is m x
// n, op(a) m x k, op(b) k x n. It panics when a slice is too short for its
// shape, and when the kernels do not run here (Available).
//
// A product of at least parallelFlops multiply-adds is cut into as many
// blocks of rows or columns of c as GOMAXPROCS allows (split), computed at
// once; every entry has the same bits whatever the cut.
func Gemm[F Float](transA, transB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	if !available {
		panic("gemm: no assembly kernel on this platform")
	}
	checkGemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	run(transA, m, n, k, alpha, a, lda, bSource[F]{transB: transB, b: b, ldb: ldb}, beta, c, ldc)
}

// bSource is where a product's op(b) comes from: the matrix b, or the
// panels of a PackedB from its column col0 on.
type bSource[F Float] struct {
	transB bool
	b      []F
	ldb    int
	packed *PackedB[F]
	col0   int
}

// cols is the source from its column j on.
func (s bSource[F]) cols(j int) bSource[F] {
	switch {
	case s.packed != nil:
		s.col0 += j
	case s.transB:
		s.b = s.b[j*s.ldb:]
	default:
		s.b = s.b[j:]
	}
	return s
}

// run computes the product, cut over the workers when it is large enough.
func run[F Float](transA bool, m, n, k int, alpha F, a []F, lda int, src bSource[F], beta F, c []F, ldc int) {
	if parts := split[F](m, n, k); parts > 1 {
		parallel(parts, transA, m, n, k, alpha, a, lda, src, beta, c, ldc)
		return
	}
	serial(transA, m, n, k, alpha, a, lda, src, beta, c, ldc)
}

// serial is the product on the calling goroutine.
func serial[F Float](transA bool, m, n, k int, alpha F, a []F, lda int, src bSource[F], beta F, c []F, ldc int) {
	// With beta 0 the first pass over the terms writes c (put) instead of
	// adding into c cleared beforehand.
	put := beta == 0 && k > 0 && alpha != 0
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		switch {
		case put, beta == 1:
		case beta == 0:
			clear(row)
		default:
			for j := range row {
				row[j] *= beta
			}
		}
	}
	if k == 0 || alpha == 0 {
		return
	}
	buf := getGemmBuf[F](n)
	defer putGemmBuf(buf)
	size := int(unsafe.Sizeof(a[0]))
	nr, mcMax := gemmNR[F](), gemmMC[F]()
	// A panel read straight from a or b saves its copy but is read with the
	// matrix's stride: worth it only when it is used few times. alpha
	// scales op(a) as it is packed.
	directA := alpha == 1 && n <= directAMaxN*nr && lda*size%conflictStride != 0
	transB, b, ldb, packed := src.transB, src.b, src.ldb, src.packed
	directB := !transB && m <= directBMaxM && packed == nil && ldb*size%conflictStride != 0
	for p := 0; p < k; p += gemmKC {
		kc := min(gemmKC, k-p)
		for j := 0; j < n; j += gemmNC {
			nc := min(gemmNC, n-j)
			switch {
			case packed != nil:
			case directB && nc%nr != 0:
				last := nc - nc%nr
				packB(buf.b[last*kc:(last+nr)*kc], nr, transB, b, ldb, p, kc, j+last, nc-last)
			case !directB:
				packBBlock(buf.b, nr, transB, b, ldb, p, kc, j, nc)
			}
			for i := 0; i < m; i += mcMax {
				mc := min(mcMax, m-i)
				if !directA {
					packABlock(buf.a, transA, alpha, a, lda, i, mc, p, kc)
				} else { // only the panels the kernels cannot read in place
					for ir, slot := leadRows(mc), leadRows(mc)/gemmMR; ir < mc; slot++ {
						rows := panelRows(mc - ir)
						if rows != kernRows(rows) {
							packA(buf.a[slot*gemmMR*kc:(slot+1)*gemmMR*kc], transA, alpha, a, lda, i+ir, rows, p, kc)
						}
						ir += rows
					}
				}
				blk := block[F]{kc: kc, put: put && p == 0, c: c[(i*ldc + j):], ldc: ldc, buf: buf}
				for jr := 0; jr < nc; jr += nr {
					blk.b, blk.ldb = &buf.b[jr*kc], nr
					switch {
					case packed != nil:
						blk.b = &packed.data[packed.panel(p, src.col0+j+jr)]
					case directB && nc-jr >= nr:
						blk.b, blk.ldb = &b[p*ldb+j+jr], ldb
					}
					for ir, slot := 0, 0; ir < mc; ir, slot = ir+panelRows(mc-ir), slot+1 {
						rows := panelRows(mc - ir)
						blk.a, blk.lda, blk.byRows = &buf.a[slot*gemmMR*kc], gemmMR, false
						switch {
						case !directA || rows != kernRows(rows):
						case transA:
							blk.a, blk.lda = &a[p*lda+i+ir], lda
						default:
							blk.a, blk.lda, blk.byRows = &a[(i+ir)*lda+p], lda, true
						}
						blk.run(ir, jr, rows, min(nr, nc-jr))
					}
				}
			}
		}
	}
}

// block is the kernel's view of one pass over a block of c: kc terms of
// the panels of op(a) at a (with stride lda, read by rows when byRows is
// set) and of op(b) at b (stride ldb), into c with stride ldc, written
// (put) or added to.
type block[F Float] struct {
	kc       int
	put      bool
	a, b     *F
	lda, ldb int
	byRows   bool
	c        []F
	ldc      int
	buf      *gemmBuf[F]
}

// kernRows is the number of rows of the kernel that computes a panel of
// rows rows: 4 up to 4, else gemmMR.
func kernRows(rows int) int {
	if rows <= 4 {
		return 4
	}
	return gemmMR
}

// run adds (or writes) the product of the panels into the rows x cols
// block of c at row ir, column jr: through the buffer's edge block when
// it is narrower than the kernel's.
func (blk *block[F]) run(ir, jr, rows, cols int) {
	nr := gemmNR[F]()
	at := ir*blk.ldc + jr
	if cols == nr {
		_ = blk.c[at+(rows-1)*blk.ldc+nr-1] // the kernel writes through a pointer
		kern(blk.put, blk.byRows, kernRows(rows), blk.kc, blk.a, blk.lda, blk.b, blk.ldb, &blk.c[at], blk.ldc, rows)
		return
	}
	edge := blk.buf.edge[:]
	if !blk.put {
		for r := range rows {
			copy(edge[r*nr:r*nr+cols], blk.c[at+r*blk.ldc:at+r*blk.ldc+cols])
		}
	}
	kern(blk.put, blk.byRows, kernRows(rows), blk.kc, blk.a, blk.lda, blk.b, blk.ldb, &edge[0], nr, rows)
	for r := range rows {
		copy(blk.c[at+r*blk.ldc:at+r*blk.ldc+cols], edge[r*nr:r*nr+cols])
	}
}

// checkGemm panics unless a, b and c hold matrices of the shapes Gemm is
// given: the kernel reads and writes through pointers, unchecked.
func checkGemm[F Float](transA, transB bool, m, n, k int, a []F, lda int, b []F, ldb int, c []F, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("gemm: Gemm of negative size %d x %d x %d", m, n, k))
	}
	if transA {
		checkMatrix("a", a, k, m, lda)
	} else {
		checkMatrix("a", a, m, k, lda)
	}
	if transB {
		checkMatrix("b", b, n, k, ldb)
	} else {
		checkMatrix("b", b, k, n, ldb)
	}
	checkMatrix("c", c, m, n, ldc)
}

// checkMatrix panics unless s holds a rows x cols matrix with stride ld.
func checkMatrix[F Float](what string, s []F, rows, cols, ld int) {
	if ld < max(1, cols) || rows > 0 && cols > 0 && len(s) < (rows-1)*ld+cols {
		panic(fmt.Sprintf("gemm: %s of %d values with stride %d cannot hold %d x %d", what, len(s), ld, rows, cols))
	}
}
