//go:build amd64 && !openblas && !purego

package graph

import (
	"fmt"
	"unsafe"
)

// On amd64 processors with AVX and FMA, Gemm runs on register-blocked
// kernels in Go assembly (kern4x12 for float64, kern4x24 for float32)
// instead of gonum's Dgemm and Sgemm, whose pure-Go loops are three to
// five times slower: op(a) and op(b) are read in panels of 4 rows and
// three vectors of columns (12 float64s, 24 float32s), each panel either
// straight from the matrix when its layout allows (the columns of a
// transposed a, the rows of b) or copied into a packed buffer, and every
// 4-row block of c is summed by fused multiply-adds over chunks of gemmKC
// terms. The terms of each entry are summed in the same order whatever m,
// n, the strides and the entry's place, so a row's result does not depend
// on the rows computed with it.
func init() {
	if hasAVXFMA() {
		fastGemm64 = gemmFMA[float64]
		fastGemm32 = gemmFMA[float32]
	}
}

// cpuid executes CPUID with EAX = leaf and ECX = sub.
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// xgetbv0 returns the low half of extended control register 0.
func xgetbv0() (eax uint32)

// kern4x12 adds to the 4x12 block of c at c (row stride ldc) the product,
// over k >= 1 terms, of the 4-row panel whose entry (row r, term l) is at
// a[l*lda+r] and the 12-column panel whose entry (term l, column j) is at
// b[l*ldb+j], all offsets in float64s.
//
//go:noescape
func kern4x12(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)

// kern4x24 is kern4x12 in float32, on a 4x24 block.
//
//go:noescape
func kern4x24(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)

// kern runs the kernel of F: kern4x12 or kern4x24.
func kern[F Float](k int, a *F, lda int, b *F, ldb int, c *F, ldc int) {
	if is32[F]() {
		kern4x24(k, (*float32)(unsafe.Pointer(a)), lda, (*float32)(unsafe.Pointer(b)), ldb, (*float32)(unsafe.Pointer(c)), ldc)
		return
	}
	kern4x12(k, (*float64)(unsafe.Pointer(a)), lda, (*float64)(unsafe.Pointer(b)), ldb, (*float64)(unsafe.Pointer(c)), ldc)
}

// hasAVXFMA reports whether the processor has AVX and FMA and the
// operating system saves the YMM registers.
func hasAVXFMA() bool {
	if leaves, _, _, _ := cpuid(0, 0); leaves < 1 {
		return false
	}
	_, _, ecx, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	return xgetbv0()&6 == 6 // XMM and YMM state
}

const (
	gemmMR      = 4   // rows of a panel of op(a)
	gemmNRBytes = 96  // bytes of a row of a panel of op(b): three YMM registers
	gemmKC      = 256 // terms summed per pass over c
	gemmMC      = 96  // rows of op(a) packed at once
	gemmNC      = 480 // columns of op(b) packed at once, a multiple of both panel widths
)

// gemmNR is the number of columns of a panel of op(b) in F: 12 float64s
// or 24 float32s.
func gemmNR[F Float]() int {
	var z F
	return gemmNRBytes / int(unsafe.Sizeof(z))
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

// getGemmBuf takes a kept buffer, or makes one.
func getGemmBuf[F Float]() *gemmBuf[F] {
	select {
	case b := <-gemmBufs[F]():
		return b
	default:
		return &gemmBuf[F]{a: make([]F, gemmMC*gemmKC), b: make([]F, gemmKC*gemmNC)}
	}
}

// putGemmBuf keeps b unless 16 buffers are kept already.
func putGemmBuf[F Float](b *gemmBuf[F]) {
	select {
	case gemmBufs[F]() <- b:
	default:
	}
}

// gemmFMA is Gemm on kern.
func gemmFMA[F Float](transA, transB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	checkGemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		switch beta {
		case 0:
			clear(row)
		case 1:
		default:
			for j := range row {
				row[j] *= beta
			}
		}
	}
	if k == 0 || alpha == 0 {
		return
	}
	buf := getGemmBuf[F]()
	defer putGemmBuf(buf)
	nr := gemmNR[F]()
	directA := transA && alpha == 1 // alpha scales op(a) as it is packed
	for p := 0; p < k; p += gemmKC {
		kc := min(gemmKC, k-p)
		for j := 0; j < n; j += gemmNC {
			nc := min(gemmNC, n-j)
			for jr := 0; jr < nc; jr += nr {
				if transB || nc-jr < nr {
					packB(buf.b[jr*kc:(jr+nr)*kc], nr, transB, b, ldb, p, kc, j+jr, min(nr, nc-jr))
				}
			}
			for i := 0; i < m; i += gemmMC {
				mc := min(gemmMC, m-i)
				for ir := 0; ir < mc; ir += gemmMR {
					if !directA || mc-ir < gemmMR {
						packA(buf.a[ir*kc:(ir+gemmMR)*kc], transA, alpha, a, lda, i+ir, min(gemmMR, mc-ir), p, kc)
					}
				}
				for jr := 0; jr < nc; jr += nr {
					pb, ldpb := &buf.b[jr*kc], nr
					if !transB && nc-jr >= nr {
						pb, ldpb = &b[p*ldb+j+jr], ldb
					}
					for ir := 0; ir < mc; ir += gemmMR {
						pa, ldpa := &buf.a[ir*kc], gemmMR
						if directA && mc-ir >= gemmMR {
							pa, ldpa = &a[p*lda+i+ir], lda
						}
						rows, cols := min(gemmMR, mc-ir), min(nr, nc-jr)
						at := (i+ir)*ldc + j + jr
						if rows == gemmMR && cols == nr {
							kern(kc, pa, ldpa, pb, ldpb, &c[at], ldc)
							continue
						}
						for r := range rows {
							copy(buf.edge[r*nr:r*nr+cols], c[at+r*ldc:at+r*ldc+cols])
						}
						kern(kc, pa, ldpa, pb, ldpb, &buf.edge[0], nr)
						for r := range rows {
							copy(c[at+r*ldc:at+r*ldc+cols], buf.edge[r*nr:r*nr+cols])
						}
					}
				}
			}
		}
	}
}

