package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/runs"
	"github.com/rtnlab/rtn/spectral"
)

// taskFlags are the flags of the built-in tasks, meaningless with -data.
var taskFlags = []string{"task", "n", "noise", "L", "d", "p", "states", "save-data", "sweep"}

// runSpectralData is rtn spectral -data FILE.
func runSpectralData(ds runs.SpectralDataSpec, set map[string]bool, asJSON bool, stdout io.Writer) error {
	var bad []string
	for _, f := range taskFlags {
		if set[f] {
			bad = append(bad, "-"+f)
		}
	}
	switch {
	case len(bad) > 0:
		return usagef("%s cannot be used with -data (the data file replaces the built-in task)", strings.Join(bad, ", "))
	case !contains(runs.SpectralDataMethods, ds.Method):
		return usagef("-method must be one of %s with -data, got %q", strings.Join(runs.SpectralDataMethods, ", "), ds.Method)
	case ds.Rank < 0:
		return usagef("-rank must be >= 1 (or 0 to choose it from the data), got %d", ds.Rank)
	case ds.Seed == 0:
		return usagef("-seed must be >= 1")
	case ds.Epochs < 1:
		return usagef("-epochs must be >= 1, got %d", ds.Epochs)
	}
	if err := checkFracs(ds.ValidFrac, ds.TestFrac); err != nil {
		return err
	}
	rep, err := runs.RunSpectralData(ds)
	if err != nil {
		return rankUsage(err)
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "data\t%s (%d train, %d valid, %d test sequences)\n", rep.Data, rep.N, rep.NValid, rep.NTest)
	fmt.Fprintf(tw, "method\t%s, rank %d, %s\n", rep.Method, rep.Rank, rep.Basis)
	fmt.Fprintf(tw, "train MSE\t%.6g\n", float64(rep.TrainMSE))
	fmt.Fprintf(tw, "valid MSE\t%.6g\n", float64(rep.ValidMSE))
	fmt.Fprintf(tw, "test MSE\t%.6g\n", float64(rep.TestMSE))
	fmt.Fprintf(tw, "test output variance\t%.6g\n", float64(rep.TestOutputVar))
	if rep.ZeroFallback {
		fmt.Fprintf(tw, "zero fallback\tyes: %s\n", rep.Reason)
	}
	fmt.Fprintf(tw, "seconds\t%.2f\n", rep.Seconds)
	return tw.Flush()
}

// rankUsage turns a rank larger than the data's Hankel matrices allow
// into a usage error naming -rank.
func rankUsage(err error) error {
	var re *spectral.RankError
	if errors.As(err, &re) {
		return usagef("-rank %d is larger than the Hankel matrix of the data allows (at most %d, with %v)", re.Rank, re.Max, re.Basis)
	}
	return err
}

func checkFracs(valid, test float64) error {
	switch {
	case !(valid >= 0 && valid < 1):
		return usagef("-valid-frac must be in [0, 1), got %g", valid)
	case !(test >= 0 && test < 1):
		return usagef("-test-frac must be in [0, 1), got %g", test)
	case valid+test >= 1:
		return usagef("-valid-frac + -test-frac must be below 1, got %g", valid+test)
	}
	return nil
}

// runSpectralPredict is rtn spectral predict.
func runSpectralPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("spectral predict")
	model := fs.String("model", "", "model file written by rtn spectral -out (.npz)")
	data := fs.String("data", "", "sequence-data file (.npz or .csv)")
	out := fs.String("out", "", "write the data with y replaced by the predictions to this .npz or .csv file")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *model == "" || *data == "" {
		return usagef("spectral predict needs -model and -data")
	}
	if err := checkOutPath("-out", *out); err != nil {
		return err
	}
	m, _, err := spectral.LoadModel(*model)
	if err != nil {
		return err
	}
	s, err := datasets.ReadIOData(*data)
	if err != nil {
		return err
	}
	if s.In != m.In || s.Out != m.Out {
		return fmt.Errorf("%s has d = %d, p = %d but the model %s has d = %d, p = %d", *data, s.In, s.Out, *model, m.In, m.Out)
	}
	pred, err := m.PredictIO(s)
	if err != nil {
		return err
	}
	ss := 0.0
	for i, v := range pred {
		ss += (v - s.Y[i]) * (v - s.Y[i])
	}
	mse := ss / float64(len(pred))
	if *out != "" {
		s.Y = pred
		if err := datasets.WriteIOData(*out, s); err != nil {
			return err
		}
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"model": *model, "data": *data, "n": s.N(), "mse": jsonNum(mse), "out": *out})
	}
	fmt.Fprintf(stdout, "%d sequences, MSE %.6g against the file's y\n", s.N(), mse)
	return nil
}

