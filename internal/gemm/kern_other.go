//go:build !amd64 || purego

package gemm

// available is false: the kernels are amd64 assembly.
const available = false

// kern is never called where the kernels do not run.
func kern[F Float](put, byRows bool, kr, k int, a *F, lda int, b *F, ldb int, c *F, ldc, rows int) {
	panic("gemm: no assembly kernel on this platform")
}

// packT writes nothing: the routines are amd64 assembly.
func packT[F Float](dst []F, rows int, src []F, ld, k int) int { return 0 }

// scatter is never called where the kernels do not run.
func scatter[F Float](dst *F, stride int, src *F, w, n int) {
	panic("gemm: no assembly kernel on this platform")
}
