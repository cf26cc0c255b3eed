package runs

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/layers/baseline"
	"github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/spectral"
)

// SpectralMethods lists the methods RunSpectral knows, in plotting order.
var SpectralMethods = []string{"ls", "nuclear", "iht", "tiht", "tiht+sgd", "lstm", "tt-tiht", "tt-als"}

// SpectralSpec describes one run of the 2-RNN spectral paper's
// experiments (Section 5): a target, training sets of lengths L, 2L, 2L+1
// with N examples each, a recovery method and a test set of noiseless
// length-6 sequences.
type SpectralSpec struct {
	// Task is "random2rnn" (the default) or "addition".
	Task string
	// N is the number of training examples of each length; if 0 it
	// defaults to 1,000.
	N int
	// Noise is the standard deviation of the training output noise.
	Noise float64
	// L is the prefix length; if 0 it defaults to 2.
	L int
	// Rank is the number of states learned; if 0 it defaults to the
	// target's (5 for random2rnn with the default States, 2 for addition).
	Rank int
	// Method is one of SpectralMethods; if empty it defaults to tiht.
	Method string
	// Seed selects the target (random2rnn) and the data; if 0 it
	// defaults to 1.
	Seed uint64
	// D, P and States size the random 2-RNN; if 0 they default to 3, 2, 5.
	D, P, States int
	// Epochs caps the training epochs of tiht+sgd and lstm (Adam, lr
	// 0.001, batch 100, early stop after 5 epochs without improvement of
	// the training loss); if 0 it defaults to 100 for those methods. The
	// other methods do not train for epochs: it must be unset.
	Epochs int
	// TestN is the number of test sequences; if 0 it defaults to 1,000.
	TestN int
	// SaveData, if set, is a sequence-data file (.npz or .csv) that
	// receives the run's data: the training sets, then the test set,
	// labelled train and test (see datasets.WriteIOData).
	SaveData string
	// Progress receives a progress line while the model is learned (nil:
	// none).
	Progress io.Writer `json:"-"`
	// SaveModel, if set, receives the learned 2-RNN (see
	// spectral.ModelPaths; the lstm method has none and ignores it).
	SaveModel string
}

// SpectralReport is the result of RunSpectral (the JSON of rtn spectral):
// the run's settings, the MSE on the length-(2L+1) training set and on the
// noiseless test set (mean over examples and outputs), the variance of the
// test targets, whether the zero-function rule applied (and why), the
// iterations per Hankel tensor (IHT/TIHT/nuclear/ALS), the training epochs
// (tiht+sgd, lstm; Rank is then the LSTM's hidden size) and the wall time
// of learning in seconds.
type SpectralReport struct {
	Task          string       `json:"task"`
	Method        string       `json:"method"`
	N             int          `json:"n"`
	Noise         float64      `json:"noise"`
	Rank          int          `json:"rank"`
	Seed          uint64       `json:"seed"`
	TrainMSE      report.Float `json:"train_mse"`
	TestMSE       report.Float `json:"test_mse"`
	TestOutputVar report.Float `json:"test_output_var"`
	ZeroFallback  bool         `json:"zero_fallback"`
	Reason        string       `json:"reason,omitempty"`
	Iterations    [3]int       `json:"iterations"`
	Epochs        int          `json:"epochs,omitempty"`
	Seconds       float64      `json:"seconds"`
	// Data, Basis, NValid, NTest and ValidMSE are set by RunSpectralData.
	Data     string       `json:"data,omitempty"`
	Basis    string       `json:"basis,omitempty"`
	NValid   int          `json:"n_valid,omitempty"`
	NTest    int          `json:"n_test,omitempty"`
	ValidMSE report.Float `json:"valid_mse,omitempty"`
}

// spectralProblem draws the target of spec from its seed (stream 1).
func spectralProblem(spec SpectralSpec) (spectral.TwoRNNProblem, error) {
	switch spec.Task {
	case "random2rnn":
		cfg := spectral.RandomTwoRNNConfig{States: spec.States, In: spec.D, Out: spec.P}
		return spectral.RandomTwoRNNProblem(cfg, rand.New(rand.NewPCG(spec.Seed, 1)))
	case "addition":
		return spectral.AdditionProblem(), nil
	}
	return spectral.TwoRNNProblem{}, errors.Errorf("runs: unknown spectral task %q (want random2rnn or addition)", spec.Task)
}

