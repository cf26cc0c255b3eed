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
	"github.com/rtnlab/rtn/spectral"
)

// SpectralDataMethods lists the methods RunSpectralData knows.
var SpectralDataMethods = []string{"ls", "nuclear", "iht", "tiht", "tiht+sgd"}

// SpectralDataSpec describes a spectral run on a sequence-data file.
type SpectralDataSpec struct {
	// Data is the .npz or .csv sequence-data file (datasets.ReadIOData).
	Data string
	// Method is one of SpectralDataMethods; if empty it defaults to tiht.
	Method string
	// Rank is the number of states. If 0, it is chosen on the validation
	// part when there is one (spectral.FitSelect over ranks 1 to
	// MaxRank), otherwise by the singular-value gap (spectral.FitConfig).
	Rank int
	// MaxRank bounds the ranks tried on validation data; if 0 it
	// defaults to 10.
	MaxRank int
	// Seed selects the split (when the file has none) and the
	// fine-tuning batches; if 0 it defaults to 1.
	Seed uint64
	// ValidFrac and TestFrac are the held-out fractions of a file with
	// no split of its own; if 0 they default to 0.1 each, Off holds out
	// none.
	ValidFrac, TestFrac float64
	// Epochs caps the fine-tuning of tiht+sgd; if 0 it defaults to 100.
	// The other methods do not train for epochs: it must be unset.
	Epochs int
	// SaveModel, if set, receives the learned model (spectral.ModelPaths).
	SaveModel string
	// Progress receives a progress line for the fit and the fine-tuning
	// (nil: none).
	Progress io.Writer `json:"-"`
}

// spectralSplit is the data of a run: training sequences, validation and
// test sets (possibly empty).
type spectralSplit struct {
	train, valid, test datasets.IOData
}

// splitSpectralData reads path and splits it: by the file's own labels,
// or at random from stream (seed, 3) of PCG.
func splitSpectralData(path string, validFrac, testFrac float64, seed uint64, given []string) (spectralSplit, error) {
	all, err := datasets.ReadIOData(path)
	if err != nil {
		return spectralSplit{}, err
	}
	if all.Split != nil && len(given) > 0 {
		return spectralSplit{}, &FieldError{Field: strings.Join(given, ", "),
			Want: fmt.Sprintf("unset with %s: the file has a split of its own (its split column or array)", path)}
	}
	tr, va, te, err := all.SplitParts(validFrac, testFrac, rand.New(rand.NewPCG(seed, 3)))
	return spectralSplit{tr, va, te}, err
}

