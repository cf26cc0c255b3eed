package baseline

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/rnn"
	"github.com/rtnlab/rtn/params"
)

// peFeatures is the width of the positional encoding.
const peFeatures = 6

// positional returns the encoding of step pos of a string of length n:
// sin and cos of (pi/2) (pos/n) 2^k for k = 0, 1, 2. Dividing by n is the
// paper's length scaling: the last step (pos = n, where the end symbol is
// due) always gets the same code, whatever the length.
func positional(pos, n int) []float64 {
	out := make([]float64, 0, peFeatures)
	r := float64(pos) / float64(max(n, 1))
	for k := 0; k < peFeatures/2; k++ {
		a := math.Pi / 2 * r * float64(int(1)<<k)
		out = append(out, math.Sin(a), math.Cos(a))
	}
	return out
}

// LSTMLM is the u-MPS paper's unidirectional LSTM baseline over d
// symbols: a language model with begin and end symbols and a positional
// encoding scaled by the target length, trained as a layers.Sequence
// (Problem) and sampled at a fixed length in plain Go. Inputs are the
// previous symbol (or begin, id d) one-hot plus the positional encoding;
// outputs are the next symbol or end (id d).
type LSTMLM struct {
	// P holds the LSTM (lstm/...) and the output layer (layers.OutW,
	// layers.OutB).
	P    *params.Params
	cell *rnn.LSTM
	seq  *layers.Sequence
	d, h int
}

// lstmExample turns a string into one next-symbol example of len(s)+1
// steps.
func lstmExample(s []int, d int) datasets.Example {
	in := d + 1 + peFeatures
	n := len(s)
	ex := datasets.Example{T: n + 1, X: make([]float64, (n+1)*in), Y: make([]float64, n+1)}
	for t := 0; t <= n; t++ {
		x := ex.X[t*in : (t+1)*in]
		if t == 0 {
			x[d] = 1
		} else {
			x[s[t-1]] = 1
		}
		copy(x[d+1:], positional(t, n))
		if t < n {
			ex.Y[t] = float64(s[t])
		} else {
			ex.Y[t] = float64(d)
		}
	}
	return ex
}

// NewLSTMLM returns the baseline over d symbols with hidden units,
// initialised from rng (the cell as rnn.LSTM.Init, then the output layer
// as layers.Sequence.InitHead).
func NewLSTMLM(d, hidden int, rng *rand.Rand) (*LSTMLM, error) {
	if d < 1 || hidden < 1 || rng == nil {
		return nil, errors.Errorf("lstm baseline: want d, hidden >= 1 and a random source, got %d symbols, %d hidden", d, hidden)
	}
	p := params.New()
	cell, err := rnn.NewLSTM(p, "lstm", d+1+peFeatures, hidden)
	if err != nil {
		return nil, err
	}
	if err := cell.Init(rng); err != nil {
		return nil, err
	}
	seq, err := layers.NewSequence(p, cell, d+1, datasets.Categorical)
	if err != nil {
		return nil, err
	}
	if err := seq.InitHead(rng); err != nil {
		return nil, err
	}
	return &LSTMLM{P: p, cell: cell, seq: seq, d: d, h: hidden}, nil
}

// Problem returns the next-symbol problem of the training strings (one
// example of len(s)+1 steps per string, end included), validated on
// valid.
func (m *LSTMLM) Problem(train, valid [][]int) (*layers.Problem, error) {
	if len(train) == 0 {
		return nil, errors.New("lstm baseline: no training strings")
	}
	task := &datasets.Task{Name: "lstm-baseline", In: m.d + 1 + peFeatures, Out: m.d + 1, Kind: datasets.Categorical, OptimalLoss: math.NaN()}
	for _, set := range []struct {
		strs [][]int
		dst  *[]datasets.Example
	}{{train, &task.Train}, {valid, &task.Valid}} {
		for _, s := range set.strs {
			for _, c := range s {
				if c < 0 || c >= m.d {
					return nil, errors.Errorf("lstm baseline: symbol %d outside 0..%d", c, m.d-1)
				}
			}
			*set.dst = append(*set.dst, lstmExample(s, m.d))
		}
	}
	return layers.NewProblem(m.seq, task, layers.ProblemConfig{})
}

// lstmState is an LSTM's state for a batch of strings evaluated in plain
// Go: h and c, row-major [count, H].
type lstmState struct{ h, c []float64 }

// newLSTMState returns the learned initial state (h0, c0) for count rows.
func newLSTMState(p *params.Params, cell *rnn.LSTM, H, count int) *lstmState {
	st := &lstmState{h: make([]float64, count*H), c: make([]float64, count*H)}
	for r := 0; r < count; r++ {
		copy(st.h[r*H:], p.Data(cell.Name("h0")))
		copy(st.c[r*H:], p.Data(cell.Name("c0")))
	}
	return st
}

