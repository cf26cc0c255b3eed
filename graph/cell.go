package graph

import (
	"fmt"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"
)

// Cell is one step of a recurrent model written as gorgonia operations. A
// user defines a new recurrent model by implementing Cell; Recurrence runs
// it over sequences of any length, and layers.Sequence makes it a trainable
// model.
//
// A cell binds its learnable tensors with Builder.Param from a Params set it
// was given at construction, so the same values serve every graph built
// from it (chunk graphs of different shapes, training and evaluation).
type Cell interface {
	// InputSize is the width of x_t.
	InputSize() int
	// StateSizes lists the widths of the state tensors (e.g. [H] for an
	// Elman RNN, [H, H] for an LSTM's h and c). State 0 is the cell's
	// output, read by output layers.
	StateSizes() []int
	// InitialState returns the state at t = 0 for a batch of the given
	// size: one node of shape [batch, size] per entry of StateSizes. Use
	// Builder.LearnedState for a learnable initial state (a parameter
	// broadcast over the batch, trained like any other) and
	// Builder.ZeroState for a fixed state of zeros.
	InitialState(b *Builder, batch int) []*G.Node
	// Step returns the next state from x: [batch, InputSize()] and the
	// current state.
	Step(b *Builder, x *G.Node, state []*G.Node) []*G.Node
}

// LearnedState is a learnable initial state: the parameter name of p, of
// shape [size], broadcast over the batch to [batch, size]. Its gradient is
// the sum over the batch of the gradients reaching the state.
func (b *Builder) LearnedState(p *Params, name string, batch int) *G.Node {
	v := b.Param(p, name)
	if v == nil {
		return nil
	}
	if v.Dims() != 1 {
		b.Fail(errors.Errorf("parameter %q has shape %v, want [size]", name, v.Shape()), "graph: LearnedState")
		return nil
	}
	return b.AddRow(b.ZeroState(batch, v.Shape()[0]), v)
}

// ZeroState is a fixed initial state of zeros, [batch, size].
func (b *Builder) ZeroState(batch, size int) *G.Node {
	return b.Input("zeros", batch, size)
}

// CheckCell builds c's initial state and one step for a batch of two in a
// scratch graph and reports the first problem: an op whose shapes do not
// fit (gorgonia's message names the op and the shapes), or a state of the
// wrong count or shape. Models call it when they are built, so a cell
// that cannot run fails before any training.
func CheckCell(c Cell) error {
	const batch = 2
	b := NewBuilder()
	state := c.InitialState(b, batch)
	if err := checkState(b, c, state, batch); err != nil {
		return errors.Wrap(err, "graph: cell initial state")
	}
	x := b.Input("x", batch, c.InputSize())
	next := c.Step(b, x, state)
	if err := checkState(b, c, next, batch); err != nil {
		return errors.Wrap(err, "graph: cell step")
	}
	return nil
}

// Unrolled is a cell unrolled over a fixed number of steps.
type Unrolled struct {
	// Inputs[t] is the input node of step t, shape [batch, InputSize()].
	Inputs []*G.Node
	// StateIn holds the input nodes of the carried state when the chunk
	// continues a previous one (nil for a first chunk, which starts from
	// the cell's InitialState).
	StateIn []*G.Node
	// Outputs[t] is state 0 after step t, shape [batch, StateSizes()[0]].
	Outputs []*G.Node
	// StateOut is the state after the last step; its nodes are watched
	// (Builder.Watch) so Machine.Value can read them.
	StateOut []*G.Node
}

// Unroll builds steps steps of c for a batch as one graph. If carry is
// false the chunk starts from c.InitialState (gradients reach the initial
// state's parameters); if carry is true it starts from input nodes
// (StateIn) that the caller binds to the previous chunk's StateOut.
// gorgonia's compile time grows quadratically with graph size, so train
// with Recurrence, which compiles one step; Unroll is the reference it is
// tested against, and suits short sequences in a user's own graph.
func Unroll(b *Builder, c Cell, batch, steps int, carry bool) (*Unrolled, error) {
	if err := b.Err(); err != nil {
		return nil, err
	}
	if batch <= 0 || steps <= 0 {
		return nil, errors.Errorf("graph: unroll needs a positive batch and step count, got batch %d, steps %d", batch, steps)
	}
	u := &Unrolled{}
	var state []*G.Node
	if carry {
		for i, s := range c.StateSizes() {
			n := b.Input(fmt.Sprintf("state%d", i), batch, s)
			u.StateIn = append(u.StateIn, n)
		}
		state = u.StateIn
	} else {
		state = c.InitialState(b, batch)
	}
	if err := checkState(b, c, state, batch); err != nil {
		return nil, errors.Wrap(err, "initial state")
	}
	for t := 0; t < steps; t++ {
		x := b.Input(fmt.Sprintf("x%d", t), batch, c.InputSize())
		u.Inputs = append(u.Inputs, x)
		state = c.Step(b, x, state)
		if err := checkState(b, c, state, batch); err != nil {
			return nil, errors.Wrapf(err, "step %d", t)
		}
		u.Outputs = append(u.Outputs, state[0])
	}
	for _, n := range state {
		b.Watch(n)
	}
	u.StateOut = state
	return u, b.Err()
}

func checkState(b *Builder, c Cell, state []*G.Node, batch int) error {
	if err := b.Err(); err != nil {
		return err
	}
	sizes := c.StateSizes()
	if len(state) != len(sizes) {
		return errors.Errorf("graph: cell returned %d state tensors, StateSizes lists %d", len(state), len(sizes))
	}
	for i, s := range state {
		if s == nil {
			return errors.Errorf("graph: cell state %d is nil", i)
		}
		sh := s.Shape()
		if len(sh) != 2 || sh[0] != batch || sh[1] != sizes[i] {
			return errors.Errorf("graph: cell state %d has shape %v, want [%d %d]", i, sh, batch, sizes[i])
		}
	}
	return nil
}
