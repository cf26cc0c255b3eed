package rnn

import (
	"math"

	"github.com/rtnlab/rtn/params"
)

// The plain-Go step kernels of the cells (graph.StepKernel) share these
// row helpers; a batch of rows is one row-major [batch, width] slice.

// fillRows sets every row of dst ([rows, len(v)]) to v.
func fillRows(dst, v []float64) {
	for r := 0; r < len(dst); r += len(v) {
		copy(dst[r:r+len(v)], v)
	}
}

// addRows adds v to every row of dst ([rows, len(v)]).
func addRows(dst, v []float64) {
	for r := 0; r < len(dst); r += len(v) {
		row := dst[r : r+len(v)]
		for j, b := range v {
			row[j] += b
		}
	}
}

// addColSums adds the column sums of src ([rows, len(dst)]) into dst, row
// by row.
func addColSums(dst, src []float64) {
	for r := 0; r < len(src); r += len(dst) {
		for j, v := range src[r : r+len(dst)] {
			dst[j] += v
		}
	}
}

// learnedStateBack adds the batch sum of g into the gradient of the
// initial-state parameter name.
func learnedStateBack(grads *params.Params, name string, g []float64) {
	addColSums(grads.Data(name), g)
}

// sigmoid is 1/(1 + e^-x).
func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
