// Package graph is rtn's only door into gorgonia's machinery.
//
// It owns the pieces every model needs and that gorgonia v0.9.18 gets wrong
// or leaves out:
//
//   - Builder, which records the first error of a chain of graph operations
//     so that model code reads top to bottom;
//   - Kernel and Builder.Fused, the one adapter that turns a forward
//     function and its vector-Jacobian product in plain Go into a gorgonia
//     op with a gradient and a hash covering every field (CheckKernel tests
//     one against finite differences); every fused op of rtn goes through
//     it;
//   - numerically safe ops (LogSumExp, LogSoftmax) that replace gorgonia's
//     broken ones;
//   - a compile guard against gorgonia's silent merging of nodes whose
//     32-bit hashes collide;
//   - Machine, a TapeMachine wrapper (let, run, read, gradients, reset);
//   - Builder.Param, which binds a tensor of a params.Params set to a node
//     sharing its memory, so several graphs (a training chunk, an evaluation
//     graph) share one set of values and optimizers update them in place;
//   - the finite-difference checkers: CheckProblem, which checks the
//     gradient a training problem runs (LossGrad, on whatever executor)
//     against its own loss and reports the worst errors and where they
//     are, and CheckGradients and CheckMachineGradients under it;
//   - Cell, one step of a recurrent model written as graph operations, and
//     Recurrence, which compiles that step once (forward, and its
//     vector-Jacobian product) and runs it over sequences of any length
//     with full or truncated backpropagation through time; Unroll builds
//     the whole sequence as one graph, the reference Recurrence is tested
//     against;
//   - FusedCell, StepKernel and HeadKernel, a cell's step and a head in
//     plain Go, and FusedRecurrence, which runs them with Recurrence's
//     semantics and no gorgonia machine on the hot path; Gemm, the matrix
//     product the kernels share (Go assembly on amd64 with AVX and FMA,
//     gonum's BLAS elsewhere, OpenBLAS with -tags openblas);
//   - the tape: every Builder method records what its node computes, and
//     CompileTape compiles a cell's recorded InitialState and Step into a
//     StepKernel, so FusedRecurrence runs a cell without a hand-written
//     kernel too (NewTapeRecurrence). A cell that uses an op outside the
//     record (Builder.Do, Builder.Fused, gorgonia directly) or a tensor of
//     rank above 2 gets ErrNotRecorded, whose message names the call that
//     made the op, and runs on Recurrence;
//   - float32: StepKernelOf, HeadKernelOf and GemmOf are generic over Float
//     (float32 | float64); FusedCell32, NewFusedRecurrence32 and
//     NewTapeRecurrence32 run the plain-Go executors in float32, reading
//     float32 copies of the parameters (Mirror, Weights) and adding the
//     run's gradients, summed in float32 (Grads), into float64 sets.
//
// Parameters, gradient sets and the graphs are float64.
package graph
