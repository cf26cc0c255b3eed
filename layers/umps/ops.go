package umps

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/rtnlab/rtn/graph"
)

// This file wraps the kernels as fused gorgonia ops. gorgonia's
// BatchedMatMul loops over the batch in Go and an unrolled chain of length
// n compiles in quadratic time (notes/gorgonia.md), so the whole chain and
// the whole normaliser are one op each. Each op's gradient is one op that
// computes the gradients of A, alpha and omega together into a packed
// vector, and three copy ops unpack it.

// LogAmp2 adds the fused op y_b = 2 log|f(s_b)| = log P~(s_b) (Eq. 2 and
// the Born rule of Section 3.1) to b.
//
// A: [D, d, D], alpha, omega: [D] (learnable); seqs: [B, T], an input
// holding symbols 0..d-1 followed by Pad (see EncodeBatch), not
// differentiated. Returns [B], nats. Rescaling by powers of two keeps
// every length finite.
func LogAmp2(b *graph.Builder, A, alpha, omega, seqs *G.Node) *G.Node {
	D, d, ok := checkParams(b, "LogAmp2", A, alpha, omega)
	if !ok {
		return nil
	}
	if seqs == nil || seqs.Dims() != 2 {
		b.Fail(errors.New("umps: seqs must be a [batch, length] node"), "umps: LogAmp2")
		return nil
	}
	op := &ampOp{D: D, d: d, B: seqs.Shape()[0], T: seqs.Shape()[1]}
	return b.Do(op.String(), func() (*G.Node, error) { return G.ApplyOp(op, A, alpha, omega, seqs) })
}

// LogZn adds the fused op log Z_n, n = 0..maxN (Eq. 3-4, trace-normalised
// transfer operator in the log domain), to b. A: [D, d, D], alpha, omega:
// [D]. Returns [maxN+1], nats.
func LogZn(b *graph.Builder, A, alpha, omega *G.Node, maxN int) *G.Node {
	D, d, ok := checkParams(b, "LogZn", A, alpha, omega)
	if !ok {
		return nil
	}
	if maxN < 0 {
		b.Fail(errors.Errorf("maximum length %d", maxN), "umps: LogZn")
		return nil
	}
	op := &zOp{D: D, d: d, N: maxN}
	return b.Do(op.String(), func() (*G.Node, error) { return G.ApplyOp(op, A, alpha, omega) })
}

func checkParams(b *graph.Builder, name string, A, alpha, omega *G.Node) (D, d int, ok bool) {
	if b.Err() != nil {
		return 0, 0, false
	}
	if A == nil || alpha == nil || omega == nil {
		b.Fail(errors.New("nil argument"), "umps: "+name)
		return 0, 0, false
	}
	s := A.Shape()
	if len(s) != 3 || s[0] != s[2] || !alpha.Shape().Eq(tensor.Shape{s[0]}) || !omega.Shape().Eq(tensor.Shape{s[0]}) {
		b.Fail(errors.Errorf("want A [D, d, D] and alpha, omega [D], got %v, %v, %v", s, alpha.Shape(), omega.Shape()), "umps: "+name)
		return 0, 0, false
	}
	return s[0], s[1], true
}

// opValues returns the float64 data of vals, checking their sizes.
func opValues(op fmt.Stringer, vals []G.Value, sizes ...int) ([][]float64, error) {
	if len(vals) != len(sizes) {
		return nil, errors.Errorf("umps: %v takes %d inputs, got %d", op, len(sizes), len(vals))
	}
	out := make([][]float64, len(vals))
	for i, v := range vals {
		var d []float64
		switch x := v.(type) {
		case *G.F64:
			d = []float64{float64(*x)}
		case tensor.Tensor:
			d, _ = x.Data().([]float64)
		}
		if len(d) != sizes[i] {
			return nil, errors.Errorf("umps: %v input %d: want %d float64 values, got %T", op, i, sizes[i], v)
		}
		out[i] = d
	}
	return out, nil
}

func vector(data []float64) G.Value {
	return tensor.New(tensor.WithShape(len(data)), tensor.WithBacking(data))
}