// jsonNum is v, or nil (null) when v is not finite.
func jsonNum(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// runSpectralFinetune is rtn spectral finetune.
func runSpectralFinetune(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("spectral finetune")
	var spec runs.SpectralTuneSpec
	fs.StringVar(&spec.Model, "model", "", "model file written by rtn spectral -out (.npz)")
	fs.StringVar(&spec.Data, "data", "", "sequence-data file (.npz or .csv)")
	optimizerFlags(fs, &spec.Optimizer, &spec.Optim, &spec.Schedule)
	fs.IntVar(&spec.Epochs, "epochs", 100, "total epochs (a resumed run continues up to it)")
	fs.IntVar(&spec.Batch, "batch", 100, "minibatch size")
	fs.IntVar(&spec.Patience, "patience", 5, "epochs without a better validation MSE before the learning rate drops by 10 (the third drop stops; 0: off)")
	seed := fs.Uint64("seed", 1, "random seed (split of a file without one, batches)")
	fs.Float64Var(&spec.ValidFrac, "valid-frac", 0.1, "validation fraction of a file with no split of its own")
	fs.Float64Var(&spec.TestFrac, "test-frac", 0.1, "test fraction of a file with no split of its own")
	fs.StringVar(&spec.Out, "out", "", "output directory (checkpoint.npz, metrics.jsonl, model.npz, model.json)")
	fs.StringVar(&spec.Resume, "resume", "", "directory with a checkpoint.npz to continue from")
	quiet := fs.Bool("quiet", false, "no progress bar")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	spec.Seed = *seed
	if err := checkTuneFlags(spec); err != nil {
		return err
	}
	if err := checkOutDir("-out", spec.Out); err != nil {
		return err
	}
	if !*quiet && isTerminal(stderr) {
		spec.Progress = stderr
	}
	rep, err := runs.TuneSpectral(spec)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "model\t%s (%d states), tuned with %s\n", rep.Model, rep.States, rep.Optimizer)
	fmt.Fprintf(tw, "data\t%s (%d train, %d valid, %d test sequences)\n", rep.Data, rep.NTrain, rep.NValid, rep.NTest)
	fmt.Fprintf(tw, "epochs\t%d (best %d)\n", rep.Epochs, rep.BestEpoch)
	fmt.Fprintf(tw, "\tbefore\tafter\n")
	fmt.Fprintf(tw, "train MSE\t%.6g\t%.6g\n", float64(rep.InitialTrainMSE), float64(rep.TrainMSE))
	fmt.Fprintf(tw, "valid MSE\t%.6g\t%.6g\n", float64(rep.InitialValidMSE), float64(rep.ValidMSE))
	fmt.Fprintf(tw, "test MSE\t%.6g\t%.6g\n", float64(rep.InitialTestMSE), float64(rep.TestMSE))
	return tw.Flush()
}

func checkTuneFlags(s runs.SpectralTuneSpec) error {
	if err := checkOptimizerFlags(s.Optimizer, s.Optim); err != nil {
		return err
	}
	switch {
	case s.Model == "" || s.Data == "":
		return usagef("spectral finetune needs -model and -data")
	case s.Epochs < 1:
		return usagef("-epochs must be >= 1, got %d", s.Epochs)
	case s.Batch < 1:
		return usagef("-batch must be >= 1, got %d", s.Batch)
	case s.Patience < 0:
		return usagef("-patience must be >= 0, got %d", s.Patience)
	case s.Seed == 0:
		return usagef("-seed must be >= 1")
	}
	if !contains(optim.Names(), s.Optimizer) {
		names := optim.Names()
		sort.Strings(names)
		return usagef("-optimizer: unknown optimizer %q (known: %s)", s.Optimizer, joinNames(names))
	}
	if _, err := optim.New(s.Optimizer, s.Optim); err != nil {
		return usagef("%v", err)
	}
	if s.Schedule != "" {
		if _, err := optim.ParseSchedule(s.Schedule); err != nil {
			return usagef("-schedule: %v", err)
		}
	}
	return checkFracs(s.ValidFrac, s.TestFrac)
}
