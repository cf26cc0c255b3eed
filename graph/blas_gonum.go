//go:build !openblas

package graph

const blasBackend = "gonum (pure Go)"

// RowsIndependent reports whether each row of a Gemm product has the same
// bits whatever other rows it is computed with: true in the default and
// purego builds, false with -tags openblas, whose kernels depend on the
// product's size.
const RowsIndependent = true

// tileGemm makes Gemm cut products into tiles gonum runs serially.
const tileGemm = true
