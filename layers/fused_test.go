package layers_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/rnn"
	"github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/params"
)

// fusedCell builds one built-in cell with a kernel, initialised from rng.
type fusedCell struct {
	name string
	make func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.FusedCell, error)
}

// fusedCells lists every built-in cell with a kernel, once per activation
// it supports.
func fusedCells() []fusedCell {
	var cells []fusedCell
	for _, a := range rnn.ElmanActivations() {
		cells = append(cells, fusedCell{"elman-" + a.String(), func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.FusedCell, error) {
			c, err := rnn.NewElman(p, "rnn", in, hidden, a)
			if err == nil {
				err = c.Init(rng)
			}
			return c, err
		}})
	}
	cells = append(cells,
		fusedCell{"lstm", func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.FusedCell, error) {
			c, err := rnn.NewLSTM(p, "lstm", in, hidden)
			if err == nil {
				err = c.Init(rng)
			}
			if err == nil { // nonzero initial states, so their gradients are exercised
				err = p.InitNormal("lstm/c0", rng, 0.5)
			}
			return c, err
		}},
		fusedCell{"gru", func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.FusedCell, error) {
			c, err := rnn.NewGRU(p, "gru", in, hidden)
			if err == nil {
				err = c.Init(rng)
			}
			if err == nil {
				err = p.InitNormal("gru/h0", rng, 0.5)
			}
			return c, err
		}})
	for _, a := range twornn.Activations() {
		cells = append(cells, fusedCell{"2rnn-" + a.String(), func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.FusedCell, error) {
			c, err := twornn.NewCell(p, "tworn", in, hidden, a)
			if err == nil {
				err = c.Init(rng)
			}
			if err == nil && a == activation.LeakyReLU {
				err = c.SetSlope(0.3)
			}
			return c, err
		}})
	}
	return cells
}

// fusedTask is a task of three sequences of lengths 5, 9 and 7 (a masked
// batch) with targets of the given kind.
func fusedTask(kind datasets.TargetKind, in, out int, rng *rand.Rand) *datasets.Task {
	return fusedTaskOf(kind, in, out, []int{5, 9, 7}, rng)
}

// fusedTaskOf is a task of sequences of the given lengths with targets of
// the given kind.
func fusedTaskOf(kind datasets.TargetKind, in, out int, lengths []int, rng *rand.Rand) *datasets.Task {
	task := &datasets.Task{Name: "fused", In: in, Out: out, Kind: kind}
	for _, T := range lengths {
		e := datasets.Example{T: T, X: make([]float64, T*in)}
		for j := range e.X {
			e.X[j] = rng.NormFloat64()
		}
		switch kind {
		case datasets.Categorical:
			e.Y = make([]float64, T)
			for j := range e.Y {
				e.Y[j] = float64(rng.IntN(out))
			}
		case datasets.Binary:
			e.Y = make([]float64, T*out)
			for j := range e.Y {
				e.Y[j] = float64(rng.IntN(2))
			}
		default:
			e.Y = make([]float64, T*out)
			for j := range e.Y {
				e.Y[j] = rng.NormFloat64()
			}
		}
		task.Train = append(task.Train, e)
	}
	return task
}

// fusedModel builds a Sequence on a cell with a kernel for a task, as
// anyModel does.
func fusedModel(t *testing.T, c fusedCell, task *datasets.Task, hidden int, seed uint64) *layers.Sequence {
	t.Helper()
	return anyModel(t, anyCell{c.name, func(p *params.Params, in, hidden int, rng *rand.Rand) (graph.Cell, error) {
		return c.make(p, in, hidden, rng)
	}}, task, hidden, seed)
}

// lossGrad runs the problem's LossGrad on the whole training set.
func lossGrad(t *testing.T, seq *layers.Sequence, task *datasets.Task, cfg layers.ProblemConfig) (float64, *params.Params) {
	t.Helper()
	return lossGradOf(t, seq, task, cfg, []int{0, 1, 2})
}

// lossGradOf runs the problem's LossGrad on the training examples idx.
func lossGradOf(t *testing.T, seq *layers.Sequence, task *datasets.Task, cfg layers.ProblemConfig, idx []int) (float64, *params.Params) {
	t.Helper()
	prob, err := layers.NewProblem(seq, task, cfg)
	if err != nil {
		t.Fatal(err)
	}
	g := seq.Params.Like()
	l, err := prob.LossGrad(idx, g)
	if err != nil {
		t.Fatal(err)
	}
	return l, g
}

