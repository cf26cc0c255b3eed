package graph

import (
	"slices"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// reshapeKernel is a reshape that copies. gorgonia's Reshape returns a view
// that shares memory with its input, and its in-place scheduling does not
// know it: a later in-place op on the view writes into the input, which for
// a parameter corrupts the parameter itself on every run (see
// TestDefectReshapeWritesThrough). This kernel returns fresh memory, and its
// gradient is the same copy in reverse.
func reshapeKernel(to []int) Kernel {
	cp := func(in [][]float64, out []float64) error { copy(out, in[0]); return nil }
	return Kernel{
		Name:    "rtn.Reshape",
		Out:     slices.Clone(to),
		Forward: cp,
		Backward: func(_ [][]float64, _, dy []float64, grads [][]float64) error {
			copy(grads[0], dy)
			return nil
		},
	}
}

// reshape is the copying reshape of x to shape.
func reshape(x *G.Node, shape ...int) (*G.Node, error) {
	to := tensor.Shape(shape)
	if to.TotalSize() != x.Shape().TotalSize() {
		return nil, errors.Errorf("cannot reshape %v to %v", x.Shape(), to)
	}
	if err := float64Node(x); err != nil {
		return nil, err
	}
	return G.ApplyOp(&fusedOp{k: reshapeKernel(shape), in: []tensor.Shape{x.Shape().Clone()}}, x)
}
