// Package gemm is the general matrix product of the plain-Go executors on
// amd64 processors with AVX and FMA: register-blocked kernels in Go
// assembly (kern4x12 for float64, kern4x24 for float32) instead of
// gonum's Dgemm and Sgemm, whose pure-Go loops are three to five times
// slower.
//
// op(a) and op(b) are read in panels of 4 rows and three vectors of
// columns (12 float64s, 24 float32s), each panel either straight from the
// matrix when its layout allows (the columns of a transposed a, the rows
// of b) or copied into a packed buffer, and every 4-row block of c is
// summed by fused multiply-adds over chunks of gemmKC terms. The terms of
// each entry are summed in the same order whatever m, n, the strides and
// the entry's place, so a row's result does not depend on the rows
// computed with it.
//
// Package graph runs its products here (graph.GemmOf) unless built with
// -tags openblas; the package is separate so that the OpenBLAS build,
// whose cgo forbids Go assembly in package graph, can still time it.
package gemm
