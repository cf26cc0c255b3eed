package runs

import (
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/pcnn"
	"github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
)

// initRand is the generator of a run's initial parameters.
func initRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x696e6974)) }

// sequenceFactory returns the factory of a cell's sequence model and sets
// spec.Executor from a problem built here, whose warnings go to spec.Log:
// the runs' problems, on the same executor, keep theirs quiet.
func sequenceFactory(spec *CompareSpec) (compare.Factory, error) {
	task, err := compareTask(spec.Task, spec.DataFile, spec.DataSeed)
	if err != nil {
		return nil, err
	}
	if !math.IsNaN(task.OptimalLoss) {
		spec.References = append(spec.References, compare.Reference{Kind: compare.Optimum, Label: "optimum", Loss: task.OptimalLoss})
	}
	if task.Kind == datasets.Categorical {
		spec.References = append(spec.References, compare.Reference{Kind: compare.Trivial, Label: "uniform", Loss: math.Log(float64(task.Out))})
	}
	mcfg, chunk := modelConfig(spec.Model, spec.cellConfig(), spec.Layers, task), spec.Chunk
	mcfg.Embed, mcfg.Dropout, mcfg.DType = spec.Embed, spec.Dropout, spec.DType
	if spec.Embed > 0 && mcfg.Input != layers.InputNextSymbol {
		return nil, errors.Errorf("an embedding reads symbols: task %q is not a next-symbol task", task.Name)
	}
	probe, err := layers.NewModel(mcfg, initRand(spec.DataSeed))
	if err != nil {
		return nil, err
	}
	data, err := probe.Inputs(task) // the task as the model reads it, made once and shared by the runs
	if err != nil {
		return nil, err
	}
	build := func(seed uint64, log io.Writer) (*layers.Problem, error) {
		m, err := layers.NewModel(mcfg, initRand(seed))
		if err != nil {
			return nil, err
		}
		return layers.NewProblem(m.Seq, data, layers.ProblemConfig{Chunk: chunk, DType: mcfg.DType, Log: log})
	}
	p, err := build(spec.DataSeed, spec.Log)
	if err != nil {
		return nil, err
	}
	spec.Executor = compare.Executor(p.Executor())
	return func(seed uint64) (optim.Problem, error) { return build(seed, io.Discard) }, nil
}

// comparePianoSets are the cell tasks read from the polyphonic data
// directory (datasets.PianoDataSets).
var comparePianoSets = []string{"jsb", "nottingham", "muse", "piano"}

// compareTask is LoadTask's task, or a piano-roll set of the polyphonic
// data directory (the next-frame task of the pre-training paper, with the
// set's own split).
func compareTask(name, dataFile string, seed uint64) (*datasets.Task, error) {
	if dataFile != "" || !slices.Contains(comparePianoSets, name) {
		t, err := LoadTask(name, dataFile, seed)
		if err != nil && dataFile == "" {
			return nil, compareErr("Task", "%v (or a piano-roll set: %s)", err, strings.Join(comparePianoSets, ", "))
		}
		return t, err
	}
	dir := datasets.PolyphonicDir()
	if dir == "" {
		return nil, errors.Errorf("task %s: no polyphonic data directory (set RTN_POLYPHONIC_DIR)", name)
	}
	p, err := datasets.LoadPiano(dir, name)
	if err != nil {
		return nil, err
	}
	return p.Task(name)
}

// twoRNNProblem is the 2-RNN regression with a validation set (the
// length-(2L+1) examples of a second, independent draw of the training
// sets) and the noiseless length-6 test set; losses are MSE.
type twoRNNProblem struct {
	*twornn.Regression
	m           *twornn.Model
	valid, test datasets.TwoRNNData
}

// ValidationLoss implements optim.Validator.
func (p *twoRNNProblem) ValidationLoss() (float64, error) { return p.m.MSE(p.valid) }

// TestLoss implements compare.Tester.
func (p *twoRNNProblem) TestLoss() (float64, error) { return p.m.MSE(p.test) }

