package graph

import (
	"fmt"
	"hash"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/chewxy/hm"
	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Kernel is a fused op written in plain Go: a forward function and its
// vector-Jacobian product. Builder.Fused turns it into a gorgonia op with a
// gradient, so a whole computation (a chain over a sequence, a normaliser)
// is one node instead of thousands, and gorgonia's slow or wrong ops are
// avoided. Every fused op of rtn goes through it.
//
// Values are row-major []float64; a scalar is a slice of length 1.
type Kernel struct {
	// Name names the op in graph dumps and errors ("umps.LogZn").
	Name string
	// Key spells out every parameter that changes what the op computes
	// besides its input shapes (an axis, a regex, a length). gorgonia merges
	// two nodes whose ops hash alike, so two kernels with the same Name, Key
	// and input shapes must compute the same function.
	Key string
	// Out is the output's shape; empty means a scalar.
	Out []int
	// Forward writes the output into out (len = the size of Out, zeroed)
	// from the inputs' values.
	Forward func(in [][]float64, out []float64) error
	// Backward writes into grads[i] (zeroed, the size of input i) the
	// gradient of the loss with respect to input i, given the inputs, the
	// output and dout, the gradient with respect to the output. grads[i] is
	// nil for an input that is not differentiated (see NoDiff). Nil means
	// the op has no gradient: differentiating through it is an error.
	Backward func(in [][]float64, out, dout []float64, grads [][]float64) error
	// NoDiff lists the inputs that are not differentiated (integer codes,
	// masks); every other input is.
	NoDiff []int
}

// Fused adds the kernel k applied to inputs to the graph. The input shapes
// become part of the op (and of its hash); a nil input or a missing
// Forward is recorded as an error.
func (b *Builder) Fused(k Kernel, inputs ...*G.Node) *G.Node {
	if b.err != nil {
		return nil
	}
	if k.Name == "" || k.Forward == nil {
		b.Fail(errors.New("kernel needs a Name and a Forward function"), "graph: Fused")
		return nil
	}
	shapes := make([]tensor.Shape, len(inputs))
	for i, x := range inputs {
		if x == nil {
			b.Fail(errors.Errorf("input %d of %s is nil", i, k.Name), "graph: Fused")
			return nil
		}
		if err := float64Node(x); err != nil {
			b.Fail(err, "graph: Fused "+k.Name)
			return nil
		}
		shapes[i] = x.Shape().Clone()
	}
	op := &fusedOp{k: k, in: shapes}
	return b.Do(op.String(), func() (*G.Node, error) { return G.ApplyOp(op, inputs...) })
}

// pure supplies the G.Op methods shared by the adapter's ops: none returns
// a pointer into its inputs, calls outside Go or overwrites an input.
type pure struct{}

func (pure) ReturnsPtr() bool     { return false }
func (pure) CallsExtern() bool    { return false }
func (pure) OverwritesInput() int { return -1 }

// fusedOp is a Kernel bound to its input shapes.
type fusedOp struct {
	pure
	k  Kernel
	in []tensor.Shape
}

var _ G.SDOp = (*fusedOp)(nil)

func (op *fusedOp) Arity() int { return len(op.in) }
func (op *fusedOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, 0, len(op.in)+1)
	for _, s := range op.in {
		ts = append(ts, tensorType(s.Dims(), a))
	}
	return hm.NewFnType(append(ts, tensorType(len(op.k.Out), a))...)
}
func (op *fusedOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return outShape(op.k.Out), nil }
func (op *fusedOp) WriteHash(h hash.Hash)                          { fmt.Fprint(h, op.key()) }
func (op *fusedOp) Hashcode() uint32                               { return hashOf(op) }
func (op *fusedOp) String() string                                 { return op.k.Name + "{" + op.k.Key + "}" }

// key is everything that identifies the op: name, key, input and output
// shapes.
func (op *fusedOp) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rtn.Fused{%s|%s|out=%v|in=", op.k.Name, op.k.Key, op.k.Out)
	for _, s := range op.in {
		fmt.Fprintf(&b, "%v", []int(s))
	}
	b.WriteString("}")
	return b.String()
}

func (op *fusedOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = op.k.Backward != nil && !slices.Contains(op.k.NoDiff, i)
	}
	return d
}

func (op *fusedOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := inputs(op, vals, sizes(op.in)...)
	if err != nil {
		return nil, err
	}
	out := make([]float64, outShape(op.k.Out).TotalSize())
	if err := op.k.Forward(in, out); err != nil {
		return nil, errors.Wrap(err, op.k.Name)
	}
	return newValue(outShape(op.k.Out), out), nil
}

// SymDiff applies the packed gradient op to (inputs, output, dout) and
// unpacks one gradient per differentiated input.
func (op *fusedOp) SymDiff(in G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.k.Backward == nil {
		return nil, errors.Errorf("graph: %s has no gradient", op.k.Name)
	}
	if len(in) != len(op.in) {
		return nil, errors.Errorf("graph: %v takes %d inputs, got %d", op, len(op.in), len(in))
	}
	g := &fusedGradOp{f: op}
	packed, err := G.ApplyOp(g, append(append(G.Nodes{}, in...), output, grad)...)
	if err != nil {
		return nil, err
	}
	out := make(G.Nodes, len(in))
	diff := op.DiffWRT(len(in))
	off, total := 0, g.packedSize()
	for i, s := range op.in {
		if !diff[i] {
			continue
		}
		out[i], err = G.ApplyOp(&unpackOp{off: off, total: total, shape: s, of: op.key()}, packed)
		if err != nil {
			return nil, err
		}
		off += s.TotalSize()
	}
	return out, nil
}

