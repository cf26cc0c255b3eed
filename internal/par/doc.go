// Package par cuts work over the cores GOMAXPROCS allows: the blocks of a
// matrix product of package gemm (Run) and the rows of a step's
// elementwise work in the rnn kernels (Rows: activations and their
// derivatives, one batch row after another, which are independent, so the
// results do not depend on the cut). The parts go to one pool of
// goroutines that live for the process; nothing is allocated per call.
// A part must not itself call Run or Rows: the pool's workers would wait
// on parts no worker is left to take.
package par
