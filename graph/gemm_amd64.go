//go:build amd64 && !openblas && !purego

package graph

import "fmt"

// On amd64 processors with AVX and FMA, Gemm runs on a register-blocked
// kernel in Go assembly (kern4x12) instead of gonum's Dgemm, whose pure-Go
// loops are three to five times slower: op(a) and op(b) are read in
// panels of 4 rows and 12 columns, each panel either straight from the
// matrix when its layout allows (the columns of a transposed a, the rows
// of b) or copied into a packed buffer, and every 4x12 block of c is
// summed by fused multiply-adds over chunks of gemmKC terms. The terms of
// each entry are summed in the same order whatever m, n, the strides and
// the entry's place, so a row's result does not depend on the rows
// computed with it.
func init() {
	if hasAVXFMA() {
		fastGemm = gemmFMA
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
	gemmMR = 4   // rows of a panel of op(a)
	gemmNR = 12  // columns of a panel of op(b)
	gemmKC = 256 // terms summed per pass over c
	gemmMC = 96  // rows of op(a) packed at once
	gemmNC = 480 // columns of op(b) packed at once
)

// gemmBuf holds the packed panels and an edge block of c.
type gemmBuf struct {
	a, b []float64
	edge [gemmMR * gemmNR]float64
}

// gemmBufs keeps the buffers of finished calls, up to 16, for the next
// ones: once warm, Gemm allocates only when more than 16 calls run at once.
// (A sync.Pool would drop them at garbage collections, and at random under
// the race detector.)
var gemmBufs = make(chan *gemmBuf, 16)

// getGemmBuf takes a kept buffer, or makes one.
func getGemmBuf() *gemmBuf {
	select {
	case b := <-gemmBufs:
		return b
	default:
		return &gemmBuf{a: make([]float64, gemmMC*gemmKC), b: make([]float64, gemmKC*gemmNC)}
	}
}

// putGemmBuf keeps b unless 16 buffers are kept already.
func putGemmBuf(b *gemmBuf) {
	select {
	case gemmBufs <- b:
	default:
	}
}

// gemmFMA is Gemm on kern4x12.
func gemmFMA(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
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
	buf := getGemmBuf()
	defer putGemmBuf(buf)
	directA := transA && alpha == 1 // alpha scales op(a) as it is packed
	for p := 0; p < k; p += gemmKC {
		kc := min(gemmKC, k-p)
		for j := 0; j < n; j += gemmNC {
			nc := min(gemmNC, n-j)
			for jr := 0; jr < nc; jr += gemmNR {
				if transB || nc-jr < gemmNR {
					packB(buf.b[jr*kc:(jr+gemmNR)*kc], transB, b, ldb, p, kc, j+jr, min(gemmNR, nc-jr))
				}
			}
			for i := 0; i < m; i += gemmMC {
				mc := min(gemmMC, m-i)
				for ir := 0; ir < mc; ir += gemmMR {
					if !directA || mc-ir < gemmMR {
						packA(buf.a[ir*kc:(ir+gemmMR)*kc], transA, alpha, a, lda, i+ir, min(gemmMR, mc-ir), p, kc)
					}
				}
				for jr := 0; jr < nc; jr += gemmNR {
					pb, ldpb := &buf.b[jr*kc], gemmNR
					if !transB && nc-jr >= gemmNR {
						pb, ldpb = &b[p*ldb+j+jr], ldb
					}
					for ir := 0; ir < mc; ir += gemmMR {
						pa, ldpa := &buf.a[ir*kc], gemmMR
						if directA && mc-ir >= gemmMR {
							pa, ldpa = &a[p*lda+i+ir], lda
						}
						rows, cols := min(gemmMR, mc-ir), min(gemmNR, nc-jr)
						at := (i+ir)*ldc + j + jr
						if rows == gemmMR && cols == gemmNR {
							kern4x12(kc, pa, ldpa, pb, ldpb, &c[at], ldc)
							continue
						}
						for r := range rows {
							copy(buf.edge[r*gemmNR:r*gemmNR+cols], c[at+r*ldc:at+r*ldc+cols])
						}
						kern4x12(kc, pa, ldpa, pb, ldpb, &buf.edge[0], gemmNR)
						for r := range rows {
							copy(c[at+r*ldc:at+r*ldc+cols], buf.edge[r*gemmNR:r*gemmNR+cols])
						}
					}
				}
			}
		}
	}
}

// checkGemm panics unless a, b and c hold matrices of the shapes Gemm is
// given: the kernel reads and writes through pointers, unchecked.
func checkGemm(transA, transB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("graph: Gemm of negative size %d x %d x %d", m, n, k))
	}
	check := func(what string, s []float64, rows, cols, ld int) {
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
func packA(dst []float64, transA bool, alpha float64, a []float64, lda, i, rows, p, kc int) {
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
// into dst as [kc][gemmNR], zero past the last column.
func packB(dst []float64, transB bool, b []float64, ldb, p, kc, j, cols int) {
	dst = dst[:kc*gemmNR]
	if cols < gemmNR {
		clear(dst)
	}
	if !transB {
		for l := range kc {
			copy(dst[l*gemmNR:], b[(p+l)*ldb+j:(p+l)*ldb+j+cols])
		}
		return
	}
	for q := range cols {
		row := b[(j+q)*ldb+p : (j+q)*ldb+p+kc]
		for l, v := range row {
			dst[l*gemmNR+q] = v
		}
	}
}