// TestFusedMatchesGeneric runs every built-in cell and activation, with
// every target kind, through the fused kernels and through the compiled
// graphs (ExecGraph) on a masked batch of three lengths, with
// full BPTT, truncation and checkpoints, and compares loss and gradients.
// Checkpoints must not change a bit of the fused result, nor a second run.
func TestFusedMatchesGeneric(t *testing.T) {
	const in, hidden, out = 3, 4, 3
	cfgs := []layers.ProblemConfig{{}, {Chunk: 3}, {Checkpoint: 3}, {Chunk: 3, Checkpoint: 2}, {Checkpoint: 20}}
	for _, c := range fusedCells() {
		for _, kind := range []datasets.TargetKind{datasets.Categorical, datasets.Binary, datasets.Real} {
			t.Run(fmt.Sprintf("%s/%s", c.name, kind), func(t *testing.T) {
				task := fusedTask(kind, in, out, rand.New(rand.NewPCG(3, uint64(kind))))
				seq := fusedModel(t, c, task, hidden, 7)
				var plain, plainTrunc *params.Params
				var plainLoss float64
				for _, cfg := range cfgs {
					gen := cfg
					gen.Executor = layers.ExecGraph
					wantL, want := lossGrad(t, seq, task, gen)
					gotL, got := lossGrad(t, seq, task, cfg)
					if want.Norm() == 0 {
						t.Fatal("the generic gradient is zero: the comparison proves nothing")
					}
					if math.Abs(gotL-wantL) > recurrenceTol*math.Max(1, math.Abs(wantL)) {
						t.Errorf("%+v: loss %.17g, generic %.17g", cfg, gotL, wantL)
					}
					compareGrads(t, fmt.Sprintf("%+v", cfg), seq.Params, got, want, recurrenceTol)
					switch {
					case cfg == layers.ProblemConfig{}:
						plain, plainLoss = got, gotL
						againL, again := lossGrad(t, seq, task, cfg)
						if againL != gotL {
							t.Errorf("rerun: loss %v, was %v", againL, gotL)
						}
						compareGrads(t, "rerun", seq.Params, again, got, 0)
					case cfg == layers.ProblemConfig{Chunk: 3}:
						plainTrunc = got
					case cfg.Chunk == 0:
						if gotL != plainLoss {
							t.Errorf("%+v: loss %v, without checkpoints %v", cfg, gotL, plainLoss)
						}
						compareGrads(t, fmt.Sprintf("%+v against no checkpoints", cfg), seq.Params, got, plain, 0)
					default:
						compareGrads(t, fmt.Sprintf("%+v against no checkpoints", cfg), seq.Params, got, plainTrunc, 0)
					}
				}
			})
		}
	}
}

// TestFusedGradWindows runs the cells whose kernels gather their weight
// gradients over windows of steps (rnn, lstm, gru) on a batch of 130
// sequences, so that a window holds 4 steps and a run of 11 steps adds
// three of them, and compares loss and gradients with the tape's; with
// checkpoints and truncation the bits must not move.
func TestFusedGradWindows(t *testing.T) {
	const in, hidden, out, batch = 3, 5, 2, 130
	lengths, idx := batchOf(batch, 6, 6)
	for _, c := range fusedCells() {
		if c.name != "lstm" && c.name != "gru" && c.name != "elman-tanh" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			task := fusedTaskOf(datasets.Binary, in, out, lengths, rand.New(rand.NewPCG(8, 1)))
			seq := fusedModel(t, c, task, hidden, 11)
			run := func(cfg layers.ProblemConfig) (float64, *params.Params) {
				return lossGradOf(t, seq, task, cfg, idx)
			}
			for _, chunk := range []int{0, 4} {
				wantL, want := run(layers.ProblemConfig{Chunk: chunk, Executor: layers.ExecTape})
				gotL, got := run(layers.ProblemConfig{Chunk: chunk})
				if math.Abs(gotL-wantL) > recurrenceTol*math.Max(1, math.Abs(wantL)) {
					t.Errorf("chunk %d: loss %.17g, tape %.17g", chunk, gotL, wantL)
				}
				compareGrads(t, fmt.Sprintf("chunk %d against the tape", chunk), seq.Params, got, want, recurrenceTol)
				for _, ck := range []int{3, 5} {
					ckL, ckG := run(layers.ProblemConfig{Chunk: chunk, Checkpoint: ck})
					if ckL != gotL {
						t.Errorf("chunk %d, checkpoint %d: loss %v, without checkpoints %v", chunk, ck, ckL, gotL)
					}
					compareGrads(t, fmt.Sprintf("chunk %d, checkpoint %d against none", chunk, ck), seq.Params, ckG, got, 0)
				}
			}
		})
	}
}