func hashString(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// pureOp supplies the G.Op methods that every op in this package shares:
// none returns a pointer into its inputs, calls outside Go or overwrites an
// input. It defines no String, WriteHash or Hashcode, so each op still
// spells out everything that makes it distinct.
type pureOp struct{}

func (pureOp) ReturnsPtr() bool     { return false }
func (pureOp) CallsExtern() bool    { return false }
func (pureOp) OverwritesInput() int { return -1 }

// normOp holds what the fused normalisers LogZStar and LogZRegex share: the
// bond dimension D, the alphabet size d and grad, which selects the
// packed-gradient variant (a fourth input, the upstream gradient of the
// scalar; output [A | alpha | omega]).
type normOp struct {
	pureOp
	D, d int
	grad bool
}

func (op normOp) Arity() int {
	if op.grad {
		return 4
	}
	return 3
}
func (op normOp) Type() hm.Type {
	if op.grad {
		return fnType([]int{3, 1, 1, 1}, 1)
	}
	return fnType([]int{3, 1, 1}, 1)
}
func (op normOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	if op.grad {
		return tensor.Shape{packedSize(op.D, op.d)}, nil
	}
	return tensor.Shape{1}, nil
}
func (op normOp) DiffWRT(int) []bool { return []bool{true, true, true} }

// inputs returns the data of vals (A, alpha, omega and, for the gradient
// variant, the upstream gradient), checked for the op self.
func (op normOp) inputs(self fmt.Stringer, vals []G.Value) ([][]float64, error) {
	sizes := []int{op.D * op.d * op.D, op.D, op.D}
	if op.grad {
		sizes = append(sizes, 1)
	}
	return opValues(self, vals, sizes...)
}

// chain scales the packed gradient g by the upstream gradient in[3][0].
func chain(g []float64, in [][]float64) G.Value {
	for i := range g {
		g[i] *= in[3][0]
	}
	return vector(g)
}

// symDiff applies gradOp, the packed-gradient variant of the op named name,
// to the op's inputs and grad and unpacks the result; the gradient variant
// itself has no derivative.
func (op normOp) symDiff(name string, gradOp G.Op, in G.Nodes, grad *G.Node) (G.Nodes, error) {
	if op.grad {
		return nil, errors.New("umps: no second derivative of " + name)
	}
	return applyUnpacked(gradOp, op.D, op.d, 3, in[0], in[1], in[2], grad)
}

func fnType(in []int, out int) hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, 0, len(in)+1)
	for _, d := range append(in, out) {
		ts = append(ts, G.TensorType{Dims: d, Of: a})
	}
	return hm.NewFnType(ts...)
}

// ampOp is the fused LogAmp2.
type ampOp struct {
	pureOp
	D, d, B, T int
}

var _ G.SDOp = (*ampOp)(nil)

func (op *ampOp) Arity() int                                     { return 4 }
func (op *ampOp) Type() hm.Type                                  { return fnType([]int{3, 1, 1, 2}, 1) }
func (op *ampOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return tensor.Shape{op.B}, nil }
func (op *ampOp) WriteHash(h hash.Hash)                          { fmt.Fprint(h, op.String()) }
func (op *ampOp) Hashcode() uint32                               { return hashString(op.String()) }
func (op *ampOp) String() string {
	return fmt.Sprintf("umps.LogAmp2{D=%d,d=%d,B=%d,T=%d}", op.D, op.d, op.B, op.T)
}
func (op *ampOp) DiffWRT(int) []bool { return []bool{true, true, true, false} }

func (op *ampOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := opValues(op, vals, op.D*op.d*op.D, op.D, op.D, op.B*op.T)
	if err != nil {
		return nil, err
	}
	seqs, err := decodeBatch(in[3], op.B, op.T, op.d)
	if err != nil {
		return nil, err
	}
	return vector(viewOf(in[0], in[1], in[2], op.D, op.d).logAmp2(seqs)), nil
}

func (op *ampOp) SymDiff(in G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	return applyUnpacked(&ampGradOp{f: *op}, op.D, op.d, 4, in[0], in[1], in[2], in[3], grad)
}

// ampGradOp packs the gradients of LogAmp2 with respect to A, alpha, omega.
type ampGradOp struct {
	pureOp
	f ampOp
}

func (op *ampGradOp) Arity() int    { return 5 }
func (op *ampGradOp) Type() hm.Type { return fnType([]int{3, 1, 1, 2, 1}, 1) }
func (op *ampGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{packedSize(op.f.D, op.f.d)}, nil
}
func (op *ampGradOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *ampGradOp) Hashcode() uint32      { return hashString(op.String()) }
func (op *ampGradOp) String() string        { return op.f.String() + "Grad" }

func (op *ampGradOp) Do(vals ...G.Value) (G.Value, error) {
	f := op.f
	in, err := opValues(op, vals, f.D*f.d*f.D, f.D, f.D, f.B*f.T, f.B)
	if err != nil {
		return nil, err
	}
	seqs, err := decodeBatch(in[3], f.B, f.T, f.d)
	if err != nil {
		return nil, err
	}
	out := make([]float64, packedSize(f.D, f.d))
	gA, ga, gw := split(out, f.D, f.d)
	viewOf(in[0], in[1], in[2], f.D, f.d).logAmp2Grad(seqs, in[4], gA, ga, gw)
	return vector(out), nil
}

