package graph

// FusedCell is a Cell that also has its step written in plain Go. A cell
// implements it to skip gorgonia's machinery on the hot path: when a cell
// has a kernel, layers.Problem runs it with FusedRecurrence instead of the
// compiled graphs of Recurrence (ProblemConfig.Executor chooses; a cell
// without a kernel gets one from CompileTape).
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

// FusedCell32 is a FusedCell whose kernel also runs in float32, reading
// its parameters through w (float32 copies of the float64 parameters).
type FusedCell32 interface {
	FusedCell
	// StepKernel32 is StepKernel in float32.
	StepKernel32(batch int, w Weights[float32]) StepKernelOf[float32]
}

// StepKernel is a cell's step in float64, the parameters' type.
type StepKernel = StepKernelOf[float64]

// StepKernelOf is one step of a recurrent cell and its vector-Jacobian
// product on raw row-major []F, for one batch size. A state is one
// slice of batch*size values per entry of the cell's StateSizes. Calls
// allocate nothing: the kernel keeps its scratch space, and what a step's
// backward pass needs is written to a cache slice the executor owns (one
// per stored step, CacheSize values each).
//
// The part of a step that depends on x_t only (x_t W + b, typically) is
// computed for a block of steps at once by Project, one matrix product
// over all their rows, as PyTorch does; each row's result must not depend
// on the block, so that recomputing a block gives the same bits.
//
// A Kernel is not safe for concurrent use.
type StepKernelOf[F Float] interface {
	// Params lists the names of the parameters the kernel reads and
	// differentiates; a gradient set passed to Backward has each of them.
	Params() []string
	// CacheSize is the number of values one step keeps for its backward
	// pass.
	CacheSize() int
	// ProjectionSize is the number of values per row of the input
	// projection (0 for a cell without one).
	ProjectionSize() int
	// Project writes the input projection of n steps into proj
	// ([n*batch, ProjectionSize]) from their inputs xs ([n*batch,
	// InputSize], step after step).
	Project(xs, proj []F)
	// InitialState writes the state at t = 0 into state.
	InitialState(state [][]F)
	// InitialStateBack adds into grads the gradient of the initial
	// state's parameters given g, the gradient reaching the initial state.
	InitialStateBack(g [][]F, grads Grads[F])
	// Forward writes into out the state after one step from x
	// ([batch*InputSize]), its projection proj ([batch*ProjectionSize])
	// and the state in, and into cache what Backward needs.
	Forward(x, proj []F, in, out [][]F, cache []F)
	// Backward is the step's vector-Jacobian product: given the step's x,
	// input state, cache and gout, the gradient reaching its output state
	// (which it may overwrite), it adds the parameters' gradients into
	// grads and writes the gradient reaching the input state into gin.
	// A run calls it once per step, from the last step down to the first,
	// after InitialState and before InitialStateBack; a kernel may gather
	// several steps before it adds their gradients (the rnn kernels add
	// their weights' a window of steps at a time), so a run's gradients
	// are complete only after InitialStateBack.
	Backward(x []F, in [][]F, cache []F, gout, gin [][]F, grads Grads[F])
}

// NoisyKernel is implemented by step kernels with random ops
// (Builder.Dropout): FusedRecurrence switches their noise for each run and
// sets the time step before each Forward and Backward, so a step
// recomputed from a checkpoint draws the same noise.
type NoisyKernel interface {
	// SetNoise switches the random ops on, with the training batch's
	// seed, or off (the identity).
	SetNoise(seed uint64, on bool)
	// SetStep sets the time step (from 0) that the next Forward or
	// Backward computes.
	SetStep(t int)
}

// HeadKernel is a Head in plain Go in float64.
type HeadKernel = HeadKernelOf[float64]

// HeadKernelOf is a Head in plain Go for one batch size and float type: the losses of a
// block of n steps from state 0 of the cell after each (h: [n*batch, H],
// step after step) and the head's inputs (aux[t], in the order the Head
// returns them), and their vector-Jacobian products. The matrix products
// span the whole block; each row's result must not depend on the block.
// The targets and masks in aux stay float64; the losses are returned in
// float64. Like StepKernelOf it allocates nothing per call.
type HeadKernelOf[F Float] interface {
	// Params lists the names of the parameters the head differentiates.
	Params() []string
	// CacheSize is the number of values one step keeps for the backward
	// pass; the caches of a block are contiguous.
	CacheSize() int
	// Forward writes the loss of step t of the block into loss[t] and what
	// the backward pass needs into cache (n slots).
	Forward(h []F, aux [][][]float64, cache []F, loss []float64)
	// InputGrad writes into gh ([n*batch, H]) the gradient of each step's
	// loss with respect to its h, from the block's caches.
	InputGrad(cache []F, gh []F)
	// ParamGrad adds the gradient of one step's loss with respect to the
	// parameters into grads, from the step's h ([batch*H]) and cache.
	ParamGrad(h []F, cache []F, grads Grads[F])
}

// Gemm sets c = alpha op(a) op(b) + beta c for row-major matrices, op(a)
// [m, k], op(b) [k, n], c [m, n], where op transposes when its flag is set
// (a is then stored [k, m], b [n, k]); lda, ldb, ldc are the row strides as
// stored. With -tags openblas it calls OpenBLAS. In the default build it
// runs on a kernel in Go assembly where the processor has AVX and FMA
// (amd64; see internal/gemm), else on gonum's Dgemm, cutting the product
// into tiles small enough that gonum computes each on the calling
// goroutine: gonum would otherwise start goroutines (and allocate) for
// every product above 4 blocks of 64. In the default build each entry of
// c is summed in the same order however the product is cut, so a row's
// result does not depend on the other rows of a (OpenBLAS does not promise
// it).
func Gemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	GemmOf(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
