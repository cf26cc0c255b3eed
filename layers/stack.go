package layers

import (
	"fmt"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// Stack is a graph.Cell made of cells run one above the other in each
// step, as PyTorch's multi-layer RNNs: cell 0 reads the step's input, cell
// k+1 reads state 0 of cell k after the step, and the output layer reads
// state 0 of the top cell.
//
// Its state is every state of every cell. State 0 is the top cell's state
// 0 (the one graph.Cell says output layers read); the others follow, cell
// by cell from the bottom, each cell's states in its own order, the top
// cell's state 0 left out. Only Builder operations of the cells run, so
// a Stack of cells the tape records runs on the tape (a Stack has no
// hand-written kernel of its own, even when its cells have one).
type Stack struct {
	cells   []graph.Cell
	slots   [][]int // slots[k][j]: the stack state of state j of cell k
	sizes   []int
	dropout float64
}

var _ graph.Cell = (*Stack)(nil)

// NewStack stacks cells, bottom first. The input width of each cell after
// the first must be the width of state 0 of the cell below.
func NewStack(cells ...graph.Cell) (*Stack, error) {
	if len(cells) == 0 {
		return nil, errors.New("layers: a stack needs at least one cell")
	}
	for k, c := range cells {
		if c == nil || len(c.StateSizes()) == 0 {
			return nil, errors.Errorf("layers: stack cell %d is nil or has no state", k)
		}
		if k > 0 {
			if in, h := c.InputSize(), cells[k-1].StateSizes()[0]; in != h {
				return nil, errors.Errorf("layers: stack cell %d reads %d inputs, cell %d's state 0 has width %d", k, in, k-1, h)
			}
		}
	}
	top := len(cells) - 1
	s := &Stack{cells: cells, slots: make([][]int, len(cells)), sizes: []int{cells[top].StateSizes()[0]}}
	for k, c := range cells {
		for j, size := range c.StateSizes() {
			if k == top && j == 0 {
				s.slots[k] = append(s.slots[k], 0)
				continue
			}
			s.slots[k] = append(s.slots[k], len(s.sizes))
			s.sizes = append(s.sizes, size)
		}
	}
	return s, nil
}

// NewStackOf makes layers cells registered as model (see NewCell) and
// stacks them; with one layer it returns the cell itself, named name, so
// that its parameters keep the names of an unstacked cell. Cell k of a
// deeper stack is named "name/k"; cfg.In is the width of the input of
// cell 0, and each cell above reads the state 0 of the one below.
func NewStackOf(model string, p *params.Params, name string, cfg CellConfig, layers int, rng *rand.Rand) (graph.Cell, error) {
	if layers < 1 {
		return nil, errors.Errorf("layers: a stack needs at least one layer, got %d", layers)
	}
	if layers == 1 {
		return NewCell(model, p, name, cfg, rng)
	}
	cells := make([]graph.Cell, layers)
	for k := range cells {
		c, err := NewCell(model, p, fmt.Sprintf("%s/%d", name, k), cfg, rng)
		if err != nil {
			return nil, errors.WithMessagef(err, "layer %d", k)
		}
		cells[k] = c
		cfg.In = c.StateSizes()[0]
	}
	return NewStack(cells...)
}

// SetDropout sets the rate of dropout (graph.Builder.Dropout) on the
// output of each cell but the top one, as torch.nn.LSTM's dropout: on
// while training, the identity in evaluation and use. rate is in [0, 1);
// 0 (the default) is none.
func (s *Stack) SetDropout(rate float64) error {
	if !(rate >= 0 && rate < 1) {
		return errors.Errorf("layers: dropout rate must be in [0, 1), got %g", rate)
	}
	s.dropout = rate
	return nil
}

// Cells returns the stacked cells, bottom first.
func (s *Stack) Cells() []graph.Cell { return append([]graph.Cell(nil), s.cells...) }

// InputSize implements graph.Cell: the bottom cell's input width.
func (s *Stack) InputSize() int { return s.cells[0].InputSize() }

// StateSizes implements graph.Cell.
func (s *Stack) StateSizes() []int { return append([]int(nil), s.sizes...) }

// InitialState implements graph.Cell: every cell's initial state.
func (s *Stack) InitialState(b *graph.Builder, batch int) []*G.Node {
	out := make([]*G.Node, len(s.sizes))
	for k, c := range s.cells {
		s.scatter(k, c.InitialState(b, batch), out)
	}
	return out
}

// Step implements graph.Cell: the cells' steps from the bottom up.
func (s *Stack) Step(b *graph.Builder, x *G.Node, state []*G.Node) []*G.Node {
	out := make([]*G.Node, len(s.sizes))
	for k, c := range s.cells {
		in := make([]*G.Node, len(s.slots[k]))
		for j, i := range s.slots[k] {
			in[j] = state[i]
		}
		next := c.Step(b, x, in)
		if !s.scatter(k, next, out) {
			return nil
		}
		x = next[0]
		if s.dropout > 0 && k < len(s.cells)-1 {
			x = b.Dropout(x, s.dropout)
		}
	}
	return out
}

// scatter puts the states of cell k into the stack's state out; false
// (and nothing done) when the cell returned a state of the wrong count,
// which graph.CheckCell reports for the stack.
func (s *Stack) scatter(k int, st, out []*G.Node) bool {
	if len(st) != len(s.slots[k]) {
		return false
	}
	for j, i := range s.slots[k] {
		out[i] = st[j]
	}
	return true
}
