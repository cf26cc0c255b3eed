package runs

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/pcnn"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
)

// PCNNSpec is one training run of the Riemannian paper's experiments
// (section 4): a model trained on one generated training stream and
// scored, by cumulative regret, on an independent validation stream.
type PCNNSpec struct {
	// Task is alphabet, music, xor or anbn (the default).
	Task string
	// Size overrides the task's size (lines, bars, lines, blocks); 0
	// means the paper's (1000, 2700, 10000, 10).
	Size int
	// Model is rnn, cnn or pcnn; Activation tanh (default) or logistic.
	Model, Activation string
	// Writing is qdh (default) or dh; Transition rbpm (default), rutsd,
	// qdrbpm, qdrutsd or fb.
	Writing, Transition string
	// Units is the network size N (default 16); Degree the incoming
	// edges per unit including the loop (default 3), Full for a fully
	// connected network. NewPCNNModel, which applies no defaults, reads a
	// Degree of 0 as Full.
	Units, Degree int
	// Passes bounds the gradient passes (steps, alternating writing and
	// transition); Budget bounds the training time. At least one must be
	// set; training stops at the first reached.
	Passes int
	Budget time.Duration
	// Checks is the number of validation evaluations spread over the
	// run for the learning curve. If 0, it will be defaulted to 20.
	Checks int
	// Restarts is the number of independent starts (network and
	// initialisation drawn anew) trained for a short probe each (150
	// passes, fewer when Passes leaves less than half the run to them);
	// the start with the lowest training loss is then trained for the
	// rest of the run, the probes counting in its passes and time. If 0,
	// it will be defaulted to 4 for anbn and 1 (no probe) otherwise: on
	// a^n b^n a start either forms a counter within its first hundred or
	// so passes or settles on independent block lengths (the paper's
	// "cluster of runs around -230 bits"), which it does not leave once
	// the transition rate has fallen to about 1/n.
	Restarts int
	// Seed seeds the data, the network and the initialisation. Default 1.
	Seed uint64
	// Generate is the number of symbols sampled from the trained model
	// into PCNNReport.Sample (0: none).
	Generate int
	// Out is a directory for curve.csv, curve.png and report.json ("" none).
	Out string
	// Log receives progress lines (nil: none).
	Log io.Writer
}

// PCNNPoint is one point of a learning curve.
type PCNNPoint struct {
	Seconds    float64 `json:"seconds"`
	Pass       int     `json:"pass"`
	RegretBits float64 `json:"regret_bits"`
}

// PCNNReport is the result of RunPCNN. Bits are base-2 code lengths of
// the predicted symbols of the validation stream.
type PCNNReport struct {
	Task    string  `json:"task"`
	Model   string  `json:"model"`
	Method  string  `json:"method"`
	Units   int     `json:"units"`
	Degree  int     `json:"degree"` // 0: fully connected
	Passes  int     `json:"passes"`
	Seconds float64 `json:"seconds"`
	// ValidBits is the model's regularised code length at the best
	// validation check (early stopping on the validation stream, as the
	// paper's curves report), FinalValidBits at the end of training.
	ValidBits      float64 `json:"valid_bits"`
	FinalValidBits float64 `json:"final_valid_bits"`
	TrueBits       float64 `json:"true_bits"`
	RegretBits     float64 `json:"regret_bits"`
	// ErrorPercent (xor only): the share of predicted bits given
	// probability <= 1/2, at the best check.
	ErrorPercent *float64 `json:"error_percent,omitempty"`
	// PerPass is Seconds / Passes: wall time per pass, the validation
	// checks included.
	PerPass float64 `json:"seconds_per_pass"`
	// Restarts is the number of starts probed (PCNNSpec.Restarts; 0
	// when none was).
	Restarts  int         `json:"restarts,omitempty"`
	Curve     []PCNNPoint `json:"curve"`
	Sample    string      `json:"sample,omitempty"`
	Fallbacks int         `json:"metric_fallbacks"`
}

// PCNNStreams generates the training and validation streams of a task.
func PCNNStreams(task string, size int, seed uint64) (train, valid datasets.Stream, err error) {
	rng := rand.New(rand.NewPCG(seed, 0x9c77))
	gen := func() (datasets.Stream, error) {
		switch task {
		case "alphabet":
			return datasets.AlphabetInsertions(datasets.AlphabetConfig{Lines: size}, rng)
		case "music":
			return datasets.SyntheticMusic(datasets.MusicConfig{Bars: size}, rng)
		case "xor":
			return datasets.DistantXOR(datasets.XORConfig{Lines: size}, rng)
		case "anbn":
			return datasets.AnBn(datasets.AnBnConfig{Blocks: size}, rng)
		}
		return datasets.Stream{}, errors.Errorf("unknown task %q (want alphabet, music, xor or anbn)", task)
	}
	if size < 0 {
		return train, valid, errors.Errorf("task size must be >= 0, got %d", size)
	}
	if train, err = gen(); err != nil {
		return
	}
	valid, err = gen()
	return
}