func twoRNNFactory(spec *CompareSpec) (compare.Factory, error) {
	if spec.Size == 0 {
		spec.Size = 640
	}
	target, err := spectralProblem(SpectralSpec{Task: spec.Task, Seed: spec.DataSeed})
	if err != nil {
		return nil, err
	}
	if spec.Hidden == 0 {
		spec.Hidden = target.Target.States
	}
	rng := rand.New(rand.NewPCG(spec.DataSeed, 2))
	cfg := spectral.TwoRNNSplitConfig{N: spec.Size, Noise: spec.Noise}
	sp, err := target.Splits(cfg, rng)
	if err != nil {
		return nil, err
	}
	vs, err := target.Splits(cfg, rng)
	if err != nil {
		return nil, err
	}
	in, out := sp.Train[0].In, sp.Train[0].Out
	if err := twoRNNReferences(spec, target.Target, vs.Train[2]); err != nil {
		return nil, err
	}
	var start *spectral.RNN
	if spec.Model == "2rnn-spectral" {
		res, err := spectral.Learn(sp.Train, spectral.Config{Rank: spec.Hidden, Method: spectral.MethodTIHT, NuclearHoldout: spec.Noise > 0})
		if err != nil {
			return nil, err
		}
		start = &res.Model
	}
	return func(seed uint64) (optim.Problem, error) {
		m, err := twornn.NewModel("tworn", in, spec.Hidden, out, activation.Identity)
		if err != nil {
			return nil, err
		}
		if start != nil {
			err = m.SetFromRNN(*start)
		} else {
			err = m.Init(initRand(seed))
		}
		if err != nil {
			return nil, err
		}
		reg, err := twornn.NewRegression(m, sp.Train[:])
		if err != nil {
			return nil, err
		}
		return &twoRNNProblem{Regression: reg, m: m, valid: vs.Train[2], test: sp.Test}, nil
	}, nil
}

// twoRNNReferences sets the references of the 2-RNN regression: the
// target 2-RNN's validation MSE (the optimum) and the zero output's.
func twoRNNReferences(spec *CompareSpec, target spectral.RNN, valid datasets.TwoRNNData) error {
	m, err := twornn.NewModel("ref", target.In, target.States, target.Out, activation.Identity)
	if err != nil {
		return err
	}
	zero, err := m.MSE(valid)
	if err != nil {
		return err
	}
	if err := m.SetFromRNN(target); err != nil {
		return err
	}
	opt, err := m.MSE(valid)
	if err != nil {
		return err
	}
	spec.References = append(spec.References, compare.Reference{Kind: compare.Optimum, Label: "target 2-RNN", Loss: opt},
		compare.Reference{Kind: compare.Trivial, Label: "zero output", Loss: zero})
	return nil
}

// umpsFactory returns the u-MPS problems of a data set or, with
// spec.DataFile, of a string file in the format spec.Task: Size training
// strings and Size/5 validation strings drawn from it.
func umpsFactory(spec *CompareSpec) (compare.Factory, error) {
	size := spec.Size
	if size == 0 {
		size = 500
	}
	rng := rand.New(rand.NewPCG(spec.DataSeed, 0x756d7073))
	var (
		train, valid [][]int
		alphabet     []string
		err          error
	)
	if spec.DataFile != "" {
		train, valid, alphabet, err = umpsFileData(spec.DataFile, spec.Task, size, rng)
	} else {
		train, valid, alphabet, err = UMPSData(spec.Task, size, max(size/5, 1), rng)
	}
	if err != nil {
		return nil, err
	}
	return func(seed uint64) (optim.Problem, error) {
		p, err := umps.NewParams(spec.Hidden, len(alphabet), umps.RandomNormal, initRand(seed))
		if err != nil {
			return nil, err
		}
		return umps.NewProblem(p, train, valid, umps.PerLength)
	}, nil
}

