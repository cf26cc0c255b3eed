package layers_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/rnn"
	"github.com/rtnlab/rtn/layers/twornn"
)

// recurrenceTol is the agreement required between the step-compiled
// recurrence and the unrolled graph: the same arithmetic in another order.
const recurrenceTol = 1e-12

// unrolledLoss computes the summed masked loss of a batch and its gradient
// with the whole sequence unrolled into one graph, the reference for
// graph.Recurrence.
func unrolledLoss(t *testing.T, seq *layers.Sequence, bt datasets.Batch, grads *graph.Params) float64 {
	t.Helper()
	b := graph.NewBuilder()
	u, err := graph.Unroll(b, seq.Cell, bt.B, bt.T, false)
	if err != nil {
		t.Fatal(err)
	}
	var total *G.Node
	var aux [][]*G.Node
	for _, h := range u.Outputs {
		l, in := seq.Head(b, h)
		aux = append(aux, in)
		if total == nil {
			total = l
		} else {
			total = b.Add(total, l)
		}
	}
	m, err := graph.Compile(b, total, seq.Params)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for s := 0; s < bt.T; s++ {
		for _, lv := range []struct {
			n *G.Node
			v []float64
		}{{u.Inputs[s], bt.X[s]}, {aux[s][0], bt.Y[s]}, {aux[s][1], bt.Mask[s]}} {
			if err := m.Let(lv.n, lv.v); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	if err := m.AddGrads(grads); err != nil {
		t.Fatal(err)
	}
	return m.Loss()
}

// TestRecurrenceMatchesUnrolled runs every built-in cell and the README's
// example cell through graph.Recurrence and through the unrolled graph,
// on a batch of sequences of different lengths (masked), and compares the
// loss and every gradient entry.
func TestRecurrenceMatchesUnrolled(t *testing.T) {
	const in, hidden, out = 3, 4, 2
	cells := []struct {
		name string
		make func(p *graph.Params, rng *rand.Rand) (graph.Cell, error)
	}{
		{"elman-tanh", func(p *graph.Params, rng *rand.Rand) (graph.Cell, error) {
			c, err := rnn.NewElman(p, "rnn", in, hidden, activation.Tanh)
			if err == nil {
				err = c.Init(rng)
			}
			return c, err
		}},
		{"elman-symsigmoid", func(p *graph.Params, rng *rand.Rand) (graph.Cell, error) {
			c, err := rnn.NewElman(p, "rnn", in, hidden, activation.SymSigmoid)
			if err == nil {
				err = c.Init(rng)
			}
			return c, err
		}},
		{"lstm", func(p *graph.Params, rng *rand.Rand) (graph.Cell, error) {
			c, err := rnn.NewLSTM(p, "lstm", in, hidden)
			if err == nil {
				err = c.Init(rng)
			}
			return c, err
		}},
		{"gru", func(p *graph.Params, rng *rand.Rand) (graph.Cell, error) {
			c, err := rnn.NewGRU(p, "gru", in, hidden)
			if err == nil {
				err = c.Init(rng)
			}
			return c, err
		}},
		{"2rnn-tanh", func(p *graph.Params, rng *rand.Rand) (graph.Cell, error) {
			c, err := twornn.NewCell(p, "tworn", in, hidden, activation.Tanh)
			if err == nil {
				err = c.Init(rng)
			}
			return c, err
		}},
		{"2rnn-leakyrelu", func(p *graph.Params, rng *rand.Rand) (graph.Cell, error) {
			c, err := twornn.NewCell(p, "tworn", in, hidden, activation.LeakyReLU)
			if err == nil {
				err = c.Init(rng)
			}
			if err == nil {
				err = c.SetSlope(0.3)
			}
			return c, err
		}},
		{"readme-diag", func(p *graph.Params, rng *rand.Rand) (graph.Cell, error) {
			p.Add("W", in, hidden)
			p.Add("d", hidden)
			p.Add("b", hidden)
			p.InitNormal("W", rng, 0.5)
			p.InitUniform("d", rng, 0.9)
			p.InitNormal("b", rng, 0.1)
			return &DiagCell{P: p, In: in, Hidden: hidden}, nil
		}},
	}
	for _, c := range cells {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 3))
			p := graph.NewParams()
			cell, err := c.make(p, rng)
			if err != nil {
				t.Fatal(err)
			}
			task := &datasets.Task{Name: "r", In: in, Out: out, Kind: datasets.Real}
			for i, T := range []int{5, 9, 7} {
				e := datasets.Example{T: T, X: make([]float64, T*in), Y: make([]float64, T*out)}
				for j := range e.X {
					e.X[j] = rng.NormFloat64()
				}
				for j := range e.Y {
					e.Y[j] = rng.NormFloat64() + float64(i)
				}
				task.Train = append(task.Train, e)
			}
			seq, err := layers.NewSequence(p, cell, out, datasets.Real)
			if err != nil {
				t.Fatal(err)
			}
			if err := seq.InitHead(rng); err != nil {
				t.Fatal(err)
			}
			bt, err := datasets.MakeBatch(task, task.Train, []int{0, 1, 2})
			if err != nil {
				t.Fatal(err)
			}
			want := p.Like()
			wantLoss := unrolledLoss(t, seq, bt, want)
			r, err := seq.Recurrence(bt.B, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			aux := make([][][]float64, bt.T)
			for s := range aux {
				aux[s] = [][]float64{bt.Y[s], bt.Mask[s]}
			}
			got := p.Like()
			gotLoss, err := r.Run(bt.X, aux, got)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(gotLoss-wantLoss) > recurrenceTol*math.Max(1, math.Abs(wantLoss)) {
				t.Errorf("loss %.17g, unrolled %.17g", gotLoss, wantLoss)
			}
			for _, n := range p.Names() {
				g, w := got.Data(n), want.Data(n)
				for i := range g {
					if math.Abs(g[i]-w[i]) > recurrenceTol*math.Max(1, math.Abs(w[i])) {
						t.Errorf("%s[%d]: %.17g, unrolled %.17g", n, i, g[i], w[i])
					}
				}
			}
			if want.Norm() == 0 {
				t.Fatal("the reference gradient is zero: the comparison proves nothing")
			}
			// A second run with the same inputs gives the same bits.
			again := p.Like()
			if l2, err := r.Run(bt.X, aux, again); err != nil || l2 != gotLoss || again.Norm() != got.Norm() {
				t.Errorf("rerun: loss %v (was %v), gradient norm %v (was %v), %v", l2, gotLoss, again.Norm(), got.Norm(), err)
			}
		})
	}
}

