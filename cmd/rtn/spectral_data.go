package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/rtnlab/rtn/runs"
)

// runSpectralData is rtn spectral -data FILE.
func runSpectralData(ds runs.SpectralDataSpec, asJSON bool, stdout io.Writer) error {
	if err := ds.WithDefaults().Validate(); err != nil {
		return specError(err)
	}
	rep, err := runs.RunSpectralData(ds)
	if err != nil {
		return specError(err)
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(spectralDataJSON{rep, rep.Data, rep.Basis, rep.NValid, rep.NTest, jsonNum(float64(rep.ValidMSE))})
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

// spectralDataJSON is the JSON of rtn spectral -data: the report with
// the fields of a run on data always present, n_valid and n_test even
// when they are 0.
type spectralDataJSON struct {
	*runs.SpectralReport
	Data     string `json:"data"`
	Basis    string `json:"basis"`
	NValid   int    `json:"n_valid"`
	NTest    int    `json:"n_test"`
	ValidMSE any    `json:"valid_mse"`
}

// runSpectralPredict is rtn spectral predict.
func runSpectralPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("spectral predict")
	var spec runs.SpectralPredictSpec
	fs.StringVar(&spec.Model, "model", "", "model file written by rtn spectral -out (.npz)")
	fs.StringVar(&spec.Data, "data", "", "sequence-data file (.npz or .csv)")
	fs.StringVar(&spec.Out, "out", "", "write the data with y replaced by the predictions to this .npz or .csv file")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	rep, err := runs.PredictSpectral(spec)
	if err != nil {
		return specError(err)
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"model": spec.Model, "data": spec.Data, "n": rep.N, "mse": jsonNum(rep.MSE), "out": spec.Out})
	}
	fmt.Fprintf(stdout, "%d sequences, MSE %.6g against the file's y\n", rep.N, rep.MSE)
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
	d := runs.SpectralTuneSpec{}.WithDefaults()
	optimizerFlags(fs, &spec.Optimizer, &spec.Optim, &spec.Schedule, d.Optimizer)
	fs.IntVar(&spec.Epochs, "epochs", d.Epochs, "total epochs (a resumed run continues up to it)")
	fs.IntVar(&spec.Batch, "batch", d.Batch, "minibatch size")
	fs.IntVar(&spec.Patience, "patience", d.Patience, "epochs without a better validation MSE before the learning rate drops by 10 (twice at most: the third such plateau stops; 0: off)")
	fs.Uint64Var(&spec.Seed, "seed", d.Seed, "random seed (split of a file without one, batches)")
	fs.Float64Var(&spec.ValidFrac, "valid-frac", 0, fmt.Sprintf("validation fraction of a file with no split of its own (default %g; 0: none)", d.ValidFrac))
	fs.Float64Var(&spec.TestFrac, "test-frac", 0, fmt.Sprintf("test fraction of a file with no split of its own (default %g; 0: none)", d.TestFrac))
	fs.StringVar(&spec.Out, "out", "", "output directory (checkpoint.npz, metrics.jsonl, model.npz, model.json)")
	fs.StringVar(&spec.Resume, "resume", "", "directory with a checkpoint.npz to continue from")
	quiet := fs.Bool("quiet", false, "no progress bar")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	zeroIsOff(&spec.Patience)
	givenZeroIsOff(fs, "valid-frac", &spec.ValidFrac)
	givenZeroIsOff(fs, "test-frac", &spec.TestFrac)
	if err := spec.Validate(); err != nil {
		return specError(err)
	}
	if err := spec.CheckOutputs(); err != nil {
		return specError(err)
	}
	if !*quiet && isTerminal(stderr) {
		spec.Progress = stderr
	}
	rep, err := runs.TuneSpectral(spec)
	if err != nil {
		return specError(err)
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
