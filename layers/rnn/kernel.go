package rnn

import (
	"github.com/rtnlab/rtn/graph"
)

// The plain-Go step kernels of the cells (graph.StepKernel) share these
// row helpers; a batch of rows is one row-major [batch, width] slice.

// fillRows sets every row of dst ([rows, len(v)]) to v.
func fillRows[F graph.Float](dst, v []F) {
	for r := 0; r < len(dst); r += len(v) {
		copy(dst[r:r+len(v)], v)
	}
}

// addRows adds v to every row of dst ([rows, len(v)]).
func addRows[F graph.Float](dst, v []F) {
	for r := 0; r < len(dst); r += len(v) {
		row := dst[r : r+len(v)]
		for j, b := range v {
			row[j] += b
		}
	}
}

// addColSums adds the column sums of src ([rows, len(dst)]) into dst, row
// by row.
func addColSums[F graph.Float](dst, src []F) {
	for r := 0; r < len(src); r += len(dst) {
		for j, v := range src[r : r+len(dst)] {
			dst[j] += v
		}
	}
}

// learnedStateBack adds the batch sum of g into the gradient of the
// initial-state parameter name.
func learnedStateBack[F graph.Float](grads graph.Grads[F], name string, g []F) {
	addColSums(grads.Data(name), g)
}