// RunSpectralData learns a linear 2-RNN from a sequence-data file with
// spectral.Fit (the paper's recipe when the training lengths are L, 2L,
// 2L+1, a basis chosen from the data otherwise) and reports it like
// RunSpectral, with Task "data". On the file a built-in run writes with
// SpectralSpec.SaveData, with the same method, rank and seed, the
// training and test MSE are those of the built-in run, bit for bit
// (nuclear only for noisy data: here the penalty is always chosen on a
// holdout, the noise level being unknown).
func RunSpectralData(spec SpectralDataSpec) (*SpectralReport, error) {
	given := givenFracs(spec.ValidFrac, spec.TestFrac)
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := checkModelOut("{SaveModel}", spec.SaveModel, spec.Data); err != nil {
		return nil, err
	}
	lock, err := lockModel(spec.SaveModel, "")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	sp, err := splitSpectralData(spec.Data, spec.ValidFrac, spec.TestFrac, spec.Seed, given)
	if err != nil {
		return nil, err
	}
	cfg := spectral.FitConfig{Config: spectral.Config{Method: dataMethod(spec.Method), Rank: spec.Rank, NuclearHoldout: true}}
	start := time.Now()
	var res spectral.FitResult
	stop := startPhase(spec.Progress, fmt.Sprintf("spectral -data: fitting %s", spec.Method))
	if spec.Rank == 0 && sp.valid.N() > 0 {
		res, _, err = spectral.FitSelect(sp.train, sp.valid, cfg, spec.MaxRank)
	} else {
		res, err = spectral.Fit(sp.train, cfg)
	}
	stop()
	var re *spectral.RankError
	if errors.As(err, &re) {
		return nil, fieldErr("Rank", re.Rank, "at most %d, the rank the Hankel matrix of the data allows with %v", re.Max, re.Basis)
	}
	if err != nil {
		return nil, err
	}
	epochs := 0
	if spec.Method == "tiht+sgd" {
		groups := sp.train.ByLength()
		judge := func(m spectral.RNN) (float64, error) { return m.MSEIO(sp.train) }
		if res.Recipe {
			judge = func(m spectral.RNN) (float64, error) { return m.MSE(groups[2]) }
		}
		stop := startPhase(spec.Progress, "spectral -data: fine-tuning")
		res.Result, epochs, err = fineTune(res.Result, groups, judge, spec.Epochs, spec.Seed)
		stop()
		if err != nil {
			return nil, err
		}
	}
	rep := &SpectralReport{
		Task: "data", Method: spec.Method, N: sp.train.N(), Rank: res.Model.States, Seed: spec.Seed,
		TrainMSE: report.Float(res.TrainMSE), TestMSE: report.Float(math.NaN()), TestOutputVar: report.Float(math.NaN()), ValidMSE: report.Float(math.NaN()),
		ZeroFallback: res.ZeroFallback, Reason: res.Reason, Iterations: res.Iterations, Epochs: epochs,
		Data: spec.Data, Basis: res.Basis.String(), NValid: sp.valid.N(), NTest: sp.test.N(),
	}
	rep.Seconds = time.Since(start).Seconds()
	_, rep.ValidMSE, rep.TestMSE = splitMSEs(res.Model, spectralSplit{valid: sp.valid, test: sp.test})
	if sp.test.N() > 0 {
		rep.TestOutputVar = report.Float(sp.test.OutputVar())
	}
	if spec.SaveModel != "" {
		info := spectral.ModelInfo{Method: spec.Method, Basis: rep.Basis, Data: spec.Data, Seed: spec.Seed, TrainMSE: res.TrainMSE, ZeroFallback: res.ZeroFallback}
		if err := saveModel(spec.SaveModel, res.Model, info); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// dataMethod is the recovery method of a SpectralDataMethods name
// (tiht for tiht and tiht+sgd).
func dataMethod(name string) spectral.Method {
	if m, err := spectral.ParseMethod(name); err == nil {
		return m
	}
	return spectral.MethodTIHT
}

// saveSplits writes the training sets and the test set of a built-in
// run to a sequence-data file, labelled train and test.
func saveSplits(path string, sp spectral.TwoRNNSplits) error {
	sets := append(sp.Train[:], sp.Test)
	parts := []datasets.Part{datasets.PartTrain, datasets.PartTrain, datasets.PartTrain, datasets.PartTest}
	all, err := datasets.IODataFrom(sets, parts)
	if err != nil {
		return err
	}
	return datasets.WriteIOData(path, all)
}

// saveModel writes m under path (spectral.ModelPaths), creating the
// directory when path names one.
func saveModel(path string, m spectral.RNN, info spectral.ModelInfo) error {
	np, js := spectral.ModelPaths(path)
	if err := os.MkdirAll(filepath.Dir(np), 0o755); err != nil {
		return errors.Wrap(err, "runs: saving the model")
	}
	return spectral.SaveModel(np, js, m, info)
}

// givenFracs names the held-out fractions set (not zero) before
// WithDefaults: a file with a split of its own refuses them.
func givenFracs(valid, test float64) []string {
	var given []string
	if valid != 0 {
		given = append(given, "ValidFrac")
	}
	if test != 0 {
		given = append(given, "TestFrac")
	}
	return given
}
