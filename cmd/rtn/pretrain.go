package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/runs"
)

func runPretrain(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("pretrain")
	var (
		spec   runs.PretrainSpec
		inits  string
		quiet  bool
		asJSON bool
	)
	d := runs.PretrainSpec{}.WithDefaults()
	fs.StringVar(&spec.Data, "data", d.Data, "data set: "+strings.Join(runs.PretrainData, ", "))
	fs.StringVar(&spec.DataDir, "data-dir", "", "directory holding the MAT-files of the real data sets")
	fs.IntVar(&spec.Hidden, "hidden", d.Hidden, "hidden units p")
	fs.StringVar(&inits, "init", d.Init, "initialisation: autoenc, random or linear, or a comma-separated list (one plot)")
	fs.IntVar(&spec.Epochs, "epochs", d.Epochs, "training epochs (0: pre-train and measure only)")
	fs.StringVar(&spec.Optimizer, "optimizer", d.Optimizer, "optimizer: "+joinNames(optim.Names()))
	fs.Float64Var(&spec.Optim.LR, "lr", d.Optim.LR, "learning rate")
	fs.Float64Var(&spec.Optim.Momentum, "momentum", 0, "momentum (sgd, rmsprop)")
	fs.StringVar(&spec.Schedule, "schedule", d.Schedule, "learning-rate schedule: constant, step:N:G, exp:G, plateau:P:F, warmup:W, cosine:T[:F], linear:T[:F], warmup:W+cosine:T[:F] (epochs)")
	fs.Float64Var(&spec.Optim.ClipNorm, "clip", d.Optim.ClipNorm, "clip gradients to this global norm (0: off)")
	fs.IntVar(&spec.Batch, "batch", d.Batch, "minibatch size in sequences")
	fs.IntVar(&spec.Chunk, "chunk", d.Chunk, "truncated-BPTT length")
	fs.StringVar(&spec.DType, "dtype", d.DType, "float type of the training epochs' steps: float64 or float32 (parameters, gradients and the optimizer stay float64)")
	fs.Uint64Var(&spec.Seed, "seed", d.Seed, "random seed")
	fs.StringVar(&spec.Out, "out", "", "output directory (result.json, curves.csv, curves.png)")
	fs.BoolVar(&quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&asJSON, "json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	list := strings.Split(inits, ",")
	zeroIsOff(&spec.Optim.ClipNorm)
	spec.NoTrain = spec.Epochs == 0
	for _, init := range list {
		s := spec
		s.Init = init
		if err := s.Validate(); err != nil {
			return specError(err)
		}
	}
	if !quiet && isTerminal(stderr) {
		spec.Progress = stderr
	}
	reps, err := runs.RunPretrainInits(spec, list)
	if err != nil {
		return specError(err)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		if len(reps) == 1 {
			return enc.Encode(reps[0])
		}
		return enc.Encode(map[string]any{"runs": reps})
	}
	return writePretrainTable(stdout, reps)
}

func writePretrainTable(w io.Writer, reps []*runs.PretrainReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "dataset\tinit\thidden\tepochs\tpretrain s\ttrain s\tinit test acc\ttest acc\ttest acc (framewise)\ttest NLL\tvalid acc")
	for _, r := range reps {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.2f\t%.1f\t%.4f\t%.4f\t%.4f\t%.3f\t%.4f\n", r.Dataset, r.Init, r.Hidden, r.Epochs,
			r.PretrainSeconds, r.TrainSeconds, r.InitTestAcc, r.TestAcc, r.TestAccFramewise, r.TestNLL, r.ValidAcc)
	}
	if len(reps) > 0 {
		fmt.Fprintf(tw, "baselines\trepeat previous frame: test acc %.4f; independent Bernoulli: test NLL %.3f nats/frame\n",
			reps[0].RepeatTestAcc, reps[0].BernoulliTestNLL)
	}
	return tw.Flush()
}
