// Package gemm is the general matrix product of the plain-Go executors on
// amd64 processors with AVX and FMA: register-blocked kernels in Go
// assembly instead of gonum's Dgemm and Sgemm, whose pure-Go loops are
// three to five times slower.
//
// The kernels (kern_amd64.s) keep a block of 6 rows and two vectors of
// columns of c (6 x 8 float64s, 6 x 16 float32s) in twelve YMM registers,
// or of 4 rows for the last panels of a block, and sum its terms by fused
// multiply-adds over chunks of gemmKC terms. op(a) and op(b) are copied
// into panels in the kernels' order (4x4 and 8x8 register transposes in
// pack_amd64.s where the copy transposes), a block of gemmMC rows of op(a)
// at a time, kept in the second-level cache, and gemmNC columns of op(b);
// a panel used only a few times is read in place instead, with the
// matrix's stride (op(a) when c has few columns, the rows of b when c has
// few rows). The terms of each entry are summed in the same order whatever
// m, n, the strides, the panels and the entry's place, so a row's result
// does not depend on the rows computed with it.
//
// Package graph runs its products here (graph.GemmOf) unless built with
// -tags openblas; the package is separate so that the OpenBLAS build,
// whose cgo forbids Go assembly in package graph, can still time it.
package gemm
