//go:build amd64 && !purego

package gemm

import "unsafe"

// cpuid executes CPUID with EAX = leaf and ECX = sub.
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// xgetbv0 returns the low half of extended control register 0.
func xgetbv0() (eax uint32)

// kern6x8 adds to the first rows (at most 6) rows of the 6x8 block of c
// at c (row stride ldc) the product, over k >= 1 terms, of the panel of
// op(a) whose entry (row r, term l) is at a[l*lda+r] and the 8-column
// panel whose entry (term l, column j) is at b[l*ldb+j], all offsets in
// float64s. kern4x8 is the same on a 4x8 block (rows at most 4), kern6x16
// and kern4x16 on 6x16 and 4x16 blocks of float32s. The Rows kernels read
// entry (r, l) of the panel of a at a[r*lda+l]; the Put kernels write the
// block into c instead of adding it.
//
//go:noescape
func kern6x8(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)

//go:noescape
func kern6x8Put(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)

//go:noescape
func kern6x8Rows(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)

//go:noescape
func kern6x8RowsPut(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)

//go:noescape
func kern4x8(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)

//go:noescape
func kern4x8Put(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)

//go:noescape
func kern4x8Rows(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)

//go:noescape
func kern4x8RowsPut(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)

//go:noescape
func kern6x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)

//go:noescape
func kern6x16Put(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)

//go:noescape
func kern6x16Rows(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)

//go:noescape
func kern6x16RowsPut(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)

//go:noescape
func kern4x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)

//go:noescape
func kern4x16Put(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)

//go:noescape
func kern4x16Rows(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)

//go:noescape
func kern4x16RowsPut(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)

// kern runs the kernel of F on a block of kr rows (6, or 4), of which it
// stores the first rows, reading a by rows (byRows) or by columns, adding
// the block into c or, with put, writing it.
func kern[F Float](put, byRows bool, kr, k int, a *F, lda int, b *F, ldb int, c *F, ldc, rows int) {
	if is32[F]() {
		kern32(put, byRows, kr, k, (*float32)(unsafe.Pointer(a)), lda, (*float32)(unsafe.Pointer(b)), ldb, (*float32)(unsafe.Pointer(c)), ldc, rows)
		return
	}
	kern64(put, byRows, kr, k, (*float64)(unsafe.Pointer(a)), lda, (*float64)(unsafe.Pointer(b)), ldb, (*float64)(unsafe.Pointer(c)), ldc, rows)
}

// kern64 is kern in float64.
func kern64(put, byRows bool, kr, k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc, rows int) {
	switch {
	case kr == 4 && byRows && put:
		kern4x8RowsPut(k, a, lda, b, ldb, c, ldc, rows)
	case kr == 4 && byRows:
		kern4x8Rows(k, a, lda, b, ldb, c, ldc, rows)
	case kr == 4 && put:
		kern4x8Put(k, a, lda, b, ldb, c, ldc, rows)
	case kr == 4:
		kern4x8(k, a, lda, b, ldb, c, ldc, rows)
	case byRows && put:
		kern6x8RowsPut(k, a, lda, b, ldb, c, ldc, rows)
	case byRows:
		kern6x8Rows(k, a, lda, b, ldb, c, ldc, rows)
	case put:
		kern6x8Put(k, a, lda, b, ldb, c, ldc, rows)
	default:
		kern6x8(k, a, lda, b, ldb, c, ldc, rows)
	}
}

// kern32 is kern in float32.
func kern32(put, byRows bool, kr, k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc, rows int) {
	switch {
	case kr == 4 && byRows && put:
		kern4x16RowsPut(k, a, lda, b, ldb, c, ldc, rows)
	case kr == 4 && byRows:
		kern4x16Rows(k, a, lda, b, ldb, c, ldc, rows)
	case kr == 4 && put:
		kern4x16Put(k, a, lda, b, ldb, c, ldc, rows)
	case kr == 4:
		kern4x16(k, a, lda, b, ldb, c, ldc, rows)
	case byRows && put:
		kern6x16RowsPut(k, a, lda, b, ldb, c, ldc, rows)
	case byRows:
		kern6x16Rows(k, a, lda, b, ldb, c, ldc, rows)
	case put:
		kern6x16Put(k, a, lda, b, ldb, c, ldc, rows)
	default:
		kern6x16(k, a, lda, b, ldb, c, ldc, rows)
	}
}

// packT8x64, packT6x64, packT16x32 and packT6x32 write the panel of R
// rows (the number in their names) of src, stride ld, over its first k
// terms, term by term: dst[l*R+r] = src[r*ld+l]. k is a multiple of 4
// (float64) or 8 (float32).
//
//go:noescape
func packT8x64(dst, src *float64, ld, k int)

//go:noescape
func packT6x64(dst, src *float64, ld, k int)

//go:noescape
func packT16x32(dst, src *float32, ld, k int)

//go:noescape
func packT6x32(dst, src *float32, ld, k int)

// packT writes dst[l*rows+r] = src[r*ld+l] for r < rows, rows gemmMR or
// gemmNR[F](), and l below k rounded down to a multiple of the block the
// routines transpose (4 float64s, 8 float32s); it returns the terms it
// wrote.
func packT[F Float](dst []F, rows int, src []F, ld, k int) int {
	if is32[F]() {
		k &^= 7
	} else {
		k &^= 3
	}
	if k == 0 {
		return 0
	}
	d, s := unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0])
	switch {
	case is32[F]() && rows == gemmMR:
		packT6x32((*float32)(d), (*float32)(s), ld, k)
	case is32[F]():
		packT16x32((*float32)(d), (*float32)(s), ld, k)
	case rows == gemmMR:
		packT6x64((*float64)(d), (*float64)(s), ld, k)
	default:
		packT8x64((*float64)(d), (*float64)(s), ld, k)
	}
	return k
}

// scatter64, scatter48 and scatter24 copy n chunks of 64, 48 and 24
// consecutive bytes at src to dst, stride bytes apart.
//
//go:noescape
func scatter64(dst unsafe.Pointer, stride int, src unsafe.Pointer, n int)

//go:noescape
func scatter48(dst unsafe.Pointer, stride int, src unsafe.Pointer, n int)

//go:noescape
func scatter24(dst unsafe.Pointer, stride int, src unsafe.Pointer, n int)

// scatter copies the n chunks of w values (gemmMR, or gemmNR[F]()) at
// src, one after the other, to dst, stride values apart; the caller
// checks that they are in their slices.
func scatter[F Float](dst *F, stride int, src *F, w, n int) {
	size := int(unsafe.Sizeof(*dst))
	d, s := unsafe.Pointer(dst), unsafe.Pointer(src)
	switch w * size {
	case 64:
		scatter64(d, stride*size, s, n)
	case 48:
		scatter48(d, stride*size, s, n)
	default:
		scatter24(d, stride*size, s, n)
	}
}

// available is whether the kernels run here.
var available = hasAVXFMA()

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
