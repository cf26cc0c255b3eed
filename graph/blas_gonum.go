//go:build !openblas

package graph

const blasBackend = "gonum (pure Go)"

// tileGemm makes Gemm cut products into tiles gonum runs serially.
const tileGemm = true
