package layers

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
)

// Predictor uses a trained Sequence: per-step outputs (Predict), the
// log-likelihood of a sequence (LogProb) and samples (Sample). It runs the
// model forward on one sequence at a time with the executor a Problem with
// the same ProblemConfig would use (the cell's kernel, its tape, or
// gorgonia graphs; float64 or float32), so its numbers are those of
// training and evaluation bit for bit: LogProb(ex) is -T times
// Problem.Evaluate on ex alone. On a kernel or the tape a step allocates
// nothing.
//
// A Predictor reads the Sequence's parameters at every call, so it sees
// updates made between calls. It is not safe for concurrent use; make one
// per goroutine.
type Predictor struct {
	seq   *Sequence
	st    stepper
	exec  string
	x, y  []float64 // one step's input and target
	z, pr []float64 // logits and probabilities
}

// NewPredictor sets up a Predictor for seq; cfg chooses the executor and
// float type as for NewProblem (Executor, DType; the other
// fields are not used).
func NewPredictor(seq *Sequence, cfg ProblemConfig) (*Predictor, error) {
	st, exec, err := seq.newStepper(cfg)
	if err != nil {
		return nil, err
	}
	return &Predictor{seq: seq, st: st, exec: exec, x: make([]float64, seq.Cell.InputSize()),
		y: make([]float64, seq.Out), z: make([]float64, seq.Out), pr: make([]float64, seq.Out)}, nil
}

// Executor names the executor the predictor runs on: ExecFused, ExecTape
// or ExecGraph.
func (p *Predictor) Executor() string { return p.exec }

// Predict returns the model's output at every step of ex, [T*Out]
// step-major: softmax probabilities for a Categorical model, each unit's
// probability of 1 for a Binary one, the predicted values for a Real one.
// The targets of ex are not read. The result is written to dst when it has
// room (dst[:T*Out]), else to a new slice.
func (p *Predictor) Predict(ex datasets.Example, dst []float64) ([]float64, error) {
	if err := p.checkInputs(ex); err != nil {
		return nil, err
	}
	out := p.seq.Out
	if cap(dst) < ex.T*out {
		dst = make([]float64, ex.T*out)
	}
	dst = dst[:ex.T*out]
	if err := p.st.start(); err != nil {
		return nil, err
	}
	in := p.seq.Cell.InputSize()
	for t := range ex.T {
		if _, err := p.st.step(ex.X[t*in:(t+1)*in], nil); err != nil {
			return nil, err
		}
		p.st.logits(p.z)
		p.output(dst[t*out : (t+1)*out])
	}
	return dst, nil
}

// output turns the logits of a step into the model's output.
func (p *Predictor) output(dst []float64) {
	switch p.seq.Kind {
	case datasets.Categorical:
		softmax(dst, p.z, 1)
	case datasets.Binary:
		for j, v := range p.z {
			dst[j] = 1 / (1 + math.Exp(-v))
		}
	default:
		copy(dst, p.z)
	}
}

// softmax writes softmax(z / temp) into dst.
func softmax(dst, z []float64, temp float64) {
	zmax := math.Inf(-1)
	for _, v := range z {
		zmax = max(zmax, v)
	}
	var s float64
	for j, v := range z {
		dst[j] = math.Exp((v - zmax) / temp)
		s += dst[j]
	}
	for j := range dst {
		dst[j] /= s
	}
}

// LogProb returns minus the sum of the step losses of ex, in nats: its
// log-likelihood under a Categorical or Binary model (the log-probability
// of its targets given its inputs), minus its summed per-step mean squared
// errors under a Real one. The steps are added in order, as the executors
// add them: -LogProb(ex)/T equals the mean per-step loss that
// Problem.Evaluate reports for ex alone, bit for bit.
func (p *Predictor) LogProb(ex datasets.Example) (float64, error) {
	if err := p.checkInputs(ex); err != nil {
		return 0, err
	}
	if err := p.checkTargets(ex); err != nil {
		return 0, err
	}
	if err := p.st.start(); err != nil {
		return 0, err
	}
	in, out := p.seq.Cell.InputSize(), p.seq.Out
	var total float64
	for t := range ex.T {
		y := p.y
		if p.seq.Kind == datasets.Categorical {
			clear(y)
			y[int(ex.Y[t])] = 1
		} else {
			y = ex.Y[t*out : (t+1)*out]
		}
		l, err := p.st.step(ex.X[t*in:(t+1)*in], y)
		if err != nil {
			return 0, err
		}
		total += l
	}
	return -total, nil
}

// SampleConfig sets Predictor.Sample.
type SampleConfig struct {
	// Temperature divides the logits before the softmax: 1 draws from the
	// model's distribution, below 1 sharpens it, above 1 flattens it. It
	// must be positive and finite (0 is an error, not greedy decoding).
	Temperature float64
	// MaxLen is the longest sample, prefix included; it must be >= 1.
	MaxLen int
	// Stop lists symbols that end a sample when drawn; the stop symbol is
	// the sample's last. Nil: samples run to MaxLen.
	Stop []int
	// Prefix is the start of every sample: its symbols are fed to the
	// model, not drawn, and are part of the sample.
	Prefix []int
}

