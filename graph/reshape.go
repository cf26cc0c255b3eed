package graph

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// reshapeOp is a reshape that copies. gorgonia's Reshape returns a view
// that shares memory with its input, and its in-place scheduling does not
// know it: a later in-place op on the view writes into the input, which for
// a parameter corrupts the parameter itself on every run (see
// TestDefectReshapeWritesThrough). This op returns fresh memory, and its
// gradient is the same op in reverse.
type reshapeOp struct{ from, to tensor.Shape }

var _ G.SDOp = (*reshapeOp)(nil)

func (op *reshapeOp) Arity() int { return 1 }
func (op *reshapeOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(tensorType(op.from.Dims(), a), tensorType(op.to.Dims(), a))
}
func (op *reshapeOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.to.Clone(), nil }
func (op *reshapeOp) ReturnsPtr() bool                               { return false }
func (op *reshapeOp) CallsExtern() bool                              { return false }
func (op *reshapeOp) OverwritesInput() int                           { return -1 }
func (op *reshapeOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "rtn.Reshape{from=%v, to=%v}", op.from, op.to)
}
func (op *reshapeOp) Hashcode() uint32   { return hashOf(op) }
func (op *reshapeOp) String() string     { return fmt.Sprintf("Reshape%v", op.to) }
func (op *reshapeOp) DiffWRT(int) []bool { return []bool{true} }

func (op *reshapeOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := inputs(op, vals, op.from.TotalSize())
	if err != nil {
		return nil, err
	}
	return newValue(op.to, append([]float64(nil), in[0]...)), nil
}

func (op *reshapeOp) SymDiff(in G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(in) != 1 {
		return nil, errors.Errorf("graph: %v takes 1 input, got %d", op, len(in))
	}
	dx, err := G.ApplyOp(&reshapeOp{from: op.to, to: op.from}, grad)
	return G.Nodes{dx}, err
}

// reshape is the copying reshape of x to shape.
func reshape(x *G.Node, shape ...int) (*G.Node, error) {
	to := tensor.Shape(shape)
	if to.TotalSize() != x.Shape().TotalSize() {
		return nil, errors.Errorf("cannot reshape %v to %v", x.Shape(), to)
	}
	return G.ApplyOp(&reshapeOp{from: x.Shape().Clone(), to: to.Clone()}, x)
}
