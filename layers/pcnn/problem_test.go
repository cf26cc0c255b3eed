package pcnn_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/pcnn"
	"github.com/rtnlab/rtn/optim"
)

var _ optim.RiemannProblem = (*pcnn.Problem)(nil)
var _ optim.Validator = (*pcnn.Validated)(nil)

// anbnProblem builds a small a^n b^n problem (n in [5, 12]).
func anbnProblem(t *testing.T, kind pcnn.Kind, method pcnn.Method, seed uint64) (*pcnn.Validated, datasets.Stream) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	train, err := datasets.AnBn(datasets.AnBnConfig{Blocks: 10, Min: 5, Max: 12}, rng)
	if err != nil {
		t.Fatal(err)
	}
	valid, _ := datasets.AnBn(datasets.AnBnConfig{Blocks: 10, Min: 5, Max: 12}, rng)
	net, err := pcnn.RandomNetwork(6, 3, rng)
	if err != nil {
		t.Fatal(err)
	}
	m, err := pcnn.New(kind, activation.Tanh, len(train.Alphabet), net)
	if err != nil {
		t.Fatal(err)
	}
	ts := train
	if err := m.Init(ts, rng); err != nil {
		t.Fatal(err)
	}
	vs := valid
	p, err := pcnn.NewProblem(m, ts, method)
	if err != nil {
		t.Fatal(err)
	}
	vp, err := p.WithValidation(vs)
	if err != nil {
		t.Fatal(err)
	}
	return vp, valid
}

// TestRiemannTrainerImproves runs optim.Trainer with the
// Riemann optimizer on a PCNN: the training loss must fall well below
// the i.i.d. start, and both parameter groups must have accepted steps.
func TestRiemannTrainerImproves(t *testing.T) {
	p, _ := anbnProblem(t, pcnn.PCNN, pcnn.Method{Writing: pcnn.QDH, Transition: pcnn.RBPM}, 1)
	start, _ := p.Loss(nil)
	opt, err := optim.NewRiemann(optim.RiemannConfig{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := optim.NewTrainer(p, opt, optim.TrainConfig{Epochs: 60})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("train loss %.4f -> %.4f nats/symbol; accepted %d, rejected %d; rates %v",
		start, res.TrainLoss, opt.Accepted(), opt.Rejected(), opt.Rates())
	if !(res.TrainLoss < 0.7*start) {
		t.Fatalf("train loss %v did not fall below 0.7 x %v", res.TrainLoss, start)
	}
	if opt.Accepted() < 20 {
		t.Fatalf("only %d steps accepted", opt.Accepted())
	}
}

// TestRiemannNeedsMetric: a problem without RiemannDirection is refused
// before any work.
func TestRiemannNeedsMetric(t *testing.T) {
	opt, _ := optim.NewRiemann(optim.RiemannConfig{})
	if err := opt.Check(plainProblem{}); err == nil {
		t.Fatal("a problem without a metric was accepted")
	}
}

type plainProblem struct{ optim.Problem }

// TestRegularizedLogLik checks the regularisation of section 4 against
// its formula on the trace of an untrained model, and Generate's seeding.
func TestRegularizedLogLik(t *testing.T) {
	p, valid := anbnProblem(t, pcnn.CNN, pcnn.Method{}, 2)
	m := p.Model
	s := datasets.Stream{X: valid.X}
	got, n, err := m.RegularizedLogLik(s)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := m.Forward(s, nil)
	var want float64
	for i, x := range s.X {
		e := 1 / float64(i+2)
		want += math.Log((1-e)*tr.Pi[i*m.A+x] + e/float64(m.A))
	}
	if n != len(s.X) || math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Fatalf("regularised log-likelihood %v over %d, want %v over %d", got, n, want, len(s.X))
	}
	a, _ := m.Generate(50, rand.New(rand.NewPCG(3, 3)))
	b, _ := m.Generate(50, rand.New(rand.NewPCG(3, 3)))
	for i := range a {
		if a[i] != b[i] || a[i] < 0 || a[i] >= m.A {
			t.Fatal("Generate is not seeded or gives a symbol outside the alphabet")
		}
	}
}

// TestGraphTrainsWithAdam trains the graph version through the
// optim.Trainer with a registered optimizer.
func TestGraphTrainsWithAdam(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	net, _ := pcnn.RandomNetwork(4, 2, rng)
	m, _ := pcnn.New(pcnn.PCNN, activation.Tanh, 3, net)
	// Period-3 sequences: predictable after the first symbol.
	var seqs []datasets.Stream
	for k := range 6 {
		s := datasets.Stream{X: make([]int, 8)}
		for i := range s.X {
			s.X[i] = (i + k) % 3
		}
		seqs = append(seqs, s)
	}
	if err := m.Init(seqs[0], rng); err != nil {
		t.Fatal(err)
	}
	g, err := pcnn.NewGraphModel(m, 8)
	if err != nil {
		t.Fatal(err)
	}
	p := &pcnn.GraphProblem{G: g, Seqs: seqs}
	all := []int{0, 1, 2, 3, 4, 5}
	start, _ := p.Loss(all)
	opt, _ := optim.New("adam", optim.Config{LR: 0.05})
	tr, err := optim.NewTrainer(p, opt, optim.TrainConfig{Epochs: 40, BatchSize: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	end, _ := p.Loss(all)
	t.Logf("NLL %.4f -> %.4f nats/symbol", start, end)
	if !(end < 0.5*start) {
		t.Fatalf("adam on the graph: NLL %v, not below half of %v", end, start)
	}
	if _, err := g.NLL(datasets.Stream{X: []int{0, 1, 2}}, nil); err == nil {
		t.Fatal("a sequence of the wrong length was accepted")
	}
}