// fusedGradOp maps (inputs, output, dout) to the gradients of the
// differentiated inputs, concatenated in input order.
type fusedGradOp struct {
	pure
	f *fusedOp
}

func (op *fusedGradOp) packedSize() int {
	n := 0
	for i, d := range op.f.DiffWRT(len(op.f.in)) {
		if d {
			n += op.f.in[i].TotalSize()
		}
	}
	return n
}

func (op *fusedGradOp) Arity() int { return len(op.f.in) + 2 }
func (op *fusedGradOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, 0, len(op.f.in)+3)
	for _, s := range op.f.in {
		ts = append(ts, tensorType(s.Dims(), a))
	}
	o := tensorType(len(op.f.k.Out), a)
	return hm.NewFnType(append(ts, o, o, tensorType(1, a))...)
}
func (op *fusedGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.packedSize()}, nil
}
func (op *fusedGradOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.f.key(), "Grad") }
func (op *fusedGradOp) Hashcode() uint32      { return hashOf(op) }
func (op *fusedGradOp) String() string        { return op.f.k.Name + "Grad" }

func (op *fusedGradOp) Do(vals ...G.Value) (G.Value, error) {
	n := outShape(op.f.k.Out).TotalSize()
	in, err := inputs(op, vals, append(sizes(op.f.in), n, n)...)
	if err != nil {
		return nil, err
	}
	k := len(op.f.in)
	packed := make([]float64, op.packedSize())
	grads := make([][]float64, k)
	off := 0
	for i, d := range op.f.DiffWRT(k) {
		if d {
			m := op.f.in[i].TotalSize()
			grads[i] = packed[off : off+m : off+m]
			off += m
		}
	}
	if err := op.f.k.Backward(in[:k], in[k], in[k+1], grads); err != nil {
		return nil, errors.Wrap(err, op.f.k.Name+" gradient")
	}
	return newValue(tensor.Shape{len(packed)}, packed), nil
}

// unpackOp copies entries [off, off+size) of a packed gradient into a new
// tensor of the given shape (a copy, not a view: gorgonia's Reshape shares
// memory unsafely, see TestDefectReshapeWritesThrough).
type unpackOp struct {
	pure
	off, total int
	shape      tensor.Shape
	of         string
}

func (op *unpackOp) Arity() int { return 1 }
func (op *unpackOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(tensorType(1, a), tensorType(op.shape.Dims(), a))
}
func (op *unpackOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape.Clone(), nil }
func (op *unpackOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "rtn.Unpack{off=%d, total=%d, shape=%v, of=%s}", op.off, op.total, op.shape, op.of)
}
func (op *unpackOp) Hashcode() uint32 { return hashOf(op) }
func (op *unpackOp) String() string {
	return fmt.Sprintf("Unpack{%d:%d}", op.off, op.off+op.shape.TotalSize())
}

func (op *unpackOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := inputs(op, vals, op.total)
	if err != nil {
		return nil, err
	}
	return newValue(op.shape, append([]float64(nil), in[0][op.off:op.off+op.shape.TotalSize()]...)), nil
}

// outShape is the tensor shape of a kernel's Out (a scalar when empty).
func outShape(out []int) tensor.Shape {
	if len(out) == 0 {
		return tensor.ScalarShape()
	}
	return tensor.Shape(slices.Clone(out))
}

// sizes lists the number of values of each shape.
func sizes(shapes []tensor.Shape) []int {
	n := make([]int, len(shapes))
	for i, s := range shapes {
		n[i] = s.TotalSize()
	}
	return n
}

// CheckKernel checks a kernel through the whole adapter against central
// finite differences: it builds a graph applying Builder.Fused to inputs of
// the given shapes and values (differentiated inputs as parameters, NoDiff
// inputs as fixed inputs), takes the loss sum(w * output) with weights w
// drawn from rng, and compares the compiled machine's gradients with
// finite differences of that loss. Kernel tests call it with small shapes.
func CheckKernel(k Kernel, shapes [][]int, values [][]float64, rng *rand.Rand, opt FDOptions) error {
	if len(shapes) != len(values) {
		return errors.Errorf("graph: CheckKernel: %d shapes for %d values", len(shapes), len(values))
	}
	b := NewBuilder()
	p := NewParams()
	xs := make([]*G.Node, len(shapes))
	fixed := map[*G.Node][]float64{}
	for i, s := range shapes {
		name := fmt.Sprintf("in%d", i)
		if slices.Contains(k.NoDiff, i) {
			xs[i] = b.Input(name, s...)
			fixed[xs[i]] = values[i]
			continue
		}
		if len(s) == 0 {
			s = []int{1} // a parameter has a shape: a scalar is bound as [1]
		}
		if _, err := p.Add(name, s...); err != nil {
			return err
		}
		if err := p.Set(name, values[i]); err != nil {
			return err
		}
		xs[i] = b.Param(p, name)
	}
	out := b.Fused(k, xs...)
	var loss *G.Node
	if len(k.Out) == 0 {
		loss = b.Scale(out, 1+rng.Float64())
	} else {
		w := b.Input("w", k.Out...)
		ws := make([]float64, outShape(k.Out).TotalSize())
		for i := range ws {
			ws[i] = rng.NormFloat64()
		}
		fixed[w] = ws
		loss = b.Sum(b.Hadamard(out, w))
	}
	m, err := Compile(b, loss, p)
	if err != nil {
		return err
	}
	defer m.Close()
	for n, v := range fixed {
		if err := m.Let(n, v); err != nil {
			return err
		}
	}
	return CheckMachineGradients(m, p, opt)
}
