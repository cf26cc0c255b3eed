package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/rnn"
	"github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
)

// Sizes of the benchmarks that Config does not set.
const (
	twoRNNIn     = 10 // 2rnn input and output width
	twoRNNStates = 50 // 2rnn states
	umpsSymbols  = 2  // u-MPS alphabet size
	wfaSymbols   = 10 // WFA alphabet size
	wfaRate      = 1e-5
)

// frames returns xs and ys for a next-frame task of T steps over a batch:
// xs[t] and ys[t] = xs[t+1] ([batch, width] each, row-major) are views of
// one array of T+1 frames, drawn by draw.
func frames(T, batch, width int, draw func() float64) (xs, ys [][]float64) {
	n := batch * width
	data := make([]float64, (T+1)*n)
	for i := range data {
		data[i] = draw()
	}
	xs, ys = make([][]float64, T), make([][]float64, T)
	for t := range T {
		xs[t] = data[t*n : (t+1)*n : (t+1)*n]
		ys[t] = data[(t+1)*n : (t+2)*n : (t+2)*n]
	}
	return xs, ys
}

// cell builds the recurrent cell of a sequence benchmark in p, drawn from
// rng, with its input width.
func cell(model string, cfg Config, p *params.Params, rng *rand.Rand) (graph.Cell, int, error) {
	switch model {
	case "rnn":
		c, err := rnn.NewElman(p, "rnn", cfg.In, cfg.Hidden, activation.Tanh)
		if err != nil {
			return nil, 0, err
		}
		return c, cfg.In, c.Init(rng)
	case "lstm":
		c, err := rnn.NewLSTM(p, "lstm", cfg.In, cfg.Hidden)
		if err != nil {
			return nil, 0, err
		}
		return c, cfg.In, c.Init(rng)
	case "gru":
		c, err := rnn.NewGRU(p, "gru", cfg.In, cfg.Hidden)
		if err != nil {
			return nil, 0, err
		}
		return c, cfg.In, c.Init(rng)
	case "ugru":
		c, err := newUserGRU(p, "ugru", cfg.In, cfg.Hidden)
		if err != nil {
			return nil, 0, err
		}
		return c, cfg.In, c.init(rng)
	case "2rnn":
		c, err := twornn.NewCell(p, "tworn", twoRNNIn, twoRNNStates, activation.Tanh)
		if err != nil {
			return nil, 0, err
		}
		return c, twoRNNIn, c.Init(rng)
	}
	return nil, 0, errors.Errorf("bench: unknown sequence model %q", model)
}

// sequenceStep is one Adam step of a recurrent model with a linear
// read-out predicting the next frame of a batch of sequences, full BPTT
// (or checkpointed), through the cell's kernel or graph.Recurrence (see
// recurrence): the loss is the mean per step and sequence, as
// layers.Problem computes it.
func sequenceStep(model string, cfg Config) (*Prepared, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	kind, draw := datasets.Binary, func() float64 { return float64(rng.IntN(2)) }
	if model == "2rnn" {
		kind, draw = datasets.Real, rng.NormFloat64
	}
	width := cfg.In
	if model == "2rnn" {
		width = twoRNNIn
	}
	xs, ys := frames(cfg.Steps, cfg.Batch, width, draw)
	mask := make([]float64, cfg.Batch)
	for i := range mask {
		mask[i] = 1
	}
	aux := make([][][]float64, cfg.Steps)
	for t := range aux {
		aux[t] = [][]float64{ys[t], mask}
	}

	t0 := time.Now()
	p := params.New()
	c, in, err := cell(model, cfg, p, rng)
	if err != nil {
		return nil, err
	}
	seq, err := layers.NewSequence(p, c, in, kind)
	if err != nil {
		return nil, err
	}
	if err := seq.InitHead(rng); err != nil {
		return nil, err
	}
	rec, err := recurrence(seq, cfg)
	if err != nil {
		return nil, err
	}
	opt, err := optim.New("adam", optim.Config{})
	if err != nil {
		return nil, err
	}
	setup := time.Since(t0)

	g := p.Like()
	scale := 1 / float64(cfg.Batch*cfg.Steps)
	step := func() error {
		g.Zero()
		if _, err := rec.Run(xs, aux, g); err != nil {
			return err
		}
		for _, name := range g.Names() {
			d := g.Data(name)
			for i := range d {
				d[i] *= scale
			}
		}
		return opt.Step(p, g)
	}
	var note string
	switch model {
	case "2rnn":
		note = fmt.Sprintf("batch %d, in/out %d (Gaussian), states %d, tanh, squared error", cfg.Batch, twoRNNIn, twoRNNStates)
	default:
		note = fmt.Sprintf("batch %d, in/out %d (binary), hidden %d, Bernoulli NLL", cfg.Batch, cfg.In, cfg.Hidden)
	}
	if cfg.Checkpoint > 0 {
		note += fmt.Sprintf(", states kept every %d", cfg.Checkpoint)
	}
	if cfg.DType == graph.Float32 {
		note += ", float32 steps"
	}
	if _, ok := c.(graph.FusedCell); !ok || cfg.Executor != ExecFused {
		note += ", " + map[string]string{ExecFused: "tape", ExecTape: "tape", ExecGraph: "compiled-graph"}[cfg.Executor] + " executor"
	}
	return &Prepared{Step: step, Setup: setup, Model: model, Note: note + ", full BPTT, Adam", close: rec.Close}, nil
}

