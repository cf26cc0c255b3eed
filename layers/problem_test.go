package layers_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/rnn"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
)

const (
	fdTol   = 1e-6  // relative tolerance of the finite-difference checks
	lossTol = 1e-12 // agreement of two exact computations of one loss
)

// randomTask makes a small task of the given kind with sequences of
// lengths 2..maxLen.
func randomTask(kind datasets.TargetKind, in, out, n, maxLen int, rng *rand.Rand) *datasets.Task {
	t := &datasets.Task{Name: "random", In: in, Out: out, Kind: kind, OptimalLoss: math.NaN()}
	mk := func() datasets.Example {
		T := 2 + rng.IntN(maxLen-1)
		e := datasets.Example{T: T, X: make([]float64, T*in)}
		for i := range e.X {
			e.X[i] = rng.NormFloat64()
		}
		switch kind {
		case datasets.Categorical:
			for s := 0; s < T; s++ {
				e.Y = append(e.Y, float64(rng.IntN(out)))
			}
		case datasets.Binary:
			for i := 0; i < T*out; i++ {
				e.Y = append(e.Y, float64(rng.IntN(2)))
			}
		default:
			for i := 0; i < T*out; i++ {
				e.Y = append(e.Y, rng.NormFloat64())
			}
		}
		return e
	}
	for i := 0; i < n; i++ {
		t.Train = append(t.Train, mk())
		t.Valid = append(t.Valid, mk())
	}
	return t
}

func newLSTMProblem(t *testing.T, task *datasets.Task, hidden int, cfg layers.ProblemConfig, seed uint64) *layers.Problem {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	p := params.New()
	cell, err := rnn.NewLSTM(p, "lstm", task.In, hidden)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := layers.NewSequence(p, cell, task.Out, task.Kind)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range p.Names() {
		_ = p.InitNormal(n, rng, 0.4)
	}
	prob, err := layers.NewProblem(seq, task, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return prob
}

// TestProblemGradients checks LossGrad against finite differences of Loss
// for each target kind, on padded batches of unequal lengths (the chunk
// covers the longest sequence, so the gradient is the full one).
func TestProblemGradients(t *testing.T) {
	for _, kind := range []datasets.TargetKind{datasets.Categorical, datasets.Binary, datasets.Real} {
		t.Run(kind.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(kind)))
			task := randomTask(kind, 3, 4, 5, 6, rng)
			prob := newLSTMProblem(t, task, 3, layers.ProblemConfig{}, 9)
			batch := []int{0, 2, 3, 4}
			err := graph.CheckGradients(prob.Params(),
				func() (float64, error) { return prob.Loss(batch) },
				func(g *params.Params) error { _, err := prob.LossGrad(batch, g); return err },
				graph.FDOptions{Tol: fdTol})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestChunkedLossExact checks that carrying the state between chunks
// leaves the loss unchanged: chunk lengths 1, 2, 3 and 100 agree.
func TestChunkedLossExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	task := randomTask(datasets.Categorical, 2, 3, 6, 9, rng)
	batch := []int{0, 1, 2, 3, 4, 5}
	var ref float64
	for i, chunk := range []int{100, 1, 2, 3} {
		prob := newLSTMProblem(t, task, 4, layers.ProblemConfig{Chunk: chunk}, 3)
		l, err := prob.Loss(batch)
		if err != nil {
			t.Fatal(err)
		}
		g := prob.Params().Like()
		lg, err := prob.LossGrad(batch, g)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(l-lg) > lossTol {
			t.Errorf("chunk %d: Loss %v, LossGrad %v", chunk, l, lg)
		}
		if i == 0 {
			ref = l
		} else if math.Abs(l-ref) > lossTol {
			t.Errorf("chunk %d: loss %v, unchunked %v", chunk, l, ref)
		}
	}
}

// TestTruncatedGradient checks that a chunk shorter than the sequences
// truncates the gradient (the recurrent weights' gradient differs from the
// full one) while gradients that do not flow through time (the output
// layer's bias) are unchanged.
func TestTruncatedGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	task := randomTask(datasets.Categorical, 2, 3, 4, 8, rng)
	batch := []int{0, 1, 2, 3}
	full := newLSTMProblem(t, task, 3, layers.ProblemConfig{Chunk: 100}, 5)
	trunc := newLSTMProblem(t, task, 3, layers.ProblemConfig{Chunk: 2}, 5)
	gf, gt := full.Params().Like(), trunc.Params().Like()
	if _, err := full.LossGrad(batch, gf); err != nil {
		t.Fatal(err)
	}
	if _, err := trunc.LossGrad(batch, gt); err != nil {
		t.Fatal(err)
	}
	u := gf.Data("lstm/U")
	v := gt.Data("lstm/U")
	diff := 0.0
	for i := range u {
		diff = math.Max(diff, math.Abs(u[i]-v[i]))
	}
	if diff < 1e-6 {
		t.Errorf("truncated and full gradients agree (max diff %g); truncation did nothing", diff)
	}
	// Output-layer gradients do not depend on backpropagation through
	// time: they agree exactly.
	a, c := gf.Data(layers.OutB), gt.Data(layers.OutB)
	for i := range a {
		if math.Abs(a[i]-c[i]) > lossTol {
			t.Errorf("out/b gradient %d: full %v, truncated %v", i, a[i], c[i])
		}
	}
}

// TestMaskedBatch checks that padding does not leak into the loss: the
// loss of a batch is the step-weighted mean of single-example losses.
func TestMaskedBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	task := randomTask(datasets.Binary, 2, 3, 5, 7, rng)
	prob := newLSTMProblem(t, task, 3, layers.ProblemConfig{}, 8)
	batch := []int{0, 1, 2, 3, 4}
	got, err := prob.Loss(batch)
	if err != nil {
		t.Fatal(err)
	}
	var sum, steps float64
	for _, i := range batch {
		l, err := prob.Loss([]int{i})
		if err != nil {
			t.Fatal(err)
		}
		sum += l * float64(task.Train[i].T)
		steps += float64(task.Train[i].T)
	}
	if want := sum / steps; math.Abs(got-want) > lossTol {
		t.Errorf("batch loss %v, step-weighted single losses %v", got, want)
	}
}

func TestProblemErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	task := randomTask(datasets.Real, 3, 2, 2, 4, rng)
	p := params.New()
	cell, err := rnn.NewElman(p, "rnn", 5, 3, activation.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := layers.NewSequence(p, cell, 2, datasets.Real)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := layers.NewProblem(seq, task, layers.ProblemConfig{}); err == nil {
		t.Error("a task of input width 3 was accepted by a cell of width 5")
	}
	if _, err := layers.NewSequence(params.New(), cell, 0, datasets.Real); err == nil {
		t.Error("output width 0 accepted")
	}
}

// TestNoValidationSet: a task without validation examples still trains,
// the best parameters chosen by training loss.
func TestNoValidationSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	task := randomTask(datasets.Real, 2, 2, 6, 5, rng)
	task.Valid = nil
	prob := newLSTMProblem(t, task, 3, layers.ProblemConfig{}, 2)
	if prob.HasValidation() {
		t.Fatal("HasValidation is true without validation examples")
	}
	opt, err := optim.New("adam", optim.Config{LR: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := optim.NewTrainer(prob, opt, optim.TrainConfig{Epochs: 2, BatchSize: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Epochs != 2 || math.IsNaN(res.BestValid) {
		t.Errorf("result %+v", res)
	}
}
