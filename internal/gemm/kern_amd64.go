//go:build amd64 && !purego

package gemm

import "unsafe"

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

// kern4x12Put and kern4x24Put are kern4x12 and kern4x24 writing the block
// into c instead of adding it.
//
//go:noescape
func kern4x12Put(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)

//go:noescape
func kern4x24Put(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)

// kern runs the kernel of F: kern4x12 or kern4x24, or, with put, the one
// that writes c.
func kern[F Float](put bool, k int, a *F, lda int, b *F, ldb int, c *F, ldc int) {
	a32, b32, c32 := (*float32)(unsafe.Pointer(a)), (*float32)(unsafe.Pointer(b)), (*float32)(unsafe.Pointer(c))
	a64, b64, c64 := (*float64)(unsafe.Pointer(a)), (*float64)(unsafe.Pointer(b)), (*float64)(unsafe.Pointer(c))
	switch {
	case is32[F]() && put:
		kern4x24Put(k, a32, lda, b32, ldb, c32, ldc)
	case is32[F]():
		kern4x24(k, a32, lda, b32, ldb, c32, ldc)
	case put:
		kern4x12Put(k, a64, lda, b64, ldb, c64, ldc)
	default:
		kern4x12(k, a64, lda, b64, ldb, c64, ldc)
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