// recurrence is the executor of seq that cfg.Executor names.
func recurrence(seq *layers.Sequence, cfg Config) (interface {
	Run(xs [][]float64, aux [][][]float64, grads *params.Params) (float64, error)
	Close() error
}, error) {
	rc := graph.RecurrenceConfig{Checkpoint: cfg.Checkpoint}
	if cfg.DType == graph.Float32 {
		if cfg.Executor == ExecFused {
			r, ok, err := seq.FusedRecurrence32(cfg.Batch, rc)
			if ok {
				return r, err
			}
		}
		return seq.TapeRecurrence32(cfg.Batch, rc)
	}
	switch cfg.Executor {
	case ExecGraph:
		return seq.Recurrence(cfg.Batch, rc)
	case ExecFused:
		r, ok, err := seq.FusedRecurrence(cfg.Batch, rc)
		if err != nil {
			return nil, err
		}
		if ok {
			return r, nil
		}
	}
	return seq.TapeRecurrence(cfg.Batch, rc)
}

// randomStrings draws count strings of length T over symbols symbols,
// uniformly.
func randomStrings(rng *rand.Rand, count, T, symbols int) [][]int {
	seqs := make([][]int, count)
	for b := range seqs {
		seqs[b] = make([]int, T)
		for t := range seqs[b] {
			seqs[b][t] = rng.IntN(symbols)
		}
	}
	return seqs
}

// umpsStep is one Adam step of a u-MPS Born machine of bond dimension D on
// the mean NLL (under P_T) of a batch of random strings of length T.
func umpsStep(D int, cfg Config) (*Prepared, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	seqs := randomStrings(rng, cfg.Batch, cfg.Steps, umpsSymbols)
	t0 := time.Now()
	p, err := umps.NewParams(D, umpsSymbols, umps.NearIdentity, rng)
	if err != nil {
		return nil, err
	}
	nll, err := umps.NewNLL(p, cfg.Batch, cfg.Steps, umps.PerLength)
	if err != nil {
		return nil, err
	}
	opt, err := optim.New("adam", optim.Config{})
	if err != nil {
		return nil, err
	}
	setup := time.Since(t0)
	g := p.Like()
	step := func() error {
		g.Zero()
		if _, err := nll.Run(seqs, g); err != nil {
			return err
		}
		return opt.Step(p, g)
	}
	return &Prepared{
		Step: step, Setup: setup, Model: fmt.Sprintf("umps-d%d", D),
		Note: fmt.Sprintf("batch %d strings, bond %d, %d symbols, NLL under P_T, Adam", cfg.Batch, D, umpsSymbols),
	}, nil
}

// wfaStep is one Adam step (rate wfaRate) of wfa.Finetune's problem,
// wfa.Likelihood, on a WFA with n states over wfaSymbols symbols and a
// batch of random strings of length T. The WFA's entries are drawn
// uniformly from [-0.2, 1) and scaled so that the absolute row sums of
// S = sum_s A_s are at most 0.9: signed, with a spectral radius below 1.
func wfaStep(n int, cfg Config) (*Prepared, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	seqs := randomStrings(rng, cfg.Batch, cfg.Steps, wfaSymbols)
	w := spectral.WFA{States: n, Out: 1, Alpha: make([]float64, n), Omega: make([]float64, n), Trans: make([][]float64, wfaSymbols)}
	for s := range w.Trans {
		w.Trans[s] = make([]float64, n*n)
		for i := range w.Trans[s] {
			w.Trans[s][i] = 1.2*rng.Float64() - 0.2
		}
	}
	norm := 0.0
	for i := range n {
		row := 0.0
		for j := range n {
			v := 0.0
			for _, a := range w.Trans {
				v += a[i*n+j]
			}
			row += math.Abs(v)
		}
		norm = max(norm, row)
	}
	for _, a := range w.Trans {
		for i := range a {
			a[i] *= 0.9 / norm
		}
	}
	for i := range n {
		w.Alpha[i] = rng.Float64()
		w.Omega[i] = 0.05 + 0.1*rng.Float64()
	}
	t0 := time.Now()
	l, err := wfa.NewLikelihood(w, seqs, seqs[:1])
	if err != nil {
		return nil, err
	}
	opt, err := optim.New("adam", optim.Config{LR: wfaRate})
	if err != nil {
		return nil, err
	}
	setup := time.Since(t0)
	g := l.Params().Like()
	batch := make([]int, len(seqs))
	for i := range batch {
		batch[i] = i
	}
	step := func() error {
		loss, err := l.LossGrad(batch, g)
		if err != nil {
			return err
		}
		if math.IsInf(loss, 1) {
			return errors.New("bench: the WFA left the normalisable region")
		}
		return opt.Step(l.Params(), g)
	}
	return &Prepared{
		Step: step, Setup: setup, Model: fmt.Sprintf("wfa-n%d", n),
		Note: fmt.Sprintf("batch %d strings, %d states, %d symbols, wfa.Likelihood (fine-tuning), Adam at %g", cfg.Batch, n, wfaSymbols, wfaRate),
	}, nil
}