// RunSpectral runs one spectral experiment. The data come from stream
// (Seed, 2 + N) so that runs with different N are independent.
func RunSpectral(spec SpectralSpec) (*SpectralReport, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := checkEstimate(spec.EstimateMemory()); err != nil {
		return nil, err
	}
	if err := spec.CheckOutputs(); err != nil {
		return nil, err
	}
	lock, err := lockModel(spec.SaveModel, spec.SaveData)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	prob, err := spectralProblem(spec)
	if err != nil {
		return nil, err
	}
	if spec.Rank == 0 {
		spec.Rank = prob.Target.States
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 2+uint64(spec.N)))
	sp, err := prob.Splits(spectral.TwoRNNSplitConfig{N: spec.N, L: spec.L, Noise: spec.Noise, TestN: spec.TestN}, rng)
	if err != nil {
		return nil, err
	}
	if spec.SaveData != "" {
		if err := saveSplits(spec.SaveData, sp); err != nil {
			return nil, err
		}
	}
	defer startPhase(spec.Progress, "spectral: learning with "+spec.Method)()
	start := time.Now()
	var res spectral.Result
	epochs := 0
	switch spec.Method {
	case "lstm":
		return runLSTM(spec, sp, start)
	case "tt-tiht":
		res, err = spectral.LearnTTTIHT(sp.Train, spec.Rank, spectral.TTTIHTConfig{}, rng)
	case "tt-als":
		// Bootstrap (prefix/suffix cores from the shorter tensor) needs
		// prefix and suffix spaces of full rank: d >= R and d p >= R.
		d, p := prob.Target.In, prob.Target.Out
		boot := d >= spec.Rank && d*p >= spec.Rank
		res, err = spectral.LearnTT(sp.Train, spec.Rank, spectral.ALSConfig{Batch: 4000, Bootstrap: boot}, rng)
	default:
		cfg := spectral.Config{Rank: spec.Rank, NuclearHoldout: spec.Noise > 0}
		switch spec.Method {
		case "ls":
			cfg.Method = spectral.MethodLS
		case "nuclear":
			cfg.Method = spectral.MethodNuclear
		case "iht":
			cfg.Method = spectral.MethodIHT
		default:
			cfg.Method = spectral.MethodTIHT
		}
		res, err = spectral.Learn(sp.Train, cfg)
	}
	if err != nil {
		return nil, err
	}
	if spec.Method == "tiht+sgd" {
		judge := func(m spectral.RNN) (float64, error) { return m.MSE(sp.Train[2]) }
		res, epochs, err = fineTune(res, sp.Train[:], judge, spec.Epochs, spec.Seed)
		if err != nil {
			return nil, err
		}
	}
	test, err := res.Model.MSE(sp.Test)
	if err != nil {
		return nil, err
	}
	if spec.SaveModel != "" {
		info := spectral.ModelInfo{Method: spec.Method, Data: spec.Task, Seed: spec.Seed, TrainMSE: res.TrainMSE, ZeroFallback: res.ZeroFallback}
		if err := saveModel(spec.SaveModel, res.Model, info); err != nil {
			return nil, err
		}
	}
	return &SpectralReport{
		Task: spec.Task, Method: spec.Method, N: spec.N, Noise: spec.Noise, Rank: spec.Rank, Seed: spec.Seed,
		TrainMSE: report.Float(res.TrainMSE), TestMSE: report.Float(test), TestOutputVar: report.Float(sp.Test.OutputVar()),
		ZeroFallback: res.ZeroFallback, Reason: res.Reason, Iterations: res.Iterations, Epochs: epochs,
		Seconds: time.Since(start).Seconds(),
	}, nil
}