// lstmStep advances every row by one input: the LSTM of layers/rnn (gates
// i, f, g, o) written out in plain Go for sampling.
func lstmStep(p *params.Params, cell *rnn.LSTM, H int, st *lstmState, x [][]float64) {
	W, U, bias := p.Data(cell.Name("W")), p.Data(cell.Name("U")), p.Data(cell.Name("b"))
	z := make([]float64, 4*H)
	for r := range x {
		h, c := st.h[r*H:(r+1)*H], st.c[r*H:(r+1)*H]
		copy(z, bias)
		for i, v := range x[r] {
			if v != 0 {
				for j := range z {
					z[j] += v * W[i*4*H+j]
				}
			}
		}
		for i := 0; i < H; i++ {
			for j := range z {
				z[j] += h[i] * U[i*4*H+j]
			}
		}
		for j := 0; j < H; j++ {
			c[j] = sigm(z[H+j])*c[j] + sigm(z[j])*math.Tanh(z[2*H+j])
			h[j] = sigm(z[3*H+j]) * math.Tanh(c[j])
		}
	}
}

// step advances the baseline by one input per row and returns the output
// logits [count, d+1].
func (m *LSTMLM) step(st *lstmState, x [][]float64) [][]float64 {
	lstmStep(m.P, m.cell, m.h, st, x)
	wo, bo := m.P.Data(layers.OutW), m.P.Data(layers.OutB)
	out := make([][]float64, len(x))
	for r := range x {
		h := st.h[r*m.h : (r+1)*m.h]
		logits := append([]float64(nil), bo...)
		for i := 0; i < m.h; i++ {
			for k := range logits {
				logits[k] += h[i] * wo[i*len(bo)+k]
			}
		}
		out[r] = logits
	}
	return out
}

func sigm(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// SampleLength draws count strings of length n: begin is never an output,
// end is forbidden before step n, and the positional encoding is scaled
// to n (the paper's sampling rule for the baseline).
func (m *LSTMLM) SampleLength(n, count int, rng *rand.Rand) ([][]int, error) {
	if n < 0 || count < 0 || rng == nil {
		return nil, errors.New("lstm baseline: want n >= 0, count >= 0 and a random source")
	}
	out := make([][]int, count)
	if count == 0 || n == 0 {
		for i := range out {
			out[i] = []int{}
		}
		return out, nil
	}
	st := newLSTMState(m.P, m.cell, m.h, count)
	prev := make([]int, count)
	for i := range prev {
		prev[i] = m.d // begin
	}
	for t := 0; t < n; t++ {
		x := make([][]float64, count)
		for r := range x {
			x[r] = make([]float64, m.d+1+peFeatures)
			x[r][prev[r]] = 1
			copy(x[r][m.d+1:], positional(t, n))
		}
		logits := m.step(st, x)
		for r := range logits {
			c := sampleSoftmax(logits[r][:m.d], rng) // end excluded
			out[r] = append(out[r], c)
			prev[r] = c
		}
	}
	return out, nil
}

// MeanNLL is the mean per-step NLL (nats) of strings, end included,
// computed by the plain-Go forward pass.
func (m *LSTMLM) MeanNLL(strs [][]int) float64 {
	total, steps := 0.0, 0
	for _, s := range strs {
		st := newLSTMState(m.P, m.cell, m.h, 1)
		ex := lstmExample(s, m.d)
		in := m.d + 1 + peFeatures
		for t := 0; t < ex.T; t++ {
			logits := m.step(st, [][]float64{ex.X[t*in : (t+1)*in]})[0]
			mx, z := maxSumExp(logits)
			total -= logits[int(ex.Y[t])] - mx - math.Log(z)
			steps++
		}
	}
	return total / float64(steps)
}

// maxSumExp returns the largest of logits, mx, and the sum of
// exp(v - mx) over logits.
func maxSumExp(logits []float64) (mx, z float64) {
	mx = math.Inf(-1)
	for _, v := range logits {
		mx = math.Max(mx, v)
	}
	for _, v := range logits {
		z += math.Exp(v - mx)
	}
	return mx, z
}

// sampleSoftmax draws an index with probability softmax(logits).
func sampleSoftmax(logits []float64, rng *rand.Rand) int {
	mx, total := maxSumExp(logits)
	u := rng.Float64() * total
	for i, v := range logits {
		u -= math.Exp(v - mx)
		if u < 0 {
			return i
		}
	}
	return len(logits) - 1
}