// checkGemm panics unless a, b and c hold matrices of the shapes Gemm is
// given: the kernel reads and writes through pointers, unchecked.
func checkGemm[F Float](transA, transB bool, m, n, k int, a []F, lda int, b []F, ldb int, c []F, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("graph: Gemm of negative size %d x %d x %d", m, n, k))
	}
	check := func(what string, s []F, rows, cols, ld int) {
		if ld < max(1, cols) || rows > 0 && cols > 0 && len(s) < (rows-1)*ld+cols {
			panic(fmt.Sprintf("graph: Gemm %s of %d values with stride %d cannot hold %d x %d", what, len(s), ld, rows, cols))
		}
	}
	if transA {
		check("a", a, k, m, lda)
	} else {
		check("a", a, m, k, lda)
	}
	if transB {
		check("b", b, n, k, ldb)
	} else {
		check("b", b, k, n, ldb)
	}
	check("c", c, m, n, ldc)
}

// packA writes the panel of rows i..i+rows of alpha op(a) over terms
// p..p+kc into dst as [kc][gemmMR], zero past the last row.
func packA[F Float](dst []F, transA bool, alpha F, a []F, lda, i, rows, p, kc int) {
	dst = dst[:kc*gemmMR]
	if rows < gemmMR {
		clear(dst)
	}
	if transA {
		for l := range kc {
			copy(dst[l*gemmMR:l*gemmMR+rows], a[(p+l)*lda+i:(p+l)*lda+i+rows])
		}
	} else {
		for r := range rows {
			row := a[(i+r)*lda+p : (i+r)*lda+p+kc]
			for l, v := range row {
				dst[l*gemmMR+r] = v
			}
		}
	}
	if alpha != 1 {
		for l := range dst {
			dst[l] *= alpha
		}
	}
}

// packB writes the panel of columns j..j+cols of op(b) over terms p..p+kc
// into dst as [kc][nr], zero past the last column.
func packB[F Float](dst []F, nr int, transB bool, b []F, ldb, p, kc, j, cols int) {
	dst = dst[:kc*nr]
	if cols < nr {
		clear(dst)
	}
	if !transB {
		for l := range kc {
			copy(dst[l*nr:], b[(p+l)*ldb+j:(p+l)*ldb+j+cols])
		}
		return
	}
	q := 0
	for ; q+4 <= cols; q += 4 { // four columns at a time: one short write per term
		r0 := b[(j+q)*ldb+p:][:kc]
		r1 := b[(j+q+1)*ldb+p:][:kc]
		r2 := b[(j+q+2)*ldb+p:][:kc]
		r3 := b[(j+q+3)*ldb+p:][:kc]
		for l := range kc {
			d := dst[l*nr+q:][:4]
			d[0], d[1], d[2], d[3] = r0[l], r1[l], r2[l], r3[l]
		}
	}
	for ; q < cols; q++ {
		row := b[(j+q)*ldb+p:][:kc]
		for l, v := range row {
			dst[l*nr+q] = v
		}
	}
}
