package graph

import (
	"fmt"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Builder builds one gorgonia graph and keeps the first error, so a model
// reads top to bottom:
//
//	h := b.Tanh(b.Add(b.Mul(x, w), b.Mul(hPrev, u)))
//	if err := b.Err(); err != nil { ... }
//
// After an error every method returns nil and does nothing. A Builder is not
// safe for concurrent use.
type Builder struct {
	g      *G.ExprGraph
	err    error
	params map[string]boundParam // parameter name -> binding
	bound  []boundParam
	seq    int
	watch  map[*G.Node]*G.Value
	ir     map[*G.Node]*irInstr // what each recorded op computes (see tape.go)
	noise  *noise               // the state of the graph's random ops (Dropout)
	drops  int                  // the number of Dropout ops so far
	done   map[*G.Node]string   // the name Do was given for each node it made
}

type boundParam struct {
	set  *params.Params
	name string
	node *G.Node
}

// NewBuilder returns a Builder over a new, empty graph.
func NewBuilder() *Builder {
	return &Builder{g: G.NewGraph(), params: map[string]boundParam{}, watch: map[*G.Node]*G.Value{}, ir: map[*G.Node]*irInstr{},
		noise: &noise{}, done: map[*G.Node]string{}}
}

// Watch marks n so that Machine.Value can read it after a run. Only
// watched nodes (and the loss) can be read reliably: in a machine that
// computes gradients, gorgonia reuses a forward node's memory for the
// backward pass once the forward value is no longer needed, so an
// unwatched node's value may be overwritten (see the defect tests). A
// watched node's value is copied as it is computed. Watch returns n.
func (b *Builder) Watch(n *G.Node) *G.Node {
	if b.nilArg("Watch", n) {
		return nil
	}
	if _, ok := b.watch[n]; !ok {
		v := new(G.Value)
		G.Read(n, v)
		b.watch[n] = v
	}
	return n
}

// Graph is the underlying gorgonia graph, for users who add their own ops.
func (b *Builder) Graph() *G.ExprGraph { return b.g }

// Err returns the first error recorded, or nil.
func (b *Builder) Err() error { return b.err }

// Fail records err (wrapped with msg) unless an error is already recorded.
// User code that calls gorgonia directly reports its errors through it.
func (b *Builder) Fail(err error, msg string) {
	if b.err == nil && err != nil {
		b.err = errors.Wrap(err, msg)
	}
}

// Do runs f unless an error is recorded and records its error; name
// describes the operation in the message. It is the escape hatch for any
// gorgonia function the Builder does not wrap:
//
//	y := b.Do("rectify", func() (*G.Node, error) { return G.Rectify(x) })
func (b *Builder) Do(name string, f func() (*G.Node, error)) *G.Node {
	if b.err != nil {
		return nil
	}
	n, err := f()
	if err != nil {
		b.err = errors.Wrapf(err, "graph: %s", name)
		return nil
	}
	if n != nil {
		b.done[n] = name
	}
	return n
}

// unrecorded says which call made n, a node the tape has no record of,
// for the error wrapping ErrNotRecorded.
func (b *Builder) unrecorded(n *G.Node) string {
	if op, ok := n.Op().(*fusedOp); ok {
		return fmt.Sprintf("Builder.Fused(kernel %q) made node %s, which the tape does not record", op.k.Name, n.Name())
	}
	if name, ok := b.done[n]; ok {
		return fmt.Sprintf("Builder.Do(%q) made node %s, which the tape does not record", name, n.Name())
	}
	return fmt.Sprintf("node %s (op %v) was made by gorgonia directly, not by a Builder method", n.Name(), n.Op())
}

func (b *Builder) nilArg(op string, ns ...*G.Node) bool {
	if b.err != nil {
		return true
	}
	for i, n := range ns {
		if n == nil {
			b.err = errors.Errorf("graph: %s: argument %d is nil", op, i)
			return true
		}
	}
	return false
}

func (b *Builder) unary(op string, f func(*G.Node) (*G.Node, error), a *G.Node) *G.Node {
	if b.nilArg(op, a) {
		return nil
	}
	return b.Do(op, func() (*G.Node, error) { return f(a) })
}

func (b *Builder) binary(op string, f func(x, y *G.Node) (*G.Node, error), x, y *G.Node) *G.Node {
	if b.nilArg(op, x, y) {
		return nil
	}
	return b.Do(fmt.Sprintf("%s %v %v", op, x.Shape(), y.Shape()), func() (*G.Node, error) { return f(x, y) })
}

// Param returns the node bound to the tensor called name in p, creating it
// on first use. The node shares p's memory: optimizers update p in place and
// the graph sees the new values. Calling Param twice with the same name
// returns the same node. Names are unique within a graph: binding a name
// from two different sets is an error (gorgonia would merge the two nodes).
func (b *Builder) Param(p *params.Params, name string) *G.Node {
	if b.err != nil {
		return nil
	}
	if bp, ok := b.params[name]; ok {
		if bp.set != p {
			b.err = errors.Errorf("graph: parameter %q is bound from two different parameter sets", name)
			return nil
		}
		return bp.node
	}
	t := tensorOf(p, name)
	if t == nil {
		b.err = errors.Errorf("graph: no parameter %q in %v", name, p)
		return nil
	}
	n := G.NewTensor(b.g, tensor.Float64, t.Dims(), G.WithShape(t.Shape()...), G.WithName(name), G.WithValue(t))
	bp := boundParam{set: p, name: name, node: n}
	b.params[name] = bp
	b.bound = append(b.bound, bp)
	return b.record(n, irInstr{op: opParam, set: p, name: name})
}

// Input creates an input node of the given shape; its value is set with
// Machine.Let before each run.
func (b *Builder) Input(name string, shape ...int) *G.Node {
	if b.err != nil {
		return nil
	}
	for _, d := range shape {
		if d <= 0 {
			b.err = errors.Errorf("graph: input %q has non-positive dimension in shape %v", name, shape)
			return nil
		}
	}
	b.seq++
	full := fmt.Sprintf("%s#%d", name, b.seq)
	n := G.NewTensor(b.g, tensor.Float64, len(shape), G.WithShape(shape...), G.WithName(full),
		G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float64))))
	return b.record(n, irInstr{op: opInput})
}

