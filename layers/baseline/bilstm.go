package baseline

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/rnn"
	"github.com/rtnlab/rtn/losses"
	"github.com/rtnlab/rtn/params"
)

// BiLSTM is the u-MPS paper's bidirectional LSTM baseline for
// single-symbol completion over d symbols: a forward LSTM reads begin,
// s_1..s_{i-1}, a backward LSTM reads end, s_n..s_{i+1}, and a linear
// layer on the two states gives the distribution of s_i. Input id d
// marks begin for the forward and end for the backward reader. It trains
// on every position of strings of one length (Problem).
type BiLSTM struct {
	// P holds both readers (fwd/..., bwd/...) and the output layer.
	P        *params.Params
	fwd, bwd *rnn.LSTM
	d, h     int
}

// Output-layer parameter names of the BiLSTM.
const (
	biWF = "bi/Wf" // [H, d], on the forward state
	biWB = "bi/Wb" // [H, d], on the backward state
	biB  = "bi/b"  // [d]
)

// biGraph is the compiled loss of a batch of strings of length n: the sum
// over positions and strings of -log p(s_i | rest), nats.
type biGraph struct {
	m          *graph.Machine
	xf, xb, ys []*G.Node
	batch, n   int
}

func (bl *BiLSTM) build(batch, n int, grad bool) (*biGraph, error) {
	b := graph.NewBuilder()
	uf, err := graph.Unroll(b, bl.fwd, batch, n, false)
	if err != nil {
		return nil, err
	}
	ub, err := graph.Unroll(b, bl.bwd, batch, n, false)
	if err != nil {
		return nil, err
	}
	g := &biGraph{xf: uf.Inputs, xb: ub.Inputs, batch: batch, n: n}
	var total *G.Node
	for i := 0; i < n; i++ {
		logits := b.AddRow(b.Add(b.Mul(uf.Outputs[i], b.Param(bl.P, biWF)), b.Mul(ub.Outputs[n-1-i], b.Param(bl.P, biWB))),
			b.Param(bl.P, biB))
		y := b.Input(fmt.Sprintf("target%d", i), batch, bl.d)
		l := b.Sum(losses.CategoricalNLL(b, logits, y))
		g.ys = append(g.ys, y)
		if total == nil {
			total = l
		} else {
			total = b.Add(total, l)
		}
	}
	var wrt *params.Params
	if grad {
		wrt = bl.P
	}
	if g.m, err = graph.Compile(b, total, wrt); err != nil {
		return nil, err
	}
	return g, nil
}

// run binds a batch of strings and returns the mean NLL per symbol.
func (g *biGraph) run(strs [][]int, d int, grads *params.Params) (float64, error) {
	in := d + 1
	for t := 0; t < g.n; t++ {
		xf := make([]float64, g.batch*in)
		xb := make([]float64, g.batch*in)
		y := make([]float64, g.batch*d)
		for r, s := range strs {
			if len(s) != g.n {
				return 0, errors.Errorf("bilstm: string of length %d in a graph for length %d", len(s), g.n)
			}
			if t == 0 {
				xf[r*in+d], xb[r*in+d] = 1, 1
			} else {
				xf[r*in+s[t-1]] = 1
				xb[r*in+s[g.n-t]] = 1
			}
			y[r*d+s[t]] = 1
		}
		if err := g.m.Let(g.xf[t], xf); err != nil {
			return 0, err
		}
		if err := g.m.Let(g.xb[t], xb); err != nil {
			return 0, err
		}
		if err := g.m.Let(g.ys[t], y); err != nil {
			return 0, err
		}
	}
	if err := g.m.Run(); err != nil {
		return 0, err
	}
	scale := 1 / float64(g.batch*g.n)
	if grads != nil {
		tmp := grads.Like()
		if err := g.m.AddGrads(tmp); err != nil {
			return 0, err
		}
		for _, name := range grads.Names() {
			dst, src := grads.Data(name), tmp.Data(name)
			for i := range dst {
				dst[i] = src[i] * scale
			}
		}
	}
	return g.m.Loss() * scale, nil
}

// BiProblem is the BiLSTM's training problem: the mean NLL per symbol
// of every position of the training strings (it implements
// optim.Problem and optim.Validator).
type BiProblem struct {
	bl           *BiLSTM
	train, valid [][]int
	n            int
	graphs       map[int]*biGraph
	validGraph   *biGraph
}

// Params returns the BiLSTM's parameters.
func (p *BiProblem) Params() *params.Params { return p.bl.P }

// NumExamples is the number of training strings.
func (p *BiProblem) NumExamples() int { return len(p.train) }