// Validate checks the configuration for a model of v symbols.
func (c SampleConfig) Validate(v int) error {
	switch {
	case !(c.Temperature > 0) || math.IsInf(c.Temperature, 0):
		return errors.Errorf("layers: sampling temperature must be positive and finite, got %g", c.Temperature)
	case c.MaxLen < 1:
		return errors.Errorf("layers: the maximum sample length must be >= 1, got %d", c.MaxLen)
	case len(c.Prefix) > c.MaxLen:
		return errors.Errorf("layers: the prefix has %d symbols, more than the maximum length %d", len(c.Prefix), c.MaxLen)
	}
	for _, s := range [][]int{c.Stop, c.Prefix} {
		for _, id := range s {
			if id < 0 || id >= v {
				return errors.Errorf("layers: symbol id %d out of range [0, %d)", id, v)
			}
		}
	}
	return nil
}

// Sample draws one symbol sequence from a next-symbol model: a Categorical
// model of V classes with V+1 inputs, the last the begin marker, as
// datasets.SymbolExamples builds them (one-hot, or their codes for a model
// with an EmbedCell). Step 0 reads the begin marker, step
// t > 0 the one-hot symbol of step t-1, drawn or from the prefix; each
// draw takes one rng.Float64. The same rng state gives the same sample.
func (p *Predictor) Sample(rng *rand.Rand, cfg SampleConfig) ([]int, error) {
	v := p.seq.Out
	in := p.seq.Cell.InputSize()
	codes := false
	if e, ok := p.seq.Cell.(*EmbedCell); ok {
		in, codes = e.Symbols(), true
	}
	if p.seq.Kind != datasets.Categorical || in != v+1 {
		return nil, errors.Errorf("layers: sampling needs a next-symbol model (categorical, %d classes, %d inputs with the begin marker), not %s with %d inputs", v, v+1, p.seq.Kind, in)
	}
	if err := cfg.Validate(v); err != nil {
		return nil, err
	}
	if err := p.st.start(); err != nil {
		return nil, err
	}
	out := make([]int, 0, min(cfg.MaxLen, 1<<10)) // a sample ends early when it draws a stop
	p.input(v, codes)
	for t := range cfg.MaxLen {
		if _, err := p.st.step(p.x, nil); err != nil {
			return nil, err
		}
		s := 0
		if t < len(cfg.Prefix) {
			s = cfg.Prefix[t]
		} else {
			p.st.logits(p.z)
			softmax(p.pr, p.z, cfg.Temperature)
			s = draw(p.pr, rng.Float64())
		}
		out = append(out, s)
		if t >= len(cfg.Prefix) && slices.Contains(cfg.Stop, s) {
			break
		}
		p.input(s, codes)
	}
	return out, nil
}

// input sets the step input to symbol s: its code, or its one-hot row.
func (p *Predictor) input(s int, codes bool) {
	if codes {
		p.x[0] = float64(s)
		return
	}
	clear(p.x)
	p.x[s] = 1
}

// draw returns the first j whose cumulative probability passes u in
// [0, 1), the last symbol of positive probability when rounding leaves u
// above the total.
func draw(pr []float64, u float64) int {
	var c float64
	last := 0
	for j, q := range pr {
		if q > 0 {
			last = j
		}
		c += q
		if u < c {
			return j
		}
	}
	return last
}

// checkInputs checks the length and values of ex's inputs.
func (p *Predictor) checkInputs(ex datasets.Example) error {
	in := p.seq.Cell.InputSize()
	if ex.T < 1 || len(ex.X) != ex.T*in {
		return errors.Errorf("layers: example of %d steps with %d inputs, want >= 1 step of %d", ex.T, len(ex.X), in)
	}
	for i, x := range ex.X {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.Errorf("layers: input %d of step %d is %g", i%in, i/in, x)
		}
	}
	return nil
}

// checkTargets checks ex's targets for the model's kind.
func (p *Predictor) checkTargets(ex datasets.Example) error {
	out := p.seq.Out
	if p.seq.Kind == datasets.Categorical {
		if len(ex.Y) != ex.T {
			return errors.Errorf("layers: example of %d steps with %d class ids", ex.T, len(ex.Y))
		}
		for t, y := range ex.Y {
			if y != math.Trunc(y) || y < 0 || y >= float64(out) {
				return errors.Errorf("layers: class id %g at step %d is not an integer in [0, %d)", y, t, out)
			}
		}
		return nil
	}
	if len(ex.Y) != ex.T*out {
		return errors.Errorf("layers: example of %d steps with %d targets, want %d per step", ex.T, len(ex.Y), out)
	}
	for i, y := range ex.Y {
		if math.IsNaN(y) || math.IsInf(y, 0) || (p.seq.Kind == datasets.Binary && (y < 0 || y > 1)) {
			return errors.Errorf("layers: %s target %g at step %d unit %d is out of range", p.seq.Kind, y, i/out, i%out)
		}
	}
	return nil
}