// Const creates a constant scalar node.
func (b *Builder) Const(v float64) *G.Node {
	if b.err != nil {
		return nil
	}
	return b.record(G.NewConstant(v, G.In(b.g)), irInstr{op: opConst, f: v})
}

// Constant creates a constant tensor node of the given shape holding a
// copy of data (row-major).
func (b *Builder) Constant(data []float64, shape ...int) *G.Node {
	if b.err != nil {
		return nil
	}
	if n := tensor.Shape(shape).TotalSize(); len(shape) == 0 || n != len(data) {
		b.err = errors.Errorf("graph: Constant: %d values for shape %v", len(data), shape)
		return nil
	}
	b.seq++
	v := append([]float64(nil), data...)
	t := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v))
	n := G.NewConstant(t, G.WithName(fmt.Sprintf("const%v#%d", shape, b.seq)), G.In(b.g))
	return b.record(n, irInstr{op: opConstant, data: v})
}

// Mul is a matrix product (or matrix-vector, vector-vector) as G.Mul.
func (b *Builder) Mul(x, y *G.Node) *G.Node {
	return b.record(b.binary("Mul", G.Mul, x, y), irInstr{op: opMul, args: []*G.Node{x, y}})
}

// Add adds two nodes of the same shape.
func (b *Builder) Add(x, y *G.Node) *G.Node {
	return b.record(b.binary("Add", G.Add, x, y), irInstr{op: opAdd, args: []*G.Node{x, y}})
}

// Sub subtracts two nodes of the same shape.
func (b *Builder) Sub(x, y *G.Node) *G.Node {
	return b.record(b.binary("Sub", G.Sub, x, y), irInstr{op: opSub, args: []*G.Node{x, y}})
}

// Hadamard is the elementwise product of two nodes of the same shape.
func (b *Builder) Hadamard(x, y *G.Node) *G.Node {
	return b.record(b.binary("HadamardProd", G.HadamardProd, x, y), irInstr{op: opHadamard, args: []*G.Node{x, y}})
}

// Div is the elementwise quotient of two nodes of the same shape.
func (b *Builder) Div(x, y *G.Node) *G.Node {
	return b.record(b.binary("HadamardDiv", G.HadamardDiv, x, y), irInstr{op: opDiv, args: []*G.Node{x, y}})
}

