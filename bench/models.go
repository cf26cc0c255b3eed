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
	_ "github.com/rtnlab/rtn/layers/rnn"      // registers rnn, lstm, gru
	"github.com/rtnlab/rtn/layers/tensorcell" // registers cp2rnn, hotrnn, mirnn, mpscell
	_ "github.com/rtnlab/rtn/layers/twornn"   // registers 2rnn
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
)

// Sizes of the benchmarks that Config does not set.
const (
	twoRNNIn = 10 // 2rnn input and output width
	// mpscell reads one-hot symbols: Kron(h, x) is bond x symbols wide, so
	// it runs at the 2-RNN's sizes (a u-MPS over 10 symbols with bond 50),
	// not over 88 notes with bond 100 (an 8800-wide Kron, a core of 880,000
	// entries: no u-MPS reads notes).
	mpsSymbols = 10
	mpsBond    = 50
	// hotrnn's lags and tensor-train rank: the registered cell's defaults
	// (tensorcell.DefaultHOTLags, DefaultHOTRank).
	hotLags     = tensorcell.DefaultHOTLags
	hotRank     = tensorcell.DefaultHOTRank
	umpsSymbols = 2  // u-MPS alphabet size
	wfaSymbols  = 10 // WFA alphabet size
	wfaRate     = 1e-5
)

// frames returns xs and ys for a next-frame task of T steps over a batch:
// xs[t] and ys[t] = xs[t+1] ([batch, width] each, row-major) are views of
// one array of T+1 frames, each row filled by fill.
func frames(T, batch, width int, fill func(row []float64)) (xs, ys [][]float64) {
	n := batch * width
	data := make([]float64, (T+1)*n)
	for r := 0; r < len(data); r += width {
		fill(data[r : r+width])
	}
	xs, ys = make([][]float64, T), make([][]float64, T)
	for t := range T {
		xs[t] = data[t*n : (t+1)*n : (t+1)*n]
		ys[t] = data[(t+1)*n : (t+2)*n : (t+2)*n]
	}
	return xs, ys
}

// binaryRows fills a row with 0/1 values drawn from rng.
func binaryRows(rng *rand.Rand) func(row []float64) {
	return func(row []float64) {
		for i := range row {
			row[i] = float64(rng.IntN(2))
		}
	}
}

// Data of the sequence benchmarks: what a frame holds and the loss the
// read-out is trained on.
const (
	binaryFrames   = iota // 0/1 notes, Bernoulli NLL per note
	gaussianFrames        // N(0, 1) entries, squared error
	symbolFrames          // one-hot symbols, softmax NLL of the next symbol
)

// seqModel is the model of a sequence benchmark: a registered cell
// (layers.NewCell; ugru is this package's own), its sizes for a Config,
// and its data.
type seqModel struct {
	name string // Result.Model
	cell string
	size func(c Config) layers.CellConfig
	data int
}

// seqModels lists the sequence benchmarks' models; benchmarks reads them.
var seqModels = []seqModel{
	{"rnn", "rnn", hidden, binaryFrames},
	{"lstm", "lstm", hidden, binaryFrames},
	{"gru", "gru", hidden, binaryFrames},
	{"ugru", "ugru", hidden, binaryFrames},
	{"2rnn", "2rnn", func(c Config) layers.CellConfig { return layers.CellConfig{In: twoRNNIn, Hidden: twoRNNStates(c)} }, gaussianFrames},
	{"cp2rnn", "cp2rnn", func(c Config) layers.CellConfig { return layers.CellConfig{In: c.In, Hidden: c.Hidden, Rank: c.Hidden} }, binaryFrames},
	{"hotrnn", "hotrnn", hotSize(2), binaryFrames},
	{"hotrnn3", "hotrnn", hotSize(3), binaryFrames},
	{"mirnn", "mirnn", hidden, binaryFrames},
	{"mpscell", "mpscell", func(Config) layers.CellConfig { return layers.CellConfig{In: mpsSymbols, Hidden: mpsBond} }, symbolFrames},
}