// TestRecurrenceTruncation checks truncated BPTT against its definition:
// with Truncate k, the gradient equals the sum over chunks of the unrolled
// gradient of each chunk started from the state the previous chunk left.
// Truncating at a length beyond the sequence changes nothing, and a
// shorter truncation changes the gradient but not the loss.
func TestRecurrenceTruncation(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	p := graph.NewParams()
	cell, err := rnn.NewElman(p, "rnn", 2, 3, activation.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	if err := cell.Init(rng); err != nil {
		t.Fatal(err)
	}
	seq, err := layers.NewSequence(p, cell, 2, datasets.Real)
	if err != nil {
		t.Fatal(err)
	}
	seq.InitHead(rng)
	const T = 8
	xs := make([][]float64, T)
	aux := make([][][]float64, T)
	for s := range xs {
		xs[s] = []float64{rng.NormFloat64(), rng.NormFloat64()}
		aux[s] = [][]float64{{rng.NormFloat64(), rng.NormFloat64()}, {1}}
	}
	run := func(k int) (float64, *graph.Params) {
		r, err := seq.Recurrence(1, k)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		g := p.Like()
		l, err := r.Run(xs, aux, g)
		if err != nil {
			t.Fatal(err)
		}
		return l, g
	}
	full, gFull := run(0)
	long, gLong := run(T)
	short, gShort := run(3)
	if full != long || gFull.Norm() != gLong.Norm() {
		t.Errorf("truncating at the sequence length changed the result: %v %v", full, long)
	}
	if math.Abs(full-short) > recurrenceTol*math.Abs(full) {
		t.Errorf("truncation changed the loss: %v, %v", full, short)
	}
	if math.Abs(gFull.Norm()-gShort.Norm()) < 1e-9 {
		t.Error("truncation at 3 of 8 steps left the gradient unchanged")
	}
	// The truncated gradient of the recurrent weights, rebuilt from chunk
	// runs: chunk [0,3) from the initial state, [3,6) and [6,8) from the
	// carried state with the initial state's gradient dropped.
	want := p.Like()
	carried := [][]float64(nil)
	for lo := 0; lo < T; lo += 3 {
		hi := min(lo+3, T)
		b := graph.NewBuilder()
		u, err := graph.Unroll(b, cell, 1, hi-lo, lo > 0)
		if err != nil {
			t.Fatal(err)
		}
		var total *G.Node
		var ins [][]*G.Node
		for _, h := range u.Outputs {
			l, in := seq.Head(b, h)
			ins = append(ins, in)
			if total == nil {
				total = l
			} else {
				total = b.Add(total, l)
			}
		}
		m, err := graph.Compile(b, total, p)
		if err != nil {
			t.Fatal(err)
		}
		for s := lo; s < hi; s++ {
			m.Let(u.Inputs[s-lo], xs[s])
			m.Let(ins[s-lo][0], aux[s][0])
			m.Let(ins[s-lo][1], aux[s][1])
		}
		for i, n := range u.StateIn {
			m.Let(n, carried[i])
		}
		if err := m.Run(); err != nil {
			t.Fatal(err)
		}
		m.AddGrads(want)
		carried = nil
		for _, n := range u.StateOut {
			v, _ := m.Value(n)
			carried = append(carried, v)
		}
		m.Close()
	}
	for _, n := range p.Names() {
		g, w := gShort.Data(n), want.Data(n)
		for i := range g {
			if math.Abs(g[i]-w[i]) > recurrenceTol*math.Max(1, math.Abs(w[i])) {
				t.Errorf("%s[%d]: %.17g, chunked reference %.17g", n, i, g[i], w[i])
			}
		}
	}
}

// badCell's step multiplies x [batch, 3] by a [4, 2] weight: its shapes do
// not fit, and NewSequence says so before any training.
type badCell struct{ p *graph.Params }

func (c badCell) InputSize() int    { return 3 }
func (c badCell) StateSizes() []int { return []int{2} }
func (c badCell) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.ZeroState(batch, 2)}
}
func (c badCell) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	return []*G.Node{b.Add(b.Mul(x, b.Param(c.p, "W")), h[0])}
}

// wideCell returns a state wider than StateSizes says.
type wideCell struct{ badCell }

func (c wideCell) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	return []*G.Node{b.Concat(1, h[0], h[0])}
}

func TestCellShapeErrorsAtBuild(t *testing.T) {
	p := graph.NewParams()
	p.Add("W", 4, 2)
	for _, tc := range []struct {
		name string
		cell graph.Cell
		want []string
	}{
		{"mul", badCell{p}, []string{"cell step", "(2, 3)", "(4, 2)"}},
		{"state", wideCell{badCell{p}}, []string{"cell step", "state 0 has shape (2, 4), want [2 2]"}},
	} {
		_, err := layers.NewSequence(p.Clone(), tc.cell, 1, datasets.Real)
		if err == nil {
			t.Fatalf("%s: NewSequence accepted a cell whose shapes do not fit", tc.name)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tc.name, err, w)
			}
		}
	}
}
