package graph

import (
	"fmt"
	"hash/fnv"
	"math"

	"github.com/chewxy/hm"
	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// This file holds rtn's numerically safe ops. gorgonia's own LogSumExp,
// SoftMax and LogSoftMax are wrong (see defects_test.go), and its Softplus
// returns x unchanged above 16, so these are fused ops: kernels in plain Go
// made into graph nodes by Builder.Fused.

// LogSumExp is log(sum(exp(x))) over one axis of x, computed with the
// maximum m of each slice shifted out, m + log(sum(exp(x - m))), so it
// neither overflows nor underflows.
//
// x: any float64 tensor of rank >= 1, for instance [batch, classes];
// axis: 0 <= axis < rank. Returns x's shape with axis removed ([batch] for
// axis 1 of a matrix, a scalar for a vector). The gradient is
// softmax(x) along axis. A slice whose entries are all -Inf gives -Inf, with
// a zero gradient; a slice holding +Inf gives +Inf; NaN propagates.
func (b *Builder) LogSumExp(x *G.Node, axis int) *G.Node {
	if !b.checkAxis("LogSumExp", x, axis) {
		return nil
	}
	return b.record(b.Fused(lseKernel(x.Shape(), axis), x), irInstr{op: opLogSumExp, args: []*G.Node{x}, ints: []int{axis}})
}

// LogSoftmax is x - LogSumExp(x, axis) broadcast back along axis: the log
// of a softmax, exact even when slices are far apart (each slice is shifted
// by its own maximum, unlike gorgonia's LogSoftMax).
//
// x: any float64 tensor of rank >= 1, for instance logits [batch, classes]
// with axis 1; 0 <= axis < rank. Returns x's shape, in nats.
func (b *Builder) LogSoftmax(x *G.Node, axis int) *G.Node {
	if !b.checkAxis("LogSoftmax", x, axis) {
		return nil
	}
	return b.record(b.Fused(logSoftmaxKernel(x.Shape(), axis), x), irInstr{op: opLogSoftmax, args: []*G.Node{x}, ints: []int{axis}})
}

// Softmax is exp(LogSoftmax(x, axis)): probabilities that sum to 1 along
// axis. x: any float64 tensor of rank >= 1; returns x's shape.
//
// Losses should use LogSoftmax directly rather than the log of Softmax,
// which underflows to -Inf for very unlikely classes.
func (b *Builder) Softmax(x *G.Node, axis int) *G.Node {
	return b.Exp(b.LogSoftmax(x, axis))
}

// Log1pExp is the softplus log(1 + e^x), elementwise, to full float64
// precision for every x: x + log1p(e^-x) for x > 0 and log1p(e^x)
// otherwise. Its gradient is the logistic sigmoid of x.
//
// x: any float64 tensor or scalar; returns x's shape. Prefer it to
// Softplus, which wraps gorgonia's kernel: that one returns x itself for
// x > 16 (off by up to 1.1e-7, and discontinuous at 16, which breaks finite
// difference checks) while its gradient stays exact.
func (b *Builder) Log1pExp(x *G.Node) *G.Node {
	if b.nilArg("Log1pExp", x) {
		return nil
	}
	if err := float64Node(x); err != nil {
		b.Fail(err, "graph: Log1pExp")
		return nil
	}
	return b.record(b.Fused(log1pExpKernel(x.Shape()), x), irInstr{op: opLog1pExp, args: []*G.Node{x}})
}

// checkAxis validates the argument of an axis op and records an error.
func (b *Builder) checkAxis(op string, x *G.Node, axis int) bool {
	if b.nilArg(op, x) {
		return false
	}
	if err := float64Node(x); err != nil {
		b.Fail(err, "graph: "+op)
		return false
	}
	if d := x.Dims(); d < 1 || axis < 0 || axis >= d {
		b.Fail(errors.Errorf("axis %d out of range for shape %v", axis, x.Shape()), "graph: "+op)
		return false
	}
	return true
}

func float64Node(x *G.Node) error {
	if dt := x.Dtype(); dt != tensor.Float64 {
		return errors.Errorf("%s has dtype %v, want float64", x.Name(), dt)
	}
	return nil
}

// geometry splits a shape around axis: outer slices of n entries, inner
// apart (row-major), so entry k of slice (o, i) is at (o*n+k)*inner + i.
type geometry struct{ outer, n, inner int }

func newGeometry(shape tensor.Shape, axis int) geometry {
	g := geometry{outer: 1, n: shape[axis], inner: 1}
	for _, d := range shape[:axis] {
		g.outer *= d
	}
	for _, d := range shape[axis+1:] {
		g.inner *= d
	}
	return g
}

// lse is the max-shifted log-sum-exp of the slice of x starting at base:
// m + log(sum(exp(x - m))) with m its maximum, or m itself when m is
// infinite.
func (g geometry) lse(x []float64, base int) float64 {
	m := math.Inf(-1)
	for k := 0; k < g.n; k++ {
		if v := x[base+k*g.inner]; v > m {
			m = v
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for k := 0; k < g.n; k++ {
		s += math.Exp(x[base+k*g.inner] - m)
	}
	return m + math.Log(s)
}

// reducedShape is shape without axis (a scalar shape if nothing is left).
func reducedShape(shape tensor.Shape, axis int) tensor.Shape {
	out := make(tensor.Shape, 0, len(shape)-1)
	out = append(out, shape[:axis]...)
	out = append(out, shape[axis+1:]...)
	if len(out) == 0 {
		return tensor.ScalarShape()
	}
	return out
}

// tensorType is the gorgonia type of a rank-d tensor of a (a scalar for 0).
func tensorType(d int, a hm.TypeVariable) hm.Type {
	if d == 0 {
		return a
	}
	return G.TensorType{Dims: d, Of: a}
}

// floats returns the float64 data of a value in row-major order (a
// one-element slice for a scalar); the slice may alias tensor data and must
// not be written to.
func floats(v G.Value) ([]float64, error) {
	switch t := v.(type) {
	case *G.F64:
		return []float64{float64(*t)}, nil
	case *tensor.Dense:
		if t.RequiresIterator() {
			// A strided view (a slice of columns, say): copy it out in
			// row-major order.
			t = t.Materialize().(*tensor.Dense)
		}
		switch d := t.Data().(type) {
		case []float64:
			return d, nil
		case float64:
			return []float64{d}, nil
		}
	case tensor.Tensor:
		switch d := t.Data().(type) {
		case []float64:
			return d, nil
		case float64:
			return []float64{d}, nil
		}
	}
	return nil, errors.Errorf("graph: want a float64 value, got %T", v)
}

// newValue wraps data as a value of the given shape.
func newValue(shape tensor.Shape, data []float64) G.Value {
	if shape.IsScalar() {
		return G.NewF64(data[0])
	}
	return tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(data))
}

// inputs checks arity and sizes and returns the data of vals.
func inputs(op G.Op, vals []G.Value, sizes ...int) ([][]float64, error) {
	if len(vals) != len(sizes) {
		return nil, errors.Errorf("graph: %v takes %d inputs, got %d", op, len(sizes), len(vals))
	}
	out := make([][]float64, len(vals))
	for i, v := range vals {
		d, err := floats(v)
		if err != nil {
			return nil, err
		}
		if len(d) != sizes[i] {
			return nil, errors.Errorf("graph: %v input %d has %d values, want %d", op, i, len(d), sizes[i])
		}
		out[i] = d
	}
	return out, nil
}

func hashOf(op G.Op) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// lseKernel is LogSumExp over axis of a tensor of the given shape; its
// gradient is dy * exp(x - y), dy and y broadcast along axis.
func lseKernel(shape tensor.Shape, axis int) Kernel {
	g := newGeometry(shape, axis)
	return Kernel{
		Name: "rtn.LogSumExp",
		Key:  fmt.Sprintf("axis=%d", axis),
		Out:  reducedShape(shape, axis),
		Forward: func(in [][]float64, y []float64) error {
			for o := 0; o < g.outer; o++ {
				for i := 0; i < g.inner; i++ {
					y[o*g.inner+i] = g.lse(in[0], o*g.n*g.inner+i)
				}
			}
			return nil
		},
		Backward: func(in [][]float64, y, dy []float64, grads [][]float64) error {
			x, dx := in[0], grads[0]
			for o := 0; o < g.outer; o++ {
				for i := 0; i < g.inner; i++ {
					r := o*g.inner + i
					if math.IsInf(y[r], -1) {
						continue // all entries -Inf: zero gradient
					}
					base := o*g.n*g.inner + i
					for k := 0; k < g.n; k++ {
						j := base + k*g.inner
						dx[j] = dy[r] * math.Exp(x[j]-y[r])
					}
				}
			}
			return nil
		},
	}
}

// logSoftmaxKernel is x - LogSumExp(x, axis), broadcast back; its gradient
// is dy - exp(y) * sum(dy) along axis.
func logSoftmaxKernel(shape tensor.Shape, axis int) Kernel {
	g := newGeometry(shape, axis)
	return Kernel{
		Name: "rtn.LogSoftmax",
		Key:  fmt.Sprintf("axis=%d", axis),
		Out:  shape.Clone(),
		Forward: func(in [][]float64, y []float64) error {
			x := in[0]
			for o := 0; o < g.outer; o++ {
				for i := 0; i < g.inner; i++ {
					base := o*g.n*g.inner + i
					lse := g.lse(x, base)
					for k := 0; k < g.n; k++ {
						j := base + k*g.inner
						y[j] = x[j] - lse
					}
				}
			}
			return nil
		},
		Backward: func(_ [][]float64, y, dy []float64, grads [][]float64) error {
			dx := grads[0]
			for o := 0; o < g.outer; o++ {
				for i := 0; i < g.inner; i++ {
					base := o*g.n*g.inner + i
					s := 0.0
					for k := 0; k < g.n; k++ {
						s += dy[base+k*g.inner]
					}
					for k := 0; k < g.n; k++ {
						j := base + k*g.inner
						dx[j] = dy[j] - math.Exp(y[j])*s
					}
				}
			}
			return nil
		},
	}
}

// log1pExpKernel is the elementwise softplus log(1 + e^x); its gradient is
// dy * sigmoid(x).
func log1pExpKernel(shape tensor.Shape) Kernel {
	return Kernel{
		Name: "rtn.Log1pExp",
		Out:  shape.Clone(),
		Forward: func(in [][]float64, y []float64) error {
			for j, v := range in[0] {
				y[j] = log1pExp(v)
			}
			return nil
		},
		Backward: func(in [][]float64, _, dy []float64, grads [][]float64) error {
			for j, v := range in[0] {
				grads[0][j] = dy[j] * sigmoid(v)
			}
			return nil
		},
	}
}

// log1pExp is log(1 + e^x) without overflow or loss of precision.
func log1pExp(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// sigmoid is 1/(1 + e^-x) without overflow.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
