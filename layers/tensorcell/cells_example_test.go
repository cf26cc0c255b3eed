package tensorcell_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/decomp"
	"github.com/rtnlab/rtn/params"
)

// Example_decomposedWeights holds a 2-RNN's transition tensor A [16, 5, 16]
// as CP, Tucker and tensor-train factors, and applies each to (h, x)
// without forming A.
func Example_decomposedWeights() {
	rng := rand.New(rand.NewPCG(1, 2))
	p := params.New()
	modes, out := []int{16, 5}, 16
	cp, err := decomp.NewCP(p, "cp", modes, out, 8)
	check(err)
	tucker, err := decomp.NewTucker(p, "tucker", modes, out, []int{8, 3, 8})
	check(err)
	tt, err := decomp.NewTT(p, "tt", modes, out, []int{8, 8})
	check(err)
	weights, names := []decomp.Weight{cp, tucker, tt}, []string{"CP", "Tucker", "TT"}
	std := 1 / math.Sqrt(16*5) // A's entries, as a full 2-RNN draws them

	b := graph.NewBuilder()
	h, x := b.Input("h", 1, 16), b.Input("x", 1, 5)
	var ys []*G.Node
	for _, w := range weights {
		ys = append(ys, b.Watch(w.Apply(b, h, x)))
	}
	m, err := graph.Compile(b, nil, nil)
	check(err)
	hv, xv := make([]float64, 16), []float64{0, 0, 1, 0, 0}
	for i := range hv {
		hv[i] = rng.NormFloat64()
	}
	check(m.Let(h, hv))
	check(m.Let(x, xv))

	for k, w := range weights {
		var ss float64 // A's mean square entry over 100 draws
		for range 100 {
			check(w.Init(rng, std))
			for _, v := range w.Full() { // A, [16 * 5 * 16], for tests and export
				ss += v * v / (100 * 1280)
			}
		}
		check(m.Run())
		y, err := m.Value(ys[k])
		check(err)
		full, worst := w.Full(), 0.0
		for j := range out { // y_j = sum_{i,c} A[i, c, j] h_i x_c
			var want float64
			for i := range 16 {
				for c := range 5 {
					want += full[(i*5+c)*out+j] * hv[i] * xv[c]
				}
			}
			worst = math.Max(worst, math.Abs(y[j]-want))
		}
		n := 0
		for _, name := range w.Names() {
			n += len(p.Data(name))
		}
		fmt.Printf("%-6s %3d parameters for A's %d entries; their standard deviation %.3f (1/sqrt(80) = %.3f); Apply is A(h, x): %v\n",
			names[k], n, len(full), math.Sqrt(ss), std, worst < 1e-12)
	}
	// Output:
	// CP     296 parameters for A's 1280 entries; their standard deviation 0.112 (1/sqrt(80) = 0.112); Apply is A(h, x): true
	// Tucker 463 parameters for A's 1280 entries; their standard deviation 0.115 (1/sqrt(80) = 0.112); Apply is A(h, x): true
	// TT     576 parameters for A's 1280 entries; their standard deviation 0.112 (1/sqrt(80) = 0.112); Apply is A(h, x): true
}

