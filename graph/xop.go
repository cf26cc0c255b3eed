package graph

import (
	"fmt"
	"slices"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"
)

// The tensor ops (Kron, Einsum, Embed, LayerNorm, ...) are written once:
// each is an xop, whose forward pass and vector-Jacobian product sit side
// by side in one implementation (an ximpl) for every float type. The tape
// runs that implementation directly, and the gorgonia path runs its
// float64 instance through Builder.Fused, so both paths compute the same
// function with the same code.

// xop describes a tensor op bound to its argument shapes.
type xop interface {
	// name names the op in errors and graph dumps ("rtn.Kron").
	name() string
	// key spells out every parameter besides the argument shapes that
	// changes what the op computes (an einsum spec, an epsilon).
	key() string
	// out is the output's shape.
	out() []int
	// diff says whether argument k is differentiated (integer codes are
	// not).
	diff(k int) bool
	// needs lists the arguments whose values the vector-Jacobian product
	// with respect to argument k reads, and whether it reads the output.
	needs(k int) (args []int, out bool)
	// rowArgs says which arguments are indexed by the output's rows (dim
	// 0): row r of the output depends on row r of those and on the whole
	// of the others only. Nil means the op is not row by row.
	rowArgs() []bool
	// impl64 and impl32 make the op's implementation, with its scratch
	// space, in each float type.
	impl64() ximpl[float64]
	impl32() ximpl[float32]
}

// xarg is an argument's value: row-major, with row stride ld along dim 0
// (for a tensor of rank 2 or more).
type xarg[F Float] struct {
	d  []F
	ld int
}

// ximpl is an xop's forward pass and vector-Jacobian product in one float
// type. Neither allocates.
type ximpl[F Float] interface {
	// forward computes the output y (row stride ldy) over rows rows: the
	// op's own row count, or a multiple of it for a row-by-row op in the
	// tape's input projection.
	forward(rows int, a []xarg[F], y []F, ldy int)
	// vjp writes into d (argument k's shape, contiguous), or adds when acc
	// is set, the gradient reaching argument k from gy (the output's
	// gradient, contiguous), given the arguments and the output.
	vjp(k int, a []xarg[F], y []F, ldy int, gy, d []F, acc bool)
}

// applyX adds op applied to args to the graph: a fused gorgonia op running
// op's float64 implementation, recorded for the tape.
func (b *Builder) applyX(op xop, args ...*G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	rec := append([]*G.Node(nil), args...) // G.ApplyOp replaces constants in its argument slice
	n := b.Fused(xopKernel(op, args), args...)
	return b.record(n, irInstr{op: opExt, args: rec, x: op})
}

// xopKernel is op's float64 implementation as a Kernel.
func xopKernel(op xop, args []*G.Node) Kernel {
	im := op.impl64()
	shapes := make([][]int, len(args))
	for i, a := range args {
		shapes[i] = a.Shape().Clone()
	}
	rows := rowsOf(op.out())
	ld := func(s []int) int { _, c := rowsCols(s); return c }
	xs := make([]xarg[float64], len(args))
	bind := func(in [][]float64) {
		for i, d := range in {
			xs[i] = xarg[float64]{d: d, ld: ld(shapes[i])}
		}
	}
	k := Kernel{
		Name: op.name(),
		Key:  op.key(),
		Out:  slices.Clone(op.out()),
		Forward: func(in [][]float64, y []float64) error {
			bind(in)
			im.forward(rows, xs, y, ld(op.out()))
			return nil
		},
		Backward: func(in [][]float64, y, dy []float64, grads [][]float64) error {
			bind(in)
			for i, g := range grads {
				if g != nil {
					im.vjp(i, xs, y, ld(op.out()), dy, g, false)
				}
			}
			return nil
		},
	}
	for i := range args {
		if !op.diff(i) {
			k.NoDiff = append(k.NoDiff, i)
		}
	}
	return k
}

// rowsCols is how the tape lays out a value of a shape: a scalar [1, 1], a
// vector [1, n], a tensor [dim 0, the product of the others].
func rowsCols(shape []int) (rows, cols int) {
	switch len(shape) {
	case 0:
		return 1, 1
	case 1:
		return 1, shape[0]
	}
	cols = 1
	for _, d := range shape[1:] {
		cols *= d
	}
	return shape[0], cols
}

func rowsOf(shape []int) int { r, _ := rowsCols(shape); return r }

// shapeError is the build-time error of a tensor op whose argument shapes
// do not fit.
func shapeError(op string, format string, args ...any) error {
	return errors.Errorf("%s: %s", op, fmt.Sprintf(format, args...))
}