// TestFusedParallelRows runs every cell with a kernel on a batch of 64
// with 70 units, in float64 and float32, at GOMAXPROCS 1 and 2, where the
// products and the element-wise rows are cut over goroutines, and checks
// that loss and gradients keep their bits. Under the race detector (CI) it
// also checks that the rows share nothing they write, nor a float32
// weight read on first use.
func TestFusedParallelRows(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const in, hidden, out, batch = 5, 70, 4, 64
	lengths, idx := batchOf(batch, 5, 5)
	for _, c := range fusedCells() {
		for _, dt := range []string{graph.Float64, graph.Float32} {
			t.Run(c.name+"/"+dt, func(t *testing.T) {
				task := fusedTaskOf(datasets.Binary, in, out, lengths, rand.New(rand.NewPCG(12, 1)))
				var wantL float64
				var want *params.Params
				for _, procs := range []int{1, 2} {
					runtime.GOMAXPROCS(procs)
					seq := fusedModel(t, c, task, hidden, 13)
					l, g := lossGradOf(t, seq, task, layers.ProblemConfig{DType: dt}, idx)
					if procs == 1 {
						wantL, want = l, g
						continue
					}
					if l != wantL {
						t.Errorf("loss %v at GOMAXPROCS 2, %v at 1", l, wantL)
					}
					compareGrads(t, "GOMAXPROCS 2 against 1", seq.Params, g, want, 0)
				}
			})
		}
	}
}

// batchOf returns the lengths of n sequences, from first to first+spread-1 in
// turn, and the indices 0 to n-1 of all of them (a batch).
func batchOf(n, first, spread int) (lengths, idx []int) {
	lengths, idx = make([]int, n), make([]int, n)
	for i := range lengths {
		lengths[i], idx[i] = first+i%spread, i
	}
	return lengths, idx
}

// compareGrads reports the entries of got and want further apart than tol
// relative to max(1, |want|) (tol 0: the same bits).
func compareGrads(t *testing.T, what string, p, got, want *params.Params, tol float64) {
	t.Helper()
	for _, n := range p.Names() {
		g, w := got.Data(n), want.Data(n)
		for i := range g {
			if math.Abs(g[i]-w[i]) > tol*math.Max(1, math.Abs(w[i])) {
				t.Errorf("%s: %s[%d] = %.17g, want %.17g", what, n, i, g[i], w[i])
			}
		}
	}
}

// TestFusedGradients checks each kernel's gradient (with the output layer
// and loss of every kind) against finite differences of its own loss.
func TestFusedGradients(t *testing.T) {
	const in, hidden, out = 3, 4, 3
	for _, c := range fusedCells() {
		for _, kind := range []datasets.TargetKind{datasets.Categorical, datasets.Binary, datasets.Real} {
			t.Run(fmt.Sprintf("%s/%s", c.name, kind), func(t *testing.T) {
				task := fusedTask(kind, in, out, rand.New(rand.NewPCG(4, uint64(kind))))
				checkProblemGradients(t, fusedModel(t, c, task, hidden, 9), task, layers.ProblemConfig{})
			})
		}
	}
}

// TestFusedNoAllocations checks that the fused executor allocates nothing
// once its buffers have grown: not per run, so not per time step, with and
// without checkpoints; with a batch of 64 at GOMAXPROCS 2 too, where the
// products and the elementwise rows are cut over goroutines and the
// weight gradients are added a window of 8 steps at a time.
func TestFusedNoAllocations(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const in, hidden, out = 5, 70, 4 // 70 > 64: products are cut into tiles
	for _, batch := range []int{3, 64} {
		runtime.GOMAXPROCS(1 + batch/64)
		lengths, idx := batchOf(batch, 5, 5)
		for _, c := range fusedCells() {
			for _, ck := range []int{0, 4} {
				t.Run(fmt.Sprintf("%s/batch%d/checkpoint%d", c.name, batch, ck), func(t *testing.T) {
					task := fusedTaskOf(datasets.Binary, in, out, lengths, rand.New(rand.NewPCG(5, 1)))
					seq := fusedModel(t, c, task, hidden, 3)
					bt, err := datasets.MakeBatch(task, task.Train, idx)
					if err != nil {
						t.Fatal(err)
					}
					r, ok, err := seq.FusedRecurrence(bt.B, graph.RecurrenceConfig{Checkpoint: ck})
					if !ok || err != nil {
						t.Fatalf("no fused executor: %v", err)
					}
					checkNoAllocations(t, r, seq, bt)
				})
			}
		}
	}
}