// NewPCNNModel builds and initialises the model of spec on train.
func NewPCNNModel(spec PCNNSpec, train datasets.Stream, alphabet int, rng *rand.Rand) (*pcnn.Model, error) {
	kind, err := pcnn.ParseKind(spec.Model)
	if err != nil {
		return nil, err
	}
	act, err := activation.ParseOneOf(spec.Activation, pcnn.Activations()...)
	if err != nil {
		return nil, err
	}
	d := spec.Degree
	if d == 0 || d == Full {
		d = spec.Units
	}
	net, err := pcnn.RandomNetwork(spec.Units, d, rng)
	if err != nil {
		return nil, err
	}
	m, err := pcnn.New(kind, act, alphabet, net)
	if err != nil {
		return nil, err
	}
	return m, m.Init(train, rng)
}

var errBudget = errors.New("time budget reached")

// RunPCNN trains one model with the Riemannian scheme (optim.Riemann in
// optim.Trainer; DH+FB runs through the same scheme) and
// reports its cumulative regret on the validation stream.
func RunPCNN(spec PCNNSpec) (*PCNNReport, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := CheckOutDir("{Out}", spec.Out); err != nil {
		return nil, err
	}
	if err := checkEstimate(spec.EstimateMemory()); err != nil {
		return nil, err
	}
	if spec.Log == nil {
		spec.Log = io.Discard
	}
	lock, err := LockOutputs([]string{spec.Out}, nil)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	wm, err := pcnn.ParseWriting(spec.Writing)
	if err != nil {
		return nil, err
	}
	tm, err := pcnn.ParseTransition(spec.Transition)
	if err != nil {
		return nil, err
	}
	train, valid, err := PCNNStreams(spec.Task, spec.Size, spec.Seed)
	if err != nil {
		return nil, err
	}
	method := pcnn.Method{Writing: wm, Transition: tm}
	// start r draws its network and initialisation from its own stream;
	// start 0 is the run without restarts.
	newStart := func(r int) (*pcnn.Model, *pcnn.Problem, *optim.Riemann, *rand.Rand, error) {
		rng := rand.New(rand.NewPCG(spec.Seed, 0x9c78+uint64(r)))
		m, err := NewPCNNModel(spec, train, len(train.Alphabet), rng)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		prob, err := pcnn.NewProblem(m, train, method)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		opt, err := optim.NewRiemann(optim.RiemannConfig{})
		return m, prob, opt, rng, err
	}
	m, prob, opt, rng, err := newStart(0)
	if err != nil {
		return nil, err
	}
	rep := &PCNNReport{Task: spec.Task, Model: spec.Model, Method: method.String(), Units: spec.Units,
		Degree: spec.Degree, TrueBits: valid.TrueBits()}
	best := math.Inf(1)
	var bestParams *params.Params
	var bestModel *pcnn.Model
	var bestErr float64
	validTrace := &pcnn.Trace{}
	check := func(pass int, elapsed time.Duration) error {
		bits, errPct, err := validBits(m, valid, validTrace)
		if err != nil {
			return err
		}
		rep.Curve = append(rep.Curve, PCNNPoint{Seconds: elapsed.Seconds(), Pass: pass, RegretBits: valid.RegretBits(bits)})
		rep.FinalValidBits = bits
		if bits < best {
			best, bestErr, bestModel = bits, errPct, m
			bestParams = m.P.Clone()
		}
		fmt.Fprintf(spec.Log, "%s %s %s N=%d: pass %d, %.1fs, regret %.1f bits\n",
			spec.Task, spec.Model, rep.Method, spec.Units, pass, elapsed.Seconds(), valid.RegretBits(bits))
		return nil
	}
	if err := check(0, 0); err != nil {
		return nil, err
	}
	start := time.Now()
	probed := 0
	if probe := spec.probePasses(); probe > 0 {
		loss := math.Inf(1)
		for r := range spec.Restarts {
			mr, pr, or, rr, err := newStart(r)
			if err != nil {
				return nil, err
			}
			total, err := trainPCNN(spec, pr, or, probe, start, probed, nil)
			if err != nil {
				return nil, err
			}
			n := total - probed
			probed = total
			l, err := pr.Loss(nil)
			if err == nil && l < loss {
				loss, m, prob, opt, rng = l, mr, pr, or, rr
			}
			fmt.Fprintf(spec.Log, "%s %s %s N=%d: start %d, %d passes, training loss %.4g nats/symbol\n",
				spec.Task, spec.Model, rep.Method, spec.Units, r, n, l)
			if n < probe { // the budget ran out
				break
			}
		}
		rep.Restarts = spec.Restarts
	}
	if rep.Passes, err = trainPCNN(spec, prob, opt, spec.Passes-probed, start, probed, check); err != nil {
		return nil, err
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.PerPass = rep.Seconds / math.Max(1, float64(rep.Passes))
	rep.Fallbacks = prob.Fallbacks
	if rep.Fallbacks > 0 {
		fmt.Fprintf(spec.Log, "%d metric blocks were not positive definite after damping: they used the quasi-diagonal solve\n", rep.Fallbacks)
	}
	rep.ValidBits, rep.RegretBits = best, valid.RegretBits(best)
	if spec.Task == "xor" {
		rep.ErrorPercent = &bestErr
	}
	m = bestModel
	_ = m.P.CopyFrom(bestParams)
	if spec.Generate > 0 {
		xs, err := m.Generate(spec.Generate, rng)
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		for _, x := range xs {
			b.WriteString(train.Alphabet[x])
		}
		rep.Sample = b.String()
	}
	return rep, writePCNNOutputs(spec.Out, rep)
}

// probePasses is the length of each start's probe (0: no probe): 150
// passes, or less when Passes leaves less than half the run to the
// probes.
func (s *PCNNSpec) probePasses() int {
	if s.Restarts < 2 {
		return 0
	}
	probe := 150
	if s.Passes > 0 {
		probe = min(probe, s.Passes/(2*s.Restarts))
	}
	return probe
}

// trainPCNN runs opt in optim.Trainer on prob for up to
// epochs passes (0: until spec.Budget, counted from start), done passes
// having been made before it; with a check it calls check(pass,
// elapsed) spec.Checks times along the way and at the end. It returns
// the passes made in all, done included.
func trainPCNN(spec PCNNSpec, prob *pcnn.Problem, opt *optim.Riemann, epochs int, start time.Time, done int,
	check func(int, time.Duration) error) (int, error) {
	if epochs <= 0 {
		epochs = math.MaxInt32
	}
	lastCheck, passes := time.Since(start), done
	interval := spec.Budget / time.Duration(spec.Checks)
	every := max(1, spec.Passes/spec.Checks)
	hook := optim.Hook{Name: "pcnn-validation", EveryEpoch: true, Fn: func(st *optim.State) error {
		el, pass := time.Since(start), done+st.Epoch
		over := spec.Budget > 0 && el >= spec.Budget
		due := st.Done || over
		if spec.Budget > 0 {
			due = due || el-lastCheck >= interval
		} else {
			due = due || pass%every == 0
		}
		if due && check != nil {
			lastCheck = el
			if err := check(pass, el); err != nil {
				return err
			}
		}
		passes = pass
		if over {
			return errBudget
		}
		return nil
	}}
	tr, err := optim.NewTrainer(prob, opt, optim.TrainConfig{Epochs: epochs, Hooks: []optim.Hook{hook}})
	if err != nil {
		return 0, err
	}
	if _, err := tr.Run(); err != nil && !errors.Is(err, errBudget) {
		return 0, err
	}
	return passes, nil
}

// validBits is the regularised code length (bits) of the predicted
// validation symbols, and the percentage of them given probability <= 1/2.
// tr is reused between calls (nil: a new trace); only the predicted
// steps' outputs are computed.
func validBits(m *pcnn.Model, s datasets.Stream, tr *pcnn.Trace) (float64, float64, error) {
	if tr == nil {
		tr = &pcnn.Trace{}
	}
	tr.PredictedOnly = true
	tr, err := m.Forward(s, tr)
	if err != nil {
		return 0, 0, err
	}
	var bits float64
	var wrong, n int
	for t, x := range s.X {
		if s.Mask != nil && !s.Mask[t] {
			continue
		}
		p := tr.Pi[t*m.A+x]
		bits -= math.Log2(datasets.RegularizedProb(p, t, m.A))
		n++
		if p <= 0.5 {
			wrong++
		}
	}
	return bits, 100 * float64(wrong) / float64(max(n, 1)), nil
}

// RegretCurve is the learning curve for a plot: seconds and regret (bits),
// without the starting point (the i.i.d. model's regret, tens of thousands
// of bits, would flatten the rest of the curve).
func (r *PCNNReport) RegretCurve() (seconds, regret []float64) {
	for _, p := range r.Curve {
		if p.Pass > 0 {
			seconds, regret = append(seconds, p.Seconds), append(regret, p.RegretBits)
		}
	}
	return seconds, regret
}

// writePCNNOutputs writes report.json, curve.csv and curve.png into dir.
func writePCNNOutputs(dir string, rep *PCNNReport) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return errors.Wrap(err, "creating the output directory")
	}
	if err := report.WriteJSON(filepath.Join(dir, "report.json"), rep); err != nil {
		return err
	}
	var rows [][]string
	s := report.Series{Name: rep.Model + " " + rep.Method}
	for _, p := range rep.Curve {
		rows = append(rows, []string{report.Ftoa(p.Seconds), fmt.Sprint(p.Pass), report.Ftoa(p.RegretBits)})
	}
	s.X, s.Y = rep.RegretCurve()
	if err := report.WriteCSV(filepath.Join(dir, "curve.csv"), []string{"seconds", "pass", "regret_bits"}, rows); err != nil {
		return err
	}
	return report.LinePlot(filepath.Join(dir, "curve.png"), rep.Task+": validation regret", "seconds", "regret (bits)", []report.Series{s}, nil)
}
