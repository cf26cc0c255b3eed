package layers_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/params"
)

// stackCells lists stacks to test: one of three different cells (a
// two-state LSTM in the middle, the user cell on top, so state 0 of the
// stack is not the first cell's), and the registry's two-layer GRU.
func stackCells() []anyCell {
	return []anyCell{
		{"rnn-lstm-user", func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.Cell, error) {
			var cells []graph.Cell
			for k, c := range []struct {
				model string
				cfg   layers.CellConfig
			}{{"rnn", layers.CellConfig{In: in, Hidden: hidden + 1}}, {"lstm", layers.CellConfig{In: hidden + 1, Hidden: hidden}}, {testCell, layers.CellConfig{In: hidden, Hidden: hidden - 1}}} {
				cell, err := layers.NewCell(c.model, p, fmt.Sprintf("s%d", k), c.cfg, rng)
				if err != nil {
					return nil, err
				}
				cells = append(cells, cell)
			}
			if err := p.InitNormal("s1/c0", rng, 0.5); err != nil { // exercise the initial state's gradient
				return nil, err
			}
			return layers.NewStack(cells...)
		}},
		{"gru-2", func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.Cell, error) {
			return layers.NewStackOf("gru", p, "gru", layers.CellConfig{In: in, Hidden: hidden}, 2, rng)
		}},
	}
}

// TestStackTape checks stacks on the tape against the compiled graphs
// (losses and gradients to recurrenceTol, with truncation and
// checkpoints) and the tape's gradients against finite differences.
func TestStackTape(t *testing.T) {
	const in, hidden, out = 3, 4, 3
	for _, c := range stackCells() {
		for _, kind := range []datasets.TargetKind{datasets.Categorical, datasets.Real} {
			t.Run(fmt.Sprintf("%s/%s", c.name, kind), func(t *testing.T) {
				task := fusedTask(kind, in, out, rand.New(rand.NewPCG(8, uint64(kind))))
				seq := anyModel(t, c, task, hidden, 4)
				for _, cfg := range []layers.ProblemConfig{{}, {Chunk: 3}, {Checkpoint: 2}} {
					gen := cfg
					gen.Executor = layers.ExecGraph
					wantL, want := lossGrad(t, seq, task, gen)
					cfg.Executor = layers.ExecTape
					gotL, got := lossGrad(t, seq, task, cfg)
					if math.Abs(gotL-wantL) > recurrenceTol*math.Max(1, math.Abs(wantL)) {
						t.Errorf("%+v: loss %.17g, graphs %.17g", cfg, gotL, wantL)
					}
					compareGrads(t, fmt.Sprintf("%+v", cfg), seq.Params, got, want, recurrenceTol)
				}
				checkProblemGradients(t, seq, task, layers.ProblemConfig{Executor: layers.ExecTape})
			})
		}
	}
}

// TestStackState checks the stack's state layout: state 0 is the top
// cell's state 0, the rest follow cell by cell, and the parameter names of
// NewStackOf: the cell's own for one layer, name/k for more.
func TestStackState(t *testing.T) {
	p := params.New()
	s, err := stackCells()[0].make(p, 2, 4, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	// rnn [5], lstm [4 4], user [3]: the user cell's state first.
	if got, want := s.StateSizes(), []int{3, 5, 4, 4}; !slices.Equal(got, want) {
		t.Errorf("StateSizes() = %v, want %v", got, want)
	}
	for _, c := range []struct {
		layers int
		want   string
	}{{1, "lstm/W"}, {3, "lstm/2/W"}} {
		p := params.New()
		cell, err := layers.NewStackOf("lstm", p, "lstm", layers.CellConfig{In: 2, Hidden: 3}, c.layers, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if !p.Has(c.want) {
			t.Errorf("%d layers: parameters %v lack %s", c.layers, p.Names(), c.want)
		}
		if got := len(cell.StateSizes()); got != 2*c.layers {
			t.Errorf("%d layers: %d states, want %d", c.layers, got, 2*c.layers)
		}
	}
}

func TestStackErrors(t *testing.T) {
	p := params.New()
	rng := rand.New(rand.NewPCG(1, 1))
	a, err := layers.NewCell("rnn", p, "a", layers.CellConfig{In: 2, Hidden: 3}, rng)
	if err != nil {
		t.Fatal(err)
	}
	b, err := layers.NewCell("rnn", p, "b", layers.CellConfig{In: 4, Hidden: 3}, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		cells []graph.Cell
		want  string
	}{{"none", nil, "at least one"}, {"widths", []graph.Cell{a, b}, "reads 4 inputs"}, {"nil", []graph.Cell{a, nil}, "nil"}} {
		if _, err := layers.NewStack(c.cells...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := layers.NewStackOf("rnn", params.New(), "rnn", layers.CellConfig{In: 2, Hidden: 3}, 0, rng); err == nil {
		t.Error("a stack of 0 layers was accepted")
	}
}
