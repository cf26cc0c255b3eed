// Package vec holds the small vector kernels that rtn's numerical
// packages share, written so that their results are the same bits
// whichever path computes them: Axpy and Dot (spectral, wfa), and the
// elementwise loops of graph's tape (Add, Sub, Mul, MulAdd, AddTo, Scale,
// ScaleAdd), in AVX assembly on amd64, one vector of 4 float64s or 8
// float32s at a time, and in plain Go elsewhere and for the last values
// of a row. Each value of an elementwise loop is computed by the same IEEE
// operations in the same order as the plain loop (a product and a sum,
// never a fused multiply-add), so the results have the plain loop's bits;
// only the payload of a NaN may differ. The assembly is here rather than
// in graph because graph's OpenBLAS build uses cgo, which forbids Go
// assembly in the same package.
package vec
