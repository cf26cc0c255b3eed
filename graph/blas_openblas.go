//go:build openblas

package graph

// #cgo LDFLAGS: -lopenblas
// void openblas_set_num_threads(int);
import "C"

import (
	"os"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
	G "gorgonia.org/gorgonia"
)

// Built with -tags openblas, every dense kernel (gonum's, and gorgonia's
// through its tensor package) calls the system OpenBLAS through cgo. It
// runs on one thread unless OPENBLAS_NUM_THREADS says otherwise: rtn's
// products are small (a batch of rows per time step), OpenBLAS's threads
// spin against each other and against parallel runs, and rtn spreads work
// over cores by running jobs side by side.
func init() {
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		C.openblas_set_num_threads(1)
	}
	blas64.Use(netlib.Implementation{})
	G.Use(netlib.Implementation{})
}

const blasBackend = "openblas (cgo, -tags openblas)"

// RowsIndependent reports whether each row of a Gemm product has the same
// bits whatever other rows it is computed with: true in the default and
// purego builds, false with -tags openblas, whose kernels depend on the
// product's size.
const RowsIndependent = false

// tileGemm is false: OpenBLAS takes whole products.
const tileGemm = false