// fineTune is the fine-tuning step of the tiht+sgd method: the linear
// 2-RNN of res trained on the training sets (ascending lengths) by
// TuneRNN with SpectralTuneSpec's defaults (Adam at 0.001, the
// paper's setting, batch 100, the rate divided by 10 after 5 epochs
// without a lower training loss and training ended at the third such
// plateau: without the drops, Adam's steps at 0.001 are coarser than the
// spectral estimate's error at large N and the fine-tuning never improves
// on it), for epochs with seed. It keeps the result only if its training
// MSE (by judge) is not above the spectral estimate's, and the estimate
// when training diverges.
func fineTune(res spectral.Result, train []datasets.TwoRNNData, judge func(spectral.RNN) (float64, error), epochs int, seed uint64) (spectral.Result, int, error) {
	if res.ZeroFallback {
		return res, 0, nil // the zero 2-RNN has zero gradients
	}
	data, err := datasets.IODataFrom(train, nil)
	if err != nil {
		return res, 0, err
	}
	tuned, out, err := TuneRNN(res.Model, data, datasets.IOData{}, SpectralTuneSpec{Epochs: epochs, Seed: seed})
	if optim.IsDiverged(err) {
		return res, 0, nil // keep the spectral estimate
	}
	if err != nil {
		return res, 0, err
	}
	mse, err := judge(tuned)
	if err != nil {
		return res, 0, err
	}
	if mse <= res.TrainMSE {
		res.Model, res.TrainMSE = tuned, mse
	}
	return res, out.Epochs, nil
}

// runLSTM trains the LSTM baseline on all training lengths with Adam
// (lr 0.001, batch 100, early stopping on the training loss) and reports
// it like a spectral run (no zero-function rule: the paper applies it to
// the recovery methods).
func runLSTM(spec SpectralSpec, sp spectral.TwoRNNSplits, start time.Time) (*SpectralReport, error) {
	const hidden = 20
	in, out := sp.Train[0].In, sp.Train[0].Out
	net, err := baseline.NewLSTMRegressor(in, out, hidden, rand.New(rand.NewPCG(spec.Seed, 3)))
	if err != nil {
		return nil, err
	}
	reg, err := twornn.NewRegression(net, sp.Train[:])
	if err != nil {
		return nil, err
	}
	opt, err := optim.New("adam", optim.Config{LR: 0.001})
	if err != nil {
		return nil, err
	}
	tr, err := optim.NewTrainer(reg, opt, optim.TrainConfig{Epochs: spec.Epochs, BatchSize: 100, Seed: spec.Seed, Patience: 5, MaxDrops: 1})
	if err != nil {
		return nil, err
	}
	res, err := tr.Run()
	if err != nil {
		return nil, err
	}
	trainMSE, err := twornn.MSE(net, sp.Train[2])
	if err != nil {
		return nil, err
	}
	test, err := twornn.MSE(net, sp.Test)
	if err != nil {
		return nil, err
	}
	return &SpectralReport{
		Task: spec.Task, Method: spec.Method, N: spec.N, Noise: spec.Noise, Rank: hidden, Seed: spec.Seed,
		TrainMSE: report.Float(trainMSE), TestMSE: report.Float(test), TestOutputVar: report.Float(sp.Test.OutputVar()),
		Epochs: res.Epochs, Seconds: time.Since(start).Seconds(),
	}, nil
}

// checkModelOut checks, before any work, the output of a learned model
// (field its label): a directory (DIR/model.npz and DIR/model.json) or a
// .npz file (and the .json beside it, see spectral.ModelPaths), where
// neither file is one of the inputs. Another extension is refused unless
// it names an existing directory.
func checkModelOut(field, out string, inputs ...string) error {
	if out == "" {
		return nil
	}
	if out == "-" {
		return pathUsage("%s -: this output is a directory or a .npz file, name one", field)
	}
	np, js := spectral.ModelPaths(out)
	if st, err := os.Stat(out); np != out && filepath.Ext(out) != "" && (err != nil || !st.IsDir()) {
		return pathUsage("%s must be a directory or a .npz file (the model, with its .json beside it), got %q", field, out)
	}
	for _, f := range []string{np, js} {
		if err := CheckOutput(field, f, inputs...); err != nil {
			return err
		}
	}
	return nil
}

// CheckOutputs checks the outputs of the run before any work (RunSpectral
// calls it): the model file or directory SaveModel, the data file
// SaveData, and that one is not the other. It reads the file system and
// creates nothing; the error is a *PathError.
func (s SpectralSpec) CheckOutputs() error {
	if err := firstErr(checkModelOut("{SaveModel}", s.SaveModel), CheckOutFile("{SaveData}", s.SaveData)); err != nil {
		return err
	}
	if np, _ := spectral.ModelPaths(s.SaveModel); s.SaveModel != "" && SameFile(s.SaveData, np) {
		return pathUsage("{SaveData} %s is also the model file of {SaveModel}: one would overwrite the other", s.SaveData)
	}
	return nil
}
