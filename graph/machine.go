package graph

import (
	"math"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Machine runs a compiled graph: bind inputs with Let, Run, read the loss,
// outputs and gradients, then bind the next inputs. It wraps gorgonia's
// TapeMachine, the only one of gorgonia's machines whose Reset and
// gradients are right (see notes in the tests).
//
// Gradients are symbolic (G.Grad), so they do not accumulate across runs;
// AddGrads accumulates them explicitly where that is wanted (truncated
// BPTT over several chunks).
//
// A Machine is not safe for concurrent use: its graph holds the bound
// inputs and every node's value, so one goroutine at a time may Let, Run
// and read it. Machines compiled from distinct graphs may run in
// parallel, provided nothing updates the Params they share while they run.
type Machine struct {
	vm      G.VM
	loss    *G.Node
	wrt     []boundParam
	grads   []*G.Node
	inGrads map[*G.Node]*G.Node
	ran     bool
	watch   map[*G.Node]*G.Value
}

// Compile builds the gradient of the scalar loss with respect to every
// parameter of p that the Builder bound (through Param), checks the graph
// for hash collisions (see CheckHashes), and compiles a TapeMachine. With a
// nil p or a nil loss no gradient is built (an evaluation-only machine).
func Compile(b *Builder, loss *G.Node, p *Params) (*Machine, error) {
	return CompileWRT(b, loss, p, nil)
}

// CompileWRT is Compile that also differentiates the loss with respect to
// the given input nodes (made by Builder.Input), whose gradients
// Machine.InputGrad reads after a run: the vector-Jacobian product of a
// step with respect to its incoming state, for instance.
func CompileWRT(b *Builder, loss *G.Node, p *Params, inputs []*G.Node) (*Machine, error) {
	if err := b.Err(); err != nil {
		return nil, err
	}
	if loss != nil {
		b.Watch(loss)
	}
	m := &Machine{loss: loss, watch: b.watch}
	if loss != nil && p != nil {
		if !loss.IsScalar() {
			return nil, errors.Errorf("graph: loss must be a scalar, has shape %v", loss.Shape())
		}
		var nodes []*G.Node
		for _, bp := range b.bound {
			if bp.set == p {
				m.wrt = append(m.wrt, bp)
				nodes = append(nodes, bp.node)
			}
		}
		nodes = append(nodes, inputs...)
		if len(nodes) > 0 {
			gs, err := G.Grad(loss, nodes...)
			if err != nil {
				return nil, errors.Wrap(err, "graph: building gradients")
			}
			m.grads = gs[:len(m.wrt)]
			m.inGrads = map[*G.Node]*G.Node{}
			for i, n := range inputs {
				m.inGrads[n] = gs[len(m.wrt)+i]
			}
		}
	} else if len(inputs) > 0 {
		return nil, errors.New("graph: input gradients need a loss and a parameter set")
	}
	if err := b.Err(); err != nil {
		return nil, err
	}
	if err := CheckHashes(b.g); err != nil {
		return nil, err
	}
	// G.NewTapeMachine panics when compilation fails; compile first so a
	// graph gorgonia cannot compile is an error, not a crash.
	prog, locMap, err := G.Compile(b.g)
	if err != nil {
		return nil, errors.Wrap(err, "graph: compiling")
	}
	m.vm = G.NewTapeMachine(b.g, G.WithPrecompiled(prog, locMap))
	return m, nil
}

// Let binds values (row-major) to an input node made by Builder.Input. The
// slice is copied.
func (m *Machine) Let(n *G.Node, values []float64) error {
	if n == nil {
		return errors.New("graph: Let on a nil node")
	}
	shape := n.Shape()
	if shape.TotalSize() != len(values) {
		return errors.Errorf("graph: input %s has shape %v (%d values), got %d values", n.Name(), shape, shape.TotalSize(), len(values))
	}
	t, ok := n.Value().(*tensor.Dense)
	if !ok || t == nil {
		return errors.Errorf("graph: input %s has no tensor value", n.Name())
	}
	copy(t.Data().([]float64), values)
	return nil
}

// Run executes the graph once. Call Reset before the next Run.
func (m *Machine) Run() error {
	if m.ran {
		m.vm.Reset()
	}
	m.ran = true
	if err := m.vm.RunAll(); err != nil {
		return errors.Wrap(err, "graph: run")
	}
	return nil
}

// Reset readies the machine for the next Run. Run calls it when needed, so
// callers rarely do.
func (m *Machine) Reset() {
	m.vm.Reset()
	m.ran = false
}

// Loss returns the value of the loss node after Run (NaN before).
func (m *Machine) Loss() float64 {
	v, err := m.Value(m.loss)
	if err != nil || len(v) != 1 {
		return math.NaN()
	}
	return v[0]
}

// Value returns a copy of a watched node's value after Run as a flat
// row-major slice. It fails for a node that was not watched
// (Builder.Watch) or before the first Run.
func (m *Machine) Value(n *G.Node) ([]float64, error) {
	if n == nil {
		return nil, errors.New("graph: Value of a nil node")
	}
	v, ok := m.watch[n]
	if !ok {
		return nil, errors.Errorf("graph: node %s is not watched (Builder.Watch): its value may have been overwritten by the backward pass", n.Name())
	}
	if *v == nil {
		return nil, errors.Errorf("graph: node %s has no value yet (call Run)", n.Name())
	}
	switch d := (*v).Data().(type) {
	case float64:
		return []float64{d}, nil
	case []float64:
		return append([]float64(nil), d...), nil
	}
	return nil, errors.Errorf("graph: node %s holds %T, not float64", n.Name(), (*v).Data())
}

// AddGrads adds the gradients of the last Run into dst, which must hold
// every parameter the machine differentiates (usually p.Like()).
// Parameters that the graph binds but the loss does not reach add nothing.
func (m *Machine) AddGrads(dst *Params) error {
	for i, bp := range m.wrt {
		d := dst.Data(bp.name)
		if d == nil {
			return errors.Errorf("graph: gradient set has no %q", bp.name)
		}
		v := m.grads[i].Value()
		if v == nil {
			continue
		}
		switch g := v.Data().(type) {
		case []float64:
			if len(g) != len(d) {
				return errors.Errorf("graph: gradient of %q has %d values, want %d", bp.name, len(g), len(d))
			}
			for j, x := range g {
				d[j] += x
			}
		case float64:
			d[0] += g
		default:
			return errors.Errorf("graph: gradient of %q has type %T", bp.name, g)
		}
	}
	return nil
}

// InputGrad copies into dst the gradient of the loss with respect to the
// input node n (one of CompileWRT's inputs) from the last Run. An input the
// loss does not reach has a zero gradient.
func (m *Machine) InputGrad(n *G.Node, dst []float64) error {
	g, ok := m.inGrads[n]
	if !ok {
		return errors.Errorf("graph: node %v is not differentiated (CompileWRT)", n)
	}
	if g == nil || g.Value() == nil {
		clear(dst)
		return nil
	}
	switch v := g.Value().Data().(type) {
	case []float64:
		if len(v) != len(dst) {
			return errors.Errorf("graph: gradient of %v has %d values, want %d", n, len(v), len(dst))
		}
		copy(dst, v)
	case float64:
		if len(dst) != 1 {
			return errors.Errorf("graph: gradient of %v has 1 value, want %d", n, len(dst))
		}
		dst[0] = v
	default:
		return errors.Errorf("graph: gradient of %v has type %T", n, v)
	}
	return nil
}

// Close releases the machine.
func (m *Machine) Close() error { return m.vm.Close() }