// LossGrad returns the mean NLL per symbol of the training strings idx
// (nats) and writes its gradient into grads.
func (p *BiProblem) LossGrad(idx []int, grads *params.Params) (float64, error) {
	g, ok := p.graphs[len(idx)]
	if !ok {
		var err error
		if g, err = p.bl.build(len(idx), p.n, true); err != nil {
			return 0, err
		}
		p.graphs[len(idx)] = g
	}
	strs := make([][]int, len(idx))
	for i, k := range idx {
		strs[i] = p.train[k]
	}
	return g.run(strs, p.bl.d, grads)
}

// ValidationLoss is the mean NLL per symbol of the validation strings
// (NaN without any).
func (p *BiProblem) ValidationLoss() (float64, error) {
	if len(p.valid) == 0 {
		return math.NaN(), nil
	}
	if p.validGraph == nil {
		var err error
		if p.validGraph, err = p.bl.build(len(p.valid), p.n, false); err != nil {
			return 0, err
		}
	}
	return p.validGraph.run(p.valid, p.bl.d, nil)
}

// NewBiLSTM returns a BiLSTM over d symbols with hidden units per reader,
// initialised from rng: both LSTMs as rnn.LSTM.Init, the output weights
// from U(-1/sqrt(hidden), 1/sqrt(hidden)), the output bias at zero.
func NewBiLSTM(d, hidden int, rng *rand.Rand) (*BiLSTM, error) {
	if d < 1 || hidden < 1 || rng == nil {
		return nil, errors.Errorf("bilstm: want d, hidden >= 1 and a random source, got d %d, hidden %d", d, hidden)
	}
	p := params.New()
	bl := &BiLSTM{P: p, d: d, h: hidden}
	var err error
	if bl.fwd, err = rnn.NewLSTM(p, "fwd", d+1, hidden); err != nil {
		return nil, err
	}
	if bl.bwd, err = rnn.NewLSTM(p, "bwd", d+1, hidden); err != nil {
		return nil, err
	}
	for _, c := range []*rnn.LSTM{bl.fwd, bl.bwd} {
		if err := c.Init(rng); err != nil {
			return nil, err
		}
	}
	for _, name := range []string{biWF, biWB} {
		if _, err := p.Add(name, hidden, d); err != nil {
			return nil, err
		}
		if err := p.InitUniform(name, rng, 1/math.Sqrt(float64(hidden))); err != nil {
			return nil, err
		}
	}
	if _, err := p.Add(biB, d); err != nil {
		return nil, err
	}
	return bl, nil
}

// Problem returns the training problem of strings that all have the same
// length (the Motzkin training sets), validated on valid.
func (bl *BiLSTM) Problem(train, valid [][]int) (*BiProblem, error) {
	if len(train) == 0 || len(train[0]) == 0 {
		return nil, errors.New("bilstm: want non-empty training strings")
	}
	n := len(train[0])
	for _, s := range append(append([][]int(nil), train...), valid...) {
		if len(s) != n {
			return nil, errors.Errorf("bilstm: strings of lengths %d and %d; the baseline trains on one length", n, len(s))
		}
		for _, c := range s {
			if c < 0 || c >= bl.d {
				return nil, errors.Errorf("bilstm: symbol %d outside 0..%d", c, bl.d-1)
			}
		}
	}
	return &BiProblem{bl: bl, train: train, valid: valid, n: n, graphs: map[int]*biGraph{}}, nil
}

// Complete returns the distribution of the missing symbol between prefix
// and suffix ([d] probabilities), by the plain-Go forward pass of both
// readers.
func (bl *BiLSTM) Complete(prefix, suffix []int) []float64 {
	read := func(c *rnn.LSTM, syms []int) []float64 {
		st := newLSTMState(bl.P, c, bl.h, 1)
		for t := 0; t <= len(syms); t++ {
			x := make([]float64, bl.d+1)
			if t == 0 {
				x[bl.d] = 1
			} else {
				x[syms[t-1]] = 1
			}
			lstmStep(bl.P, c, bl.h, st, [][]float64{x})
		}
		return st.h
	}
	rev := make([]int, len(suffix))
	for i, c := range suffix {
		rev[len(suffix)-1-i] = c
	}
	hf, hb := read(bl.fwd, prefix), read(bl.bwd, rev)
	logits := append([]float64(nil), bl.P.Data(biB)...)
	wf, wb := bl.P.Data(biWF), bl.P.Data(biWB)
	for i := 0; i < bl.h; i++ {
		for k := range logits {
			logits[k] += hf[i]*wf[i*bl.d+k] + hb[i]*wb[i*bl.d+k]
		}
	}
	mx := math.Inf(-1)
	for _, v := range logits {
		mx = math.Max(mx, v)
	}
	total := 0.0
	for k, v := range logits {
		logits[k] = math.Exp(v - mx)
		total += logits[k]
	}
	for k := range logits {
		logits[k] /= total
	}
	return logits
}
