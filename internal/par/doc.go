// Package par runs the rows of a step's elementwise work (activations and
// their derivatives, one batch row after another) on the cores GOMAXPROCS
// allows, beside the matrix products that package gemm cuts the same way.
// Rows are independent, so the results do not depend on the cut; the work
// is handed to goroutines that live for the process, and nothing is
// allocated per call.
package par
