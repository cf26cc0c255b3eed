package graph

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rtnlab/rtn/params"
)

// FusedCell is a Cell that also has its step written in plain Go. A cell
// implements it to skip gorgonia's machinery on the hot path: when a cell
// has a kernel, layers.Problem runs it with FusedRecurrence instead of the
// compiled graphs of Recurrence (ProblemConfig.Generic forces the graphs).
// The kernel must compute the same function as the cell's Step and
// InitialState, with the same parameters; a test per cell checks values
// and gradients of both executors against each other.
type FusedCell interface {
	Cell
	// StepKernel returns the cell's step for a batch size, with every
	// workspace it needs allocated. It reads the parameters from the set
	// the cell was built with at every call, so optimizer updates are seen.
	StepKernel(batch int) StepKernel
}

// StepKernel is one step of a recurrent cell and its vector-Jacobian
// product on raw row-major []float64, for one batch size. A state is one
// slice of batch*size values per entry of the cell's StateSizes. Calls
// allocate nothing: the kernel keeps its scratch space, and what a step's
// backward pass needs is written to a cache slice the executor owns (one
// per stored step, CacheSize values each).
//
// A StepKernel is not safe for concurrent use.
type StepKernel interface {
	// Params lists the names of the parameters the kernel reads and
	// differentiates; a gradient set passed to Backward has each of them.
	Params() []string
	// CacheSize is the number of values one step keeps for its backward
	// pass.
	CacheSize() int
	// InitialState writes the state at t = 0 into state.
	InitialState(state [][]float64)
	// InitialStateBack adds into grads the gradient of the initial
	// state's parameters given g, the gradient reaching the initial state.
	InitialStateBack(g [][]float64, grads *params.Params)
	// Forward writes into out the state after one step from x
	// ([batch*InputSize]) and the state in, and into cache what Backward
	// needs (out may not be kept by the executor).
	Forward(x []float64, in, out [][]float64, cache []float64)
	// Backward is the step's vector-Jacobian product: given the step's x,
	// input state, cache and gout, the gradient reaching its output state
	// (which it may overwrite), it adds the parameters' gradients into
	// grads and writes the gradient reaching the input state into gin.
	Backward(x []float64, in [][]float64, cache []float64, gout, gin [][]float64, grads *params.Params)
}

// HeadKernel is a Head in plain Go for one batch size: the loss of one
// step from state 0 of the cell (h: [batch*H]) and the head's inputs
// (aux, in the order the Head returns them), and its vector-Jacobian
// product. Like StepKernel it allocates nothing per call.
type HeadKernel interface {
	// Params lists the names of the parameters the head differentiates.
	Params() []string
	// CacheSize is the number of values one step keeps for Backward.
	CacheSize() int
	// Forward returns the step's loss and writes into cache what Backward
	// needs.
	Forward(h []float64, aux [][]float64, cache []float64) float64
	// Backward adds the gradient of the step's loss with respect to h into
	// gh and the parameters' gradients into grads.
	Backward(h []float64, aux [][]float64, cache []float64, gh []float64, grads *params.Params)
}

// Gemm sets c = alpha op(a) op(b) + beta c for row-major matrices, op(a)
// [m, k], op(b) [k, n], c [m, n], where op transposes when its flag is set
// (a is then stored [k, m], b [n, k]); lda, ldb, ldc are the row strides as
// stored. It calls blas64's Dgemm, so -tags openblas runs it on OpenBLAS.
// On gonum's pure-Go BLAS it cuts the product into tiles small enough
// that gonum computes each on the calling goroutine: gonum would
// otherwise start goroutines (and allocate) for every product above 4
// blocks of 64. Each entry of c is summed in the same order either way.
func Gemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	impl := blas64.Implementation()
	if !tileGemm {
		impl.Dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	const rows, cols = 64, 3 * 64 // 3 of gonum's 64x64 blocks: under its parallel threshold of 4
	for i := 0; i < m; i += rows {
		mi := min(rows, m-i)
		ai := a[i:]
		if !transA {
			ai = a[i*lda:]
		}
		for j := 0; j < n; j += cols {
			nj := min(cols, n-j)
			bj := b[j:]
			if transB {
				bj = b[j*ldb:]
			}
			impl.Dgemm(ta, tb, mi, nj, k, alpha, ai, lda, bj, ldb, beta, c[i*ldc+j:], ldc)
		}
	}
}
