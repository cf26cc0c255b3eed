//go:build openblas

package graph

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/netlib/blas/netlib"
)

// With -tags openblas, float32 products (Sgemm) run on OpenBLAS too.
func init() { blas32.Use(netlib.Implementation{}) }
