package graph

// BLASBackend names the BLAS every dense kernel runs on: gonum's pure-Go
// implementation by default, with Gemm (the products of the plain-Go step
// kernels) on a Go assembly kernel where the processor has AVX and FMA;
// the system OpenBLAS when built with -tags openblas (which needs
// libopenblas-dev and cgo).
func BLASBackend() string {
	if fastGemm64 != nil {
		return blasBackend + ", Gemm in Go assembly (AVX+FMA)"
	}
	return blasBackend
}