// AddRow adds a row vector y of shape (n) to every row of x of shape (m, n).
func (b *Builder) AddRow(x, y *G.Node) *G.Node {
	n := b.binary("AddRow", func(x, y *G.Node) (*G.Node, error) {
		if x.Dims() != 2 || y.Dims() != 1 || x.Shape()[1] != y.Shape()[0] {
			return nil, errors.Errorf("want (m, n) + (n), got %v + %v", x.Shape(), y.Shape())
		}
		r, err := reshape(y, 1, y.Shape()[0])
		if err != nil {
			return nil, err
		}
		return G.BroadcastAdd(x, r, nil, []byte{0})
	}, x, y)
	return b.record(n, irInstr{op: opAddRow, args: []*G.Node{x, y}})
}

// MulRow multiplies every row of x of shape (m, n) elementwise by y of shape (n).
func (b *Builder) MulRow(x, y *G.Node) *G.Node {
	n := b.binary("MulRow", func(x, y *G.Node) (*G.Node, error) {
		if x.Dims() != 2 || y.Dims() != 1 || x.Shape()[1] != y.Shape()[0] {
			return nil, errors.Errorf("want (m, n) * (n), got %v * %v", x.Shape(), y.Shape())
		}
		r, err := reshape(y, 1, y.Shape()[0])
		if err != nil {
			return nil, err
		}
		return G.BroadcastHadamardProd(x, r, nil, []byte{0})
	}, x, y)
	return b.record(n, irInstr{op: opMulRow, args: []*G.Node{x, y}})
}

// MulCol multiplies every column of x of shape (m, n) elementwise by y of
// shape (m): row i is scaled by y[i]. Masks over a batch use it.
func (b *Builder) MulCol(x, y *G.Node) *G.Node {
	n := b.binary("MulCol", func(x, y *G.Node) (*G.Node, error) {
		if x.Dims() != 2 || y.Dims() != 1 || x.Shape()[0] != y.Shape()[0] {
			return nil, errors.Errorf("want (m, n) * (m), got %v * %v", x.Shape(), y.Shape())
		}
		r, err := reshape(y, y.Shape()[0], 1)
		if err != nil {
			return nil, err
		}
		return G.BroadcastHadamardProd(x, r, nil, []byte{1})
	}, x, y)
	return b.record(n, irInstr{op: opMulCol, args: []*G.Node{x, y}})
}

// Scale multiplies x by the constant c.
func (b *Builder) Scale(x *G.Node, c float64) *G.Node {
	n := b.unary("Scale", func(x *G.Node) (*G.Node, error) { return G.Mul(x, G.NewConstant(c)) }, x)
	return b.record(n, irInstr{op: opScale, args: []*G.Node{x}, f: c})
}

// Shift adds the constant c to every element of x.
func (b *Builder) Shift(x *G.Node, c float64) *G.Node {
	n := b.unary("Shift", func(x *G.Node) (*G.Node, error) { return G.Add(x, G.NewConstant(c)) }, x)
	return b.record(n, irInstr{op: opShift, args: []*G.Node{x}, f: c})
}

// Neg is -x.
func (b *Builder) Neg(x *G.Node) *G.Node {
	return b.record(b.unary("Neg", G.Neg, x), irInstr{op: opNeg, args: []*G.Node{x}})
}

// Tanh is the elementwise hyperbolic tangent.
func (b *Builder) Tanh(x *G.Node) *G.Node {
	return b.record(b.unary("Tanh", G.Tanh, x), irInstr{op: opTanh, args: []*G.Node{x}})
}

// Sigmoid is the elementwise logistic function 1/(1+e^-x).
func (b *Builder) Sigmoid(x *G.Node) *G.Node {
	return b.record(b.unary("Sigmoid", G.Sigmoid, x), irInstr{op: opSigmoid, args: []*G.Node{x}})
}

// Exp is the elementwise exponential.
func (b *Builder) Exp(x *G.Node) *G.Node {
	return b.record(b.unary("Exp", G.Exp, x), irInstr{op: opExp, args: []*G.Node{x}})
}

// Log is the elementwise natural logarithm.
func (b *Builder) Log(x *G.Node) *G.Node {
	return b.record(b.unary("Log", G.Log, x), irInstr{op: opLog, args: []*G.Node{x}})
}