// checkRelTol bounds the worst relative error of graph.CheckProblem on
// the gradient a Problem trains with (the acceptance: 1e-6).
const checkRelTol = 1e-6

// checkProblemGradients checks the gradient of a Problem of seq on task,
// run by the executor cfg chooses, against finite differences of its own
// loss on the first three training examples (graph.CheckProblem).
func checkProblemGradients(t *testing.T, seq *layers.Sequence, task *datasets.Task, cfg layers.ProblemConfig) {
	t.Helper()
	prob, err := layers.NewProblem(seq, task, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := graph.CheckProblem(prob, graph.CheckProblemOptions{Batch: []int{0, 1, 2}, FDOptions: graph.FDOptions{Tol: checkRelTol}})
	if err != nil {
		t.Error(err)
	}
	if rep.Checked != seq.Params.Size() {
		t.Errorf("%d entries checked, the model has %d", rep.Checked, seq.Params.Size())
	}
}

// checkNoAllocations checks that r allocates nothing per run once its
// buffers have grown: a run over the batch bt with gradients into a set
// like seq's, then a shorter one without.
func checkNoAllocations(t *testing.T, r *graph.FusedRecurrence, seq *layers.Sequence, bt datasets.Batch) {
	t.Helper()
	aux := make([][][]float64, bt.T)
	for s := range aux {
		aux[s] = [][]float64{bt.Y[s], bt.Mask[s]}
	}
	g := seq.Params.Like()
	run := func() {
		if _, err := r.Run(bt.X, aux, g); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run(bt.X[:4], aux[:4], nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := testing.AllocsPerRun(3, run); n != 0 {
		t.Errorf("%v allocations per run of %d steps, want 0", n, bt.T)
	}
}

// TestProblemAllocationsPerStep checks that a training step of a Problem
// on a fused cell allocates the same small amount for sequences of 9 and
// of 90 steps: nothing per time step.
func TestProblemAllocationsPerStep(t *testing.T) {
	const in, hidden, out = 3, 4, 2
	c := fusedCells()[0]
	allocs := func(scale int) float64 {
		rng := rand.New(rand.NewPCG(6, 1))
		task := &datasets.Task{Name: "allocs", In: in, Out: out, Kind: datasets.Real}
		for _, T := range []int{5 * scale, 9 * scale, 7 * scale} {
			e := datasets.Example{T: T, X: make([]float64, T*in), Y: make([]float64, T*out)}
			for j := range e.X {
				e.X[j] = rng.NormFloat64()
			}
			task.Train = append(task.Train, e)
		}
		seq := fusedModel(t, c, task, hidden, 1)
		prob, err := layers.NewProblem(seq, task, layers.ProblemConfig{})
		if err != nil {
			t.Fatal(err)
		}
		g := seq.Params.Like()
		return testing.AllocsPerRun(3, func() {
			if _, err := prob.LossGrad([]int{0, 1, 2}, g); err != nil {
				t.Fatal(err)
			}
		})
	}
	short, long := allocs(1), allocs(10)
	if short != long || short > 2 {
		t.Errorf("LossGrad allocates %v times at 9 steps, %v at 90: want the same few", short, long)
	}
}

// TestHeadKernelExtremeLogits compares the Go head with the graph head at
// logits from -1000 to 1000 (out/W zero, out/b holding the logits) for
// every target kind: both stay finite and agree.
func TestHeadKernelExtremeLogits(t *testing.T) {
	for _, kind := range []datasets.TargetKind{datasets.Categorical, datasets.Binary, datasets.Real} {
		t.Run(kind.String(), func(t *testing.T) {
			seq, task := extremeLogitsModel(t, kind)
			wantL, want := lossGrad(t, seq, task, layers.ProblemConfig{Executor: layers.ExecGraph})
			gotL, got := lossGrad(t, seq, task, layers.ProblemConfig{})
			if math.IsNaN(gotL) || math.IsInf(gotL, 0) || math.Abs(gotL-wantL) > recurrenceTol*math.Max(1, math.Abs(wantL)) {
				t.Errorf("loss %.17g, generic %.17g", gotL, wantL)
			}
			compareGrads(t, "extreme logits", seq.Params, got, want, recurrenceTol)
		})
	}
}

// extremeLogitsModel builds an Elman model whose output layer gives the
// logits -1000 to 1000 whatever its input, on a task of the target kind.
func extremeLogitsModel(t *testing.T, kind datasets.TargetKind) (*layers.Sequence, *datasets.Task) {
	t.Helper()
	logits := []float64{-1000, -30, -1e-3, 0, 2e-3, 30, 1000}
	task := fusedTask(kind, 2, len(logits), rand.New(rand.NewPCG(8, 1)))
	seq := fusedModel(t, fusedCells()[0], task, 3, 2)
	if err := seq.Params.Fill(layers.OutW, 0); err != nil {
		t.Fatal(err)
	}
	if err := seq.Params.Set(layers.OutB, logits); err != nil {
		t.Fatal(err)
	}
	return seq, task
}

// TestFusedLongSequences runs sequences longer than the executor's blocks
// of steps (lengths 150, 130 and 70) with checkpoint intervals that do not
// divide them: checkpoints change no bit, the loss without gradients is
// the same bits, and the generic executor agrees; so does the tape.
func TestFusedLongSequences(t *testing.T) {
	const in, hidden, out = 3, 4, 3
	for _, c := range fusedCells()[3:5] { // lstm, gru
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(12, 1))
			task := &datasets.Task{Name: "long", In: in, Out: out, Kind: datasets.Binary}
			for _, T := range []int{150, 130, 70} {
				e := datasets.Example{T: T, X: make([]float64, T*in), Y: make([]float64, T*out)}
				for j := range e.X {
					e.X[j] = rng.NormFloat64()
				}
				for j := range e.Y {
					e.Y[j] = float64(rng.IntN(2))
				}
				task.Train = append(task.Train, e)
			}
			seq := fusedModel(t, c, task, hidden, 5)
			for _, trunc := range []int{0, 40} {
				wantL, want := lossGrad(t, seq, task, layers.ProblemConfig{Chunk: trunc, Executor: layers.ExecGraph})
				refL, ref := lossGrad(t, seq, task, layers.ProblemConfig{Chunk: trunc})
				if math.Abs(refL-wantL) > recurrenceTol*math.Max(1, math.Abs(wantL)) {
					t.Errorf("truncate %d: loss %.17g, generic %.17g", trunc, refL, wantL)
				}
				compareGrads(t, fmt.Sprintf("truncate %d against generic", trunc), seq.Params, ref, want, recurrenceTol)
				tapeL, tape := lossGrad(t, seq, task, layers.ProblemConfig{Chunk: trunc, Executor: layers.ExecTape})
				if math.Abs(tapeL-wantL) > recurrenceTol*math.Max(1, math.Abs(wantL)) {
					t.Errorf("truncate %d: tape loss %.17g, generic %.17g", trunc, tapeL, wantL)
				}
				compareGrads(t, fmt.Sprintf("truncate %d: tape against generic", trunc), seq.Params, tape, want, recurrenceTol)
				ckL, ck := lossGrad(t, seq, task, layers.ProblemConfig{Chunk: trunc, Checkpoint: 30, Executor: layers.ExecTape})
				if ckL != tapeL {
					t.Errorf("truncate %d: tape loss with checkpoints %v, without %v", trunc, ckL, tapeL)
				}
				compareGrads(t, fmt.Sprintf("truncate %d: tape with checkpoints", trunc), seq.Params, ck, tape, 0)
				for _, ck := range []int{7, 30, 100, 200} {
					l, g := lossGrad(t, seq, task, layers.ProblemConfig{Chunk: trunc, Checkpoint: ck})
					if l != refL {
						t.Errorf("truncate %d checkpoint %d: loss %v, want %v", trunc, ck, l, refL)
					}
					compareGrads(t, fmt.Sprintf("truncate %d checkpoint %d", trunc, ck), seq.Params, g, ref, 0)
				}
				prob, err := layers.NewProblem(seq, task, layers.ProblemConfig{Chunk: trunc})
				if err != nil {
					t.Fatal(err)
				}
				if l, err := prob.Loss([]int{0, 1, 2}); err != nil || l != refL {
					t.Errorf("truncate %d: loss without gradient %v, with %v (%v)", trunc, l, refL, err)
				}
			}
		})
	}
}
