package layers_test

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/params"
)

// anyCell builds one cell, with or without a kernel, initialised from rng.
type anyCell struct {
	name string
	make func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.Cell, error)
}

// tapeCells lists every built-in cell (once per activation), then the
// cells without a kernel: the README's DiagCell, gatedCell (less common
// ops, two learned initial states) and projCell (a long input projection).
func tapeCells() []anyCell {
	var cells []anyCell
	for _, c := range fusedCells() {
		cells = append(cells, anyCell{c.name, func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.Cell, error) {
			return c.make(p, in, hidden, rng)
		}})
	}
	return append(cells,
		anyCell{"diag", func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.Cell, error) {
			p.Add("W", in, hidden)
			p.Add("d", hidden)
			p.Add("b", hidden)
			p.InitNormal("W", rng, 0.5)
			p.InitUniform("d", rng, 0.9)
			return &DiagCell{P: p, In: in, Hidden: hidden}, p.InitNormal("b", rng, 0.3)
		}},
		anyCell{"gated", func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.Cell, error) {
			c := &gatedCell{p: p, in: in, hidden: hidden}
			for _, s := range []struct {
				n     string
				shape []int
			}{{"g/W", []int{in + hidden, 2 * hidden}}, {"g/s", []int{hidden}}, {"g/h0", []int{hidden}}, {"g/c0", []int{hidden}}} {
				if _, err := p.Add(s.n, s.shape...); err != nil {
					return nil, err
				}
				if err := p.InitNormal(s.n, rng, 0.4); err != nil {
					return nil, err
				}
			}
			return c, nil
		}},
		anyCell{"projected", func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.Cell, error) {
			for _, s := range []struct {
				n     string
				shape []int
			}{{"p/W", []int{in, hidden}}, {"p/b", []int{hidden}}, {"p/U", []int{hidden, hidden}}, {"p/h0", []int{hidden}}} {
				if _, err := p.Add(s.n, s.shape...); err != nil {
					return nil, err
				}
				if err := p.InitNormal(s.n, rng, 0.5); err != nil {
					return nil, err
				}
			}
			return &projCell{p: p, in: in, hidden: hidden}, nil
		}},
		anyCell{"tensor", func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.Cell, error) {
			for _, s := range []struct {
				n     string
				shape []int
			}{{"t/W", []int{in, hidden, 2}}, {"t/L", []int{2, 2}}, {"t/V", []int{hidden, 2}}, {"t/A", []int{in, hidden * hidden}}, {"t/h0", []int{hidden}}} {
				if _, err := p.Add(s.n, s.shape...); err != nil {
					return nil, err
				}
				if err := p.InitNormal(s.n, rng, 0.5); err != nil {
					return nil, err
				}
			}
			return &tensorCell{p: p, in: in, hidden: hidden}, nil
		}})
}

// tensorCell is a second-order cell written with the tensor ops; its
// rank-3 input projections u and w are read and written with the
// projection's row stride:
//
//	u = einsum(bi,ijk->bjk; x, W),  w = einsum(bjk,kl->bjl; u, L),
//	v = einsum(bjk,bk->bj; w, h V),  h' = tanh(Kron(x, h) A + v)
//
// with A [in, H*H] read as [in*H, H].
type tensorCell struct {
	p          *params.Params
	in, hidden int
}

func (c *tensorCell) InputSize() int    { return c.in }
func (c *tensorCell) StateSizes() []int { return []int{c.hidden} }

func (c *tensorCell) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.LearnedState(c.p, "t/h0", batch)}
}

func (c *tensorCell) Step(b *graph.Builder, x *G.Node, s []*G.Node) []*G.Node {
	u := b.Einsum("bi,ijk->bjk", x, b.Param(c.p, "t/W"))
	w := b.Einsum("bjk,kl->bjl", u, b.Param(c.p, "t/L"))
	v := b.Einsum("bjk,bk->bj", w, b.Mul(s[0], b.Param(c.p, "t/V")))
	a := b.Reshape(b.Param(c.p, "t/A"), c.in*c.hidden, c.hidden)
	return []*G.Node{b.Tanh(b.Add(b.Mul(b.Kron(x, s[0]), a), v))}
}

// projCell is a cell whose input part (x only, row by row: the tape's
// input projection) chains many ops, some of whose values the backward
// pass reads:
//
//	a = tanh(x W + b),  l = logsoftmax([a, x / 2]),  g = sigmoid(l[:, :H]),
//	q = a * g / (1 + g^2),  h' = tanh(q * h + h U)
type projCell struct {
	p          *params.Params
	in, hidden int
}

func (c *projCell) InputSize() int    { return c.in }
func (c *projCell) StateSizes() []int { return []int{c.hidden} }

func (c *projCell) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.LearnedState(c.p, "p/h0", batch)}
}