// Square is the elementwise square.
func (b *Builder) Square(x *G.Node) *G.Node {
	return b.record(b.unary("Square", G.Square, x), irInstr{op: opSquare, args: []*G.Node{x}})
}

// Softplus is the elementwise log(1+e^x), computed exactly by Log1pExp
// (gorgonia's Softplus returns x itself for x > 16).
func (b *Builder) Softplus(x *G.Node) *G.Node { return b.Log1pExp(x) }

// Abs is the elementwise absolute value.
func (b *Builder) Abs(x *G.Node) *G.Node {
	return b.record(b.unary("Abs", G.Abs, x), irInstr{op: opAbs, args: []*G.Node{x}})
}

// Sum sums x over the given axes, or over all axes when none are given
// (giving a scalar).
func (b *Builder) Sum(x *G.Node, axes ...int) *G.Node {
	n := b.unary("Sum", func(x *G.Node) (*G.Node, error) { return G.Sum(x, axes...) }, x)
	return b.record(n, irInstr{op: opSum, args: []*G.Node{x}, ints: append([]int(nil), axes...)})
}

// Mean averages x over the given axes, or over all axes when none are given.
func (b *Builder) Mean(x *G.Node, axes ...int) *G.Node {
	n := b.unary("Mean", func(x *G.Node) (*G.Node, error) { return G.Mean(x, axes...) }, x)
	return b.record(n, irInstr{op: opMean, args: []*G.Node{x}, ints: append([]int(nil), axes...)})
}

// Reshape returns x with a new shape (same number of elements). Unlike
// gorgonia's Reshape it copies, so in-place ops downstream cannot write
// into x (see TestDefectReshapeWritesThrough).
func (b *Builder) Reshape(x *G.Node, shape ...int) *G.Node {
	n := b.unary("Reshape", func(x *G.Node) (*G.Node, error) { return reshape(x, shape...) }, x)
	return b.record(n, irInstr{op: opReshape, args: []*G.Node{x}})
}

// Transpose swaps the axes of a matrix (or permutes them when given).
func (b *Builder) Transpose(x *G.Node, axes ...int) *G.Node {
	n := b.unary("Transpose", func(x *G.Node) (*G.Node, error) { return G.Transpose(x, axes...) }, x)
	return b.record(n, irInstr{op: opTranspose, args: []*G.Node{x}, ints: append([]int(nil), axes...)})
}

// Cols returns columns [from, to) of a matrix of shape (m, n).
func (b *Builder) Cols(x *G.Node, from, to int) *G.Node {
	n := b.unary("Cols", func(x *G.Node) (*G.Node, error) {
		if x.Dims() != 2 || from < 0 || to > x.Shape()[1] || from >= to {
			return nil, errors.Errorf("columns [%d, %d) of %v", from, to, x.Shape())
		}
		return G.Slice(x, nil, G.S(from, to))
	}, x)
	return b.record(n, irInstr{op: opCols, args: []*G.Node{x}, ints: []int{from, to}})
}

// Concat joins nodes along axis.
func (b *Builder) Concat(axis int, xs ...*G.Node) *G.Node {
	if b.nilArg("Concat", xs...) {
		return nil
	}
	rec := append([]*G.Node(nil), xs...) // gorgonia replaces constants in its argument slice
	n := b.Do("Concat", func() (*G.Node, error) { return G.Concat(axis, xs...) })
	return b.record(n, irInstr{op: opConcat, args: rec, ints: []int{axis}})
}

// Rectify is the elementwise max(x, 0), with gradient 1 where x > 0 and 0
// elsewhere.
func (b *Builder) Rectify(x *G.Node) *G.Node {
	return b.record(b.unary("Rectify", G.Rectify, x), irInstr{op: opRectify, args: []*G.Node{x}})
}

// record notes what node n computes, for the tape executor (see
// CompileTape), and returns n. A node made another way (Do, Fused, or
// gorgonia directly) has no record, and a step that uses one runs on the
// compiled graphs only.
func (b *Builder) record(n *G.Node, in irInstr) *G.Node {
	if n == nil {
		return nil
	}
	if _, ok := b.ir[n]; !ok {
		b.ir[n] = &in
	}
	return n
}
