//go:build !openblas

package graph

import "github.com/rtnlab/rtn/internal/gemm"

// Where package gemm's assembly kernels run (amd64 with AVX and FMA), Gemm
// and GemmOf run on them instead of gonum's BLAS.
func init() {
	if gemm.Available() {
		fastGemm64 = gemm.Gemm[float64]
		fastGemm32 = gemm.Gemm[float32]
	}
}