// Example_builtinCells makes the four tensor cells by name, as rtn train
// -model does, and a stack of two.
func Example_builtinCells() {
	rng := rand.New(rand.NewPCG(1, 2))
	task, _, err := datasets.PFATask(datasets.PFAConfig{}, rng)
	check(err)
	for _, c := range []struct {
		name   string
		cfg    layers.CellConfig
		layers int
	}{
		{"cp2rnn", layers.CellConfig{Hidden: 32, Rank: 8}, 1},
		{"hotrnn", layers.CellConfig{Hidden: 32, Order: 3, Lags: 2, Rank: 4}, 1},
		{"mirnn", layers.CellConfig{Hidden: 32}, 1},
		{"mpscell", layers.CellConfig{Hidden: 32}, 1},
		{"cp2rnn", layers.CellConfig{Hidden: 32, Rank: 8}, 2},
	} {
		c.cfg.In = task.In
		m, err := layers.NewModel(layers.ModelConfig{Cell: c.name, Config: c.cfg, Layers: c.layers,
			Out: task.Out, Kind: task.Kind.String(), Input: layers.InputNextSymbol, Symbols: task.Symbols}, rng)
		check(err)
		prob, err := layers.NewProblem(m.Seq, task, m.Config.ProblemConfig())
		check(err)
		fmt.Printf("%s x %d: %5d parameters, states %v, executor %s\n",
			c.name, c.layers, m.Seq.Params.Size(), m.Seq.Cell.StateSizes(), prob.Executor())
	}
	_, err = layers.NewCell("mirnn", params.New(), "mirnn", layers.CellConfig{In: task.In, Hidden: 32, Rank: 8}, rng)
	fmt.Println(err)
	// Output:
	// cp2rnn x 1:   748 parameters, states [32], executor tape/float64
	// hotrnn x 1:  2824 parameters, states [32 32], executor tape/float64
	// mirnn x 1:  1476 parameters, states [32], executor tape/float64
	// mpscell x 1:  5284 parameters, states [32], executor tape/float64
	// cp2rnn x 2:  1580 parameters, states [32 32], executor tape/float64
	// layers: cell mirnn has no rank to set
}

// softsignCell is an Elman cell with the nonlinearity z / (1 + |z|),
// written with Builder ops or, with viaDo, with gorgonia's own functions
// through Builder.Do, which the tape cannot record.
type softsignCell struct {
	p      *params.Params
	in, hs int
	viaDo  bool
}

func (c *softsignCell) InputSize() int    { return c.in }
func (c *softsignCell) StateSizes() []int { return []int{c.hs} }
func (c *softsignCell) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.ZeroState(batch, c.hs)}
}

func (c *softsignCell) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	z := b.Add(b.Mul(x, b.Param(c.p, "W")), b.Mul(h[0], b.Param(c.p, "U")))
	if !c.viaDo {
		return []*G.Node{b.Div(z, b.Shift(b.Abs(z), 1))}
	}
	return []*G.Node{b.Do("softsign", func() (*G.Node, error) {
		a, err := G.Abs(z)
		if err != nil {
			return nil, err
		}
		d, err := G.Add(a, G.NewConstant(1.0))
		if err != nil {
			return nil, err
		}
		return G.HadamardDiv(z, d)
	})}
}

// Example_executor shows which executor runs a cell, and the warning of a
// fall-back to gorgonia's compiled graphs.
func Example_executor() {
	rng := rand.New(rand.NewPCG(1, 2))
	task, _, err := datasets.PFATask(datasets.PFAConfig{}, rng)
	check(err)
	for _, viaDo := range []bool{false, true} {
		p := params.New()
		for _, w := range []struct {
			name string
			rows int
		}{{"W", task.In}, {"U", 8}} {
			_, err := p.Add(w.name, w.rows, 8)
			check(err)
			check(p.InitNormal(w.name, rng, 0.3))
		}
		seq, err := layers.NewSequence(p, &softsignCell{p, task.In, 8, viaDo}, task.Out, task.Kind)
		check(err)
		var log bytes.Buffer
		prob, err := layers.NewProblem(seq, task, layers.ProblemConfig{Log: &log})
		check(err)
		fmt.Printf("Builder.Do: %v, executor: %s\n", viaDo, prob.Executor())
		if viaDo {
			fmt.Println(strings.SplitN(log.String(), ": graph: ", 2)[0])
			fmt.Println("reason names the call:", strings.Contains(prob.Executor().Reason, `Builder.Do("softsign")`))
			_, err = layers.NewProblem(seq, task, layers.ProblemConfig{DType: graph.Float32, Log: &log})
			fmt.Println("float32 refused:", err != nil)
		}
	}
	// Output:
	// Builder.Do: false, executor: tape/float64
	// Builder.Do: true, executor: graph/float64
	// layers: warning: the cell *tensorcell_test.softsignCell falls back to gorgonia's compiled graphs, several times slower than the tape
	// reason names the call: true
	// float32 refused: true
}