// zOp is the fused LogZn.
type zOp struct {
	pureOp
	D, d, N int
}

var _ G.SDOp = (*zOp)(nil)

func (op *zOp) Arity() int                                     { return 3 }
func (op *zOp) Type() hm.Type                                  { return fnType([]int{3, 1, 1}, 1) }
func (op *zOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return tensor.Shape{op.N + 1}, nil }
func (op *zOp) WriteHash(h hash.Hash)                          { fmt.Fprint(h, op.String()) }
func (op *zOp) Hashcode() uint32                               { return hashString(op.String()) }
func (op *zOp) String() string                                 { return fmt.Sprintf("umps.LogZn{D=%d,d=%d,N=%d}", op.D, op.d, op.N) }
func (op *zOp) DiffWRT(int) []bool                             { return []bool{true, true, true} }

func (op *zOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := opValues(op, vals, op.D*op.d*op.D, op.D, op.D)
	if err != nil {
		return nil, err
	}
	lz, _, _ := viewOf(in[0], in[1], in[2], op.D, op.d).logZn(op.N)
	return vector(lz), nil
}

func (op *zOp) SymDiff(in G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	return applyUnpacked(&zGradOp{f: *op}, op.D, op.d, 3, in[0], in[1], in[2], grad)
}

// zGradOp packs the gradients of LogZn with respect to A, alpha, omega.
type zGradOp struct {
	pureOp
	f zOp
}

func (op *zGradOp) Arity() int    { return 4 }
func (op *zGradOp) Type() hm.Type { return fnType([]int{3, 1, 1, 1}, 1) }
func (op *zGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{packedSize(op.f.D, op.f.d)}, nil
}
func (op *zGradOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *zGradOp) Hashcode() uint32      { return hashString(op.String()) }
func (op *zGradOp) String() string        { return op.f.String() + "Grad" }

func (op *zGradOp) Do(vals ...G.Value) (G.Value, error) {
	f := op.f
	in, err := opValues(op, vals, f.D*f.d*f.D, f.D, f.D, f.N+1)
	if err != nil {
		return nil, err
	}
	out := make([]float64, packedSize(f.D, f.d))
	gA, ga, gw := split(out, f.D, f.d)
	viewOf(in[0], in[1], in[2], f.D, f.d).logZnGrad(f.N, in[3], gA, ga, gw)
	return vector(out), nil
}

// packedSize is the length of the packed gradient [A | alpha | omega].
func packedSize(D, d int) int { return D*d*D + 2*D }

func split(p []float64, D, d int) (gA, ga, gw []float64) {
	n := D * d * D
	return p[:n], p[n : n+D], p[n+D:]
}

// applyUnpacked applies gradOp, whose output is the packed gradient
// [A | alpha | omega], to args and returns the three unpacked gradient
// nodes, padded with nils to arity inputs.
func applyUnpacked(gradOp G.Op, D, d, arity int, args ...*G.Node) (G.Nodes, error) {
	packed, err := G.ApplyOp(gradOp, args...)
	if err != nil {
		return nil, err
	}
	out := make(G.Nodes, arity)
	shapes := []tensor.Shape{{D, d, D}, {D}, {D}}
	off := 0
	for i, s := range shapes {
		n, err := G.ApplyOp(&unpackOp{off: off, shape: s, total: packedSize(D, d)}, packed)
		if err != nil {
			return nil, err
		}
		out[i] = n
		off += s.TotalSize()
	}
	return out, nil
}

// unpackOp copies entries [off, off+size) of a packed vector into a new
// tensor of the given shape (a copy, not a view: see the Reshape defect in
// notes/gorgonia.md).
type unpackOp struct {
	pureOp
	off, total int
	shape      tensor.Shape
}

func (op *unpackOp) Arity() int                                     { return 1 }
func (op *unpackOp) Type() hm.Type                                  { return fnType([]int{1}, len(op.shape)) }
func (op *unpackOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape.Clone(), nil }
func (op *unpackOp) WriteHash(h hash.Hash)                          { fmt.Fprint(h, op.String()) }
func (op *unpackOp) Hashcode() uint32                               { return hashString(op.String()) }
func (op *unpackOp) String() string {
	return fmt.Sprintf("umps.Unpack{off=%d,total=%d,shape=%v}", op.off, op.total, op.shape)
}

func (op *unpackOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := opValues(op, vals, op.total)
	if err != nil {
		return nil, err
	}
	data := append([]float64(nil), in[0][op.off:op.off+op.shape.TotalSize()]...)
	return tensor.New(tensor.WithShape(op.shape.Clone()...), tensor.WithBacking(data)), nil
}