func pcnnFactory(spec *CompareSpec) (compare.Factory, error) {
	size := spec.Size
	if size == 0 {
		size = 100
	}
	train, valid, err := PCNNStreams(spec.Task, size, spec.DataSeed)
	if err != nil {
		return nil, err
	}
	if n := pcnnPredicted(valid); n > 0 {
		spec.References = append(spec.References,
			compare.Reference{Kind: compare.Optimum, Label: "true process", Loss: -valid.LogLik / float64(n)},
			compare.Reference{Kind: compare.Trivial, Label: "uniform", Loss: math.Log(float64(len(valid.Alphabet)))})
	}
	ps := PCNNSpec{Model: "pcnn", Activation: "tanh", Units: spec.Hidden}
	method := pcnn.Method{Writing: pcnn.QDH, Transition: pcnn.RBPM}
	if spec.Model == "pcnn-rnn" {
		ps.Model, method.Transition = "rnn", pcnn.QDRBPM
	} else if spec.Model == "pcnn-cnn" {
		ps.Model = "cnn"
	}
	return func(seed uint64) (optim.Problem, error) {
		m, err := NewPCNNModel(ps, train, len(train.Alphabet), initRand(seed))
		if err != nil {
			return nil, err
		}
		p, err := pcnn.NewProblem(m, train, method)
		if err != nil {
			return nil, err
		}
		return p.WithValidation(valid)
	}, nil
}

// wfaFactory learns the spectral WFA of spec.DataFile once (wfa.Fit, every
// default but the rank when spec.Hidden is set) and returns problems that
// fine-tune it: wfa.Likelihood on wfa.FinetuneSplit's split of the
// strings, drawn from DataSeed, the same for every run.
func wfaFactory(spec CompareSpec) (compare.Factory, error) {
	if spec.DataFile == "" {
		return nil, errors.New("model wfa needs a string file (-data)")
	}
	format, err := datasets.ParseStringFormat(spec.Task)
	if err != nil {
		return nil, err
	}
	s, err := datasets.ReadStringsFile(spec.DataFile, format, nil)
	if err != nil {
		return nil, err
	}
	if spec.Size > 0 && spec.Size < len(s.Seqs) {
		s.Seqs = s.Seqs[:spec.Size]
	}
	train, valid, err := wfa.FinetuneSplit(s.Seqs, wfa.FinetuneValidFraction, spec.DataSeed)
	if err != nil {
		return nil, errors.Wrap(err, spec.DataFile)
	}
	cfg := wfa.Config{Seed: spec.DataSeed}
	if spec.Hidden > 0 {
		cfg.Spec = wfa.Spec{Variant: spectral.Classic, Rank: spec.Hidden}
	}
	m, _, err := wfa.Fit(s, cfg)
	if err != nil {
		return nil, err
	}
	return func(uint64) (optim.Problem, error) {
		return wfa.NewLikelihood(m.WFA, train, valid)
	}, nil
}

// umpsFileData reads a string file in format and draws size training
// strings and size/5 validation strings from it (an 80/20 split of a
// smaller file).
func umpsFileData(path, format string, size int, rng *rand.Rand) (train, valid [][]int, alphabet []string, err error) {
	f, err := datasets.ParseStringFormat(format)
	if err != nil {
		return nil, nil, nil, err
	}
	seqs, alphabet, err := ReadUMPSStrings(path, f, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	perm := rng.Perm(len(seqs))
	nt, nv := size, max(size/5, 1)
	if nt+nv > len(seqs) {
		nv = len(seqs) / 5
		nt = len(seqs) - nv
	}
	if nt < 1 || nv < 1 {
		return nil, nil, nil, errors.Errorf("%s: %d strings, too few for training and validation", path, len(seqs))
	}
	for i, k := range perm[:nt+nv] {
		if i < nt {
			train = append(train, seqs[k])
		} else {
			valid = append(valid, seqs[k])
		}
	}
	return train, valid, alphabet, nil
}

// pcnnPredicted is the number of predicted symbols of a stream.
func pcnnPredicted(s datasets.Stream) int {
	n := 0
	for t := range s.X {
		if s.Mask == nil || s.Mask[t] {
			n++
		}
	}
	return n
}