// twoRNNStates is the 2-RNN's number of states: Config.Hidden / 2 (50 at
// the default 100), so that its step costs about what the rnn's does as
// Config.Hidden grows.
func twoRNNStates(c Config) int { return max(1, c.Hidden/2) }

// hidden sizes a cell of Config.In inputs and Config.Hidden units.
func hidden(c Config) layers.CellConfig { return layers.CellConfig{In: c.In, Hidden: c.Hidden} }

// hotSize sizes hotrnn of order p: Config.In inputs, Config.Hidden units,
// hotLags lagged states, tensor-train rank hotRank.
func hotSize(p int) func(Config) layers.CellConfig {
	return func(c Config) layers.CellConfig {
		return layers.CellConfig{In: c.In, Hidden: c.Hidden, Order: p, Lags: hotLags, Rank: hotRank}
	}
}

// newCell builds m's cell in p, drawn from rng.
func (m seqModel) newCell(cfg Config, p *params.Params, rng *rand.Rand) (graph.Cell, error) {
	cc := m.size(cfg)
	if m.cell == "ugru" {
		c, err := newUserGRU(p, m.cell, cc.In, cc.Hidden)
		if err != nil {
			return nil, err
		}
		return c, c.init(rng)
	}
	return layers.NewCell(m.cell, p, m.name, cc, rng)
}

// note describes m's sizes and loss.
func (m seqModel) note(cfg Config) string {
	cc := m.size(cfg)
	var sizes string
	switch m.cell {
	case "2rnn":
		sizes = fmt.Sprintf("in/out %d (Gaussian), states %d, tanh", cc.In, cc.Hidden)
	case "cp2rnn":
		sizes = fmt.Sprintf("in/out %d (binary), hidden %d, CP rank %d, tanh", cc.In, cc.Hidden, cc.Rank)
	case "hotrnn":
		sizes = fmt.Sprintf("in/out %d (binary), hidden %d, order %d, lags %d, TT rank %d", cc.In, cc.Hidden, cc.Order, cc.Lags, cc.Rank)
	case "mpscell":
		sizes = fmt.Sprintf("%d symbols (one-hot), bond %d", cc.In, cc.Hidden)
	default:
		sizes = fmt.Sprintf("in/out %d (binary), hidden %d", cc.In, cc.Hidden)
	}
	loss := map[int]string{binaryFrames: "Bernoulli NLL", gaussianFrames: "squared error", symbolFrames: "softmax NLL"}[m.data]
	return fmt.Sprintf("batch %d, %s, %s", cfg.Batch, sizes, loss)
}

// sequenceStep is one Adam step of a recurrent model with a linear
// read-out predicting the next frame of a batch of sequences, full BPTT
// (or checkpointed), through the cell's kernel or graph.Recurrence (see
// recurrence): the loss is the mean per step and sequence, as
// layers.Problem computes it.
func sequenceStep(m seqModel, cfg Config) (*Prepared, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	kind, fill := datasets.Binary, binaryRows(rng)
	switch m.data {
	case gaussianFrames:
		kind, fill = datasets.Real, func(row []float64) {
			for i := range row {
				row[i] = rng.NormFloat64()
			}
		}
	case symbolFrames:
		kind, fill = datasets.Categorical, func(row []float64) { row[rng.IntN(len(row))] = 1 }
	}
	width := m.size(cfg).In
	xs, ys := frames(cfg.Steps, cfg.Batch, width, fill)
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
	c, err := m.newCell(cfg, p, rng)
	if err != nil {
		return nil, err
	}
	seq, err := layers.NewSequence(p, c, width, kind)
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
	note := m.note(cfg)
	if cfg.Checkpoint > 0 {
		note += fmt.Sprintf(", states kept every %d", cfg.Checkpoint)
	}
	if cfg.DType == graph.Float32 {
		note += ", float32 steps"
	}
	if _, ok := c.(graph.FusedCell); !ok || cfg.Executor != ExecFused {
		note += ", " + map[string]string{ExecFused: "tape", ExecTape: "tape", ExecGraph: "compiled-graph"}[cfg.Executor] + " executor"
	}
	return &Prepared{Step: step, Setup: setup, Model: m.name, Note: note + ", full BPTT, Adam", close: rec.Close}, nil
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
