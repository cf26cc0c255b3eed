//go:build openblas

package graph

// #cgo LDFLAGS: -lopenblas
import "C"

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
	G "gorgonia.org/gorgonia"
)

// Built with -tags openblas, every dense kernel (gonum's, and gorgonia's
// through its tensor package) calls the system OpenBLAS through cgo.
func init() {
	blas64.Use(netlib.Implementation{})
	G.Use(netlib.Implementation{})
}

const blasBackend = "openblas (cgo, -tags openblas)"

// tileGemm is false: OpenBLAS takes whole products.
const tileGemm = false