func (c *projCell) Step(b *graph.Builder, x *G.Node, s []*G.Node) []*G.Node {
	a := b.Tanh(b.AddRow(b.Mul(x, b.Param(c.p, "p/W")), b.Param(c.p, "p/b")))
	l := b.LogSoftmax(b.Concat(1, a, b.Scale(x, 0.5)), 1)
	g := b.Sigmoid(b.Cols(l, 0, c.hidden))
	q := b.Div(b.Hadamard(a, g), b.Shift(b.Square(g), 1))
	return []*G.Node{b.Tanh(b.Add(b.Hadamard(q, s[0]), b.Mul(s[0], b.Param(c.p, "p/U"))))}
}

// gatedCell is a two-state cell of less common ops:
//
//	[a u] = [x h] W,  p = softmax(a),  c' = (c + p * s) / (1 + |u|),
//	h' = log1pexp(u) - c'^2 / 4 + mean over the batch of h
//
// with learned h0 and c0.
type gatedCell struct {
	p          *params.Params
	in, hidden int
}

func (c *gatedCell) InputSize() int    { return c.in }
func (c *gatedCell) StateSizes() []int { return []int{c.hidden, c.hidden} }

func (c *gatedCell) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.LearnedState(c.p, "g/h0", batch), b.Tanh(b.LearnedState(c.p, "g/c0", batch))}
}

func (c *gatedCell) Step(b *graph.Builder, x *G.Node, s []*G.Node) []*G.Node {
	H, batch := c.hidden, x.Shape()[0]
	z := b.Mul(b.Concat(1, x, s[0]), b.Param(c.p, "g/W"))
	a, u := b.Cols(z, 0, H), b.Cols(z, H, 2*H)
	pr := b.Softmax(a, 1)
	cn := b.Div(b.Add(s[1], b.MulRow(pr, b.Param(c.p, "g/s"))), b.Shift(b.Abs(u), 1))
	mean := b.Reshape(b.Mean(s[0], 0), 1, H)
	ones := b.Constant(onesOf(batch), batch, 1)
	h := b.Add(b.Sub(b.Log1pExp(u), b.Scale(b.Square(cn), 0.25)), b.Mul(ones, mean))
	return []*G.Node{h, cn}
}

func onesOf(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// anyModel builds a Sequence on a cell for a task.
func anyModel(t *testing.T, c anyCell, task *datasets.Task, hidden int, seed uint64) *layers.Sequence {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	p := params.New()
	cell, err := c.make(p, task.In, hidden, rng)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := layers.NewSequence(p, cell, task.Out, task.Kind)
	if err != nil {
		t.Fatal(err)
	}
	if err := seq.InitHead(rng); err != nil {
		t.Fatal(err)
	}
	if err := p.InitNormal(layers.OutB, rng, 0.3); err != nil {
		t.Fatal(err)
	}
	return seq
}

// TestTapeMatchesGraph runs every cell through the tape executor and the
// compiled graphs on a masked batch of three lengths, with every target
// kind, full BPTT, truncation and checkpoints: losses and gradients agree
// to 1e-12, checkpoints change no bit of the tape's result, nor does a
// second run.
func TestTapeMatchesGraph(t *testing.T) {
	const in, hidden, out = 3, 4, 3
	cfgs := []layers.ProblemConfig{{}, {Chunk: 3}, {Checkpoint: 3}, {Chunk: 3, Checkpoint: 2}, {Checkpoint: 20}}
	for _, c := range tapeCells() {
		for _, kind := range []datasets.TargetKind{datasets.Categorical, datasets.Binary, datasets.Real} {
			t.Run(fmt.Sprintf("%s/%s", c.name, kind), func(t *testing.T) {
				task := fusedTask(kind, in, out, rand.New(rand.NewPCG(3, uint64(kind))))
				seq := anyModel(t, c, task, hidden, 7)
				var ref [2]*params.Params // without checkpoints: full BPTT, truncated
				var refL [2]float64
				for _, cfg := range cfgs {
					gen := cfg
					gen.Executor = layers.ExecGraph
					wantL, want := lossGrad(t, seq, task, gen)
					cfg.Executor = layers.ExecTape
					gotL, got := lossGrad(t, seq, task, cfg)
					if want.Norm() == 0 {
						t.Fatal("the graph gradient is zero: the comparison proves nothing")
					}
					if math.Abs(gotL-wantL) > recurrenceTol*math.Max(1, math.Abs(wantL)) {
						t.Errorf("%+v: loss %.17g, graphs %.17g", cfg, gotL, wantL)
					}
					compareGrads(t, fmt.Sprintf("%+v", cfg), seq.Params, got, want, recurrenceTol)
					i := min(cfg.Chunk, 1)
					if cfg.Checkpoint == 0 {
						ref[i], refL[i] = got, gotL
						againL, again := lossGrad(t, seq, task, cfg)
						if againL != gotL {
							t.Errorf("rerun: loss %v, was %v", againL, gotL)
						}
						compareGrads(t, "rerun", seq.Params, again, got, 0)
						continue
					}
					if gotL != refL[i] {
						t.Errorf("%+v: loss %v, without checkpoints %v", cfg, gotL, refL[i])
					}
					compareGrads(t, fmt.Sprintf("%+v against no checkpoints", cfg), seq.Params, got, ref[i], 0)
				}
			})
		}
	}
}

// TestTapeGradients checks the tape's gradients of the cells without a
// kernel against finite differences of its own loss.
func TestTapeGradients(t *testing.T) {
	const in, hidden, out = 3, 4, 3
	for _, c := range tapeCells()[len(fusedCells()):] {
		t.Run(c.name, func(t *testing.T) {
			task := fusedTask(datasets.Categorical, in, out, rand.New(rand.NewPCG(4, 1)))
			checkProblemGradients(t, anyModel(t, c, task, hidden, 9), task, layers.ProblemConfig{Executor: layers.ExecTape, Checkpoint: 4})
		})
	}
}

// TestTapeNoAllocations checks that the tape executor allocates nothing
// once its buffers have grown, with and without checkpoints.
func TestTapeNoAllocations(t *testing.T) {
	const in, hidden, out = 5, 70, 4 // 70 > 64: products are cut into tiles
	for _, c := range tapeCells() {
		for _, ck := range []int{0, 4} {
			t.Run(fmt.Sprintf("%s/checkpoint%d", c.name, ck), func(t *testing.T) {
				task := fusedTask(datasets.Binary, in, out, rand.New(rand.NewPCG(5, 1)))
				seq := anyModel(t, c, task, hidden, 3)
				bt, err := datasets.MakeBatch(task, task.Train, []int{0, 1, 2})
				if err != nil {
					t.Fatal(err)
				}
				r, err := seq.TapeRecurrence(bt.B, graph.RecurrenceConfig{Checkpoint: ck})
				if err != nil {
					t.Fatal(err)
				}
				checkNoAllocations(t, r, seq, bt)
			})
		}
	}
}

// TestTapeLongSequences runs sequences longer than the executor's blocks of
// steps (lengths 150, 130 and 70) through the tape and the compiled graphs,
// with checkpoint intervals that do not divide them.
func TestTapeLongSequences(t *testing.T) {
	const in, hidden, out = 3, 4, 3
	for _, c := range tapeCells()[len(fusedCells()):] {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(12, 1))
			task := &datasets.Task{Name: "long", In: in, Out: out, Kind: datasets.Real}
			for _, T := range []int{150, 130, 70} {
				e := datasets.Example{T: T, X: make([]float64, T*in), Y: make([]float64, T*out)}
				for j := range e.X {
					e.X[j] = rng.NormFloat64()
				}
				for j := range e.Y {
					e.Y[j] = rng.NormFloat64()
				}
				task.Train = append(task.Train, e)
			}
			seq := anyModel(t, c, task, hidden, 5)
			wantL, want := lossGrad(t, seq, task, layers.ProblemConfig{Executor: layers.ExecGraph})
			refL, ref := lossGrad(t, seq, task, layers.ProblemConfig{Executor: layers.ExecTape})
			if math.Abs(refL-wantL) > recurrenceTol*math.Max(1, math.Abs(wantL)) {
				t.Errorf("loss %.17g, graphs %.17g", refL, wantL)
			}
			compareGrads(t, "against the graphs", seq.Params, ref, want, recurrenceTol)
			for _, ck := range []int{7, 100} {
				l, g := lossGrad(t, seq, task, layers.ProblemConfig{Executor: layers.ExecTape, Checkpoint: ck})
				if l != refL {
					t.Errorf("checkpoint %d: loss %v, want %v", ck, l, refL)
				}
				compareGrads(t, fmt.Sprintf("checkpoint %d", ck), seq.Params, g, ref, 0)
			}
		})
	}
}

// rawCell is DiagCell with its nonlinearity applied through Builder.Do, an
// op the tape does not record.
type rawCell struct{ DiagCell }

func (c *rawCell) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	z := b.Add(b.Mul(x, b.Param(c.P, "W")), b.MulRow(h[0], b.Param(c.P, "d")))
	return []*G.Node{b.Do("tanh", func() (*G.Node, error) { return G.Tanh(z) })}
}

// TestTapeFallback checks the executor choice: a cell using an op outside
// the record runs on the compiled graphs by default, is refused by the
// tape and the fused executors, and an unknown executor is an error.
func TestTapeFallback(t *testing.T) {
	const in, hidden, out = 3, 4, 3
	task := fusedTask(datasets.Real, in, out, rand.New(rand.NewPCG(6, 1)))
	raw := anyCell{"raw", func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.Cell, error) {
		c, err := tapeCells()[len(fusedCells())].make(p, in, hidden, rng)
		if err != nil {
			return nil, err
		}
		return &rawCell{*c.(*DiagCell)}, nil
	}}
	seq := anyModel(t, raw, task, hidden, 2)
	if _, err := seq.TapeRecurrence(2, graph.RecurrenceConfig{}); !errors.Is(err, graph.ErrNotRecorded) {
		t.Fatalf("tape on a cell with Builder.Do: %v", err)
	}
	wantL, want := lossGrad(t, seq, task, layers.ProblemConfig{Executor: layers.ExecGraph})
	gotL, got := lossGrad(t, seq, task, layers.ProblemConfig{Log: io.Discard})
	if gotL != wantL {
		t.Errorf("default executor: loss %v, graphs %v", gotL, wantL)
	}
	compareGrads(t, "default executor", seq.Params, got, want, 0)
	for _, cfg := range []layers.ProblemConfig{{Executor: layers.ExecTape}, {Executor: layers.ExecFused}, {Executor: "gpu"}} {
		if _, err := layers.NewProblem(seq, task, cfg); err == nil {
			t.Errorf("executor %q on a cell without a kernel or record: no error", cfg.Executor)
		}
	}
}

// TestParamsChangeBetweenPasses runs one recurrence twice with the
// parameters changed in between, as training does: the second run (whose
// products by parameters re-pack them when the pass starts) gives the bits
// of a recurrence built afresh on the changed parameters, on the tape for
// every cell and on the hand-written kernels of the built-in cells, in
// float64 and float32.
func TestParamsChangeBetweenPasses(t *testing.T) {
	const in, hidden, out = 3, 70, 3 // 70 > 64: the packed products run in tiles
	type builder func(*layers.Sequence, int) (*graph.FusedRecurrence, error)
	kernel := func(f32 bool) builder {
		return func(seq *layers.Sequence, batch int) (*graph.FusedRecurrence, error) {
			var r *graph.FusedRecurrence
			var ok bool
			var err error
			if f32 {
				r, ok, err = seq.FusedRecurrence32(batch, graph.RecurrenceConfig{})
			} else {
				r, ok, err = seq.FusedRecurrence(batch, graph.RecurrenceConfig{})
			}
			if err == nil && !ok {
				err = errors.New("no kernel")
			}
			return r, err
		}
	}
	tape := func(f32 bool) builder {
		return func(seq *layers.Sequence, batch int) (*graph.FusedRecurrence, error) {
			if f32 {
				return seq.TapeRecurrence32(batch, graph.RecurrenceConfig{})
			}
			return seq.TapeRecurrence(batch, graph.RecurrenceConfig{})
		}
	}
	for i, c := range tapeCells() {
		for _, dt := range graph.DTypes() {
			f32 := dt == graph.Float32
			execs := map[string]builder{"tape": tape(f32)}
			if i < len(fusedCells()) {
				execs["kernel"] = kernel(f32)
			}
			for name, build := range execs {
				t.Run(fmt.Sprintf("%s/%s/%s", c.name, name, dt), func(t *testing.T) {
					task := fusedTask(datasets.Binary, in, out, rand.New(rand.NewPCG(8, 1)))
					seq := anyModel(t, c, task, hidden, 5)
					bt, err := datasets.MakeBatch(task, task.Train, []int{0, 1, 2})
					if err != nil {
						t.Fatal(err)
					}
					aux := make([][][]float64, bt.T)
					for s := range aux {
						aux[s] = [][]float64{bt.Y[s], bt.Mask[s]}
					}
					run := func(r *graph.FusedRecurrence) (float64, *params.Params) {
						g := seq.Params.Like()
						l, err := r.Run(bt.X, aux, g)
						if err != nil {
							t.Fatal(err)
						}
						return l, g
					}
					r, err := build(seq, bt.B)
					if err != nil {
						t.Fatal(err)
					}
					l0, _ := run(r)
					for _, n := range seq.Params.Names() {
						for i := range seq.Params.Data(n) {
							seq.Params.Data(n)[i] *= 0.9
						}
					}
					l1, g1 := run(r)
					fresh, err := build(seq, bt.B)
					if err != nil {
						t.Fatal(err)
					}
					l2, g2 := run(fresh)
					if l1 == l0 {
						t.Fatal("the loss did not change with the parameters: the test proves nothing")
					}
					if l1 != l2 {
						t.Errorf("loss after the change %v, afresh %v", l1, l2)
					}
					compareGrads(t, "after the change against afresh", seq.Params, g1, g2, 0)
				})
			}
		}
	}
}
