package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/runs"
)

// pretrainData lists the data sets -data accepts.
var pretrainData = []string{"synthetic", "jsb", "nottingham", "muse", "piano"}

func runPretrain(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("pretrain")
	var (
		spec   runs.PretrainSpec
		inits  string
		quiet  bool
		asJSON bool
	)
	fs.StringVar(&spec.Data, "data", "synthetic", "data set: "+strings.Join(pretrainData, ", "))
	fs.StringVar(&spec.DataDir, "data-dir", "", "directory holding the MAT-files of the real data sets")
	fs.IntVar(&spec.Hidden, "hidden", 100, "hidden units p")
	fs.StringVar(&inits, "init", "autoenc", "initialisation: autoenc, random or linear, or a comma-separated list (one plot)")
	fs.IntVar(&spec.Epochs, "epochs", 20, "training epochs (0: pre-train and measure only)")
	fs.StringVar(&spec.Optimizer, "optimizer", "adam", "optimizer: "+joinNames(optim.Names()))
	fs.Float64Var(&spec.Optim.LR, "lr", 0.005, "learning rate")
	fs.Float64Var(&spec.Optim.Momentum, "momentum", 0, "momentum (sgd, rmsprop)")
	fs.StringVar(&spec.Schedule, "schedule", "step:15:0.2", "learning-rate schedule: constant, step:N:G, exp:G, plateau:P:F, warmup:W, cosine:T[:F], linear:T[:F], warmup:W+cosine:T[:F] (epochs)")
	fs.Float64Var(&spec.Optim.ClipNorm, "clip", 5, "clip gradients to this global norm (0: off)")
	fs.IntVar(&spec.Batch, "batch", 4, "minibatch size in sequences")
	fs.IntVar(&spec.Chunk, "chunk", 100, "truncated-BPTT length")
	fs.StringVar(&spec.DType, "dtype", "float64", "float type of the training epochs' steps: float64 or float32 (parameters, gradients and the optimizer stay float64)")
	seed := fs.Uint64("seed", 1, "random seed")
	fs.StringVar(&spec.Out, "out", "", "output directory (result.json, curves.csv, curves.png)")
	fs.BoolVar(&quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&asJSON, "json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	spec.Seed = *seed
	list := strings.Split(inits, ",")
	if err := checkPretrainFlags(&spec, list); err != nil {
		return err
	}
	if err := checkOutDir("-out", spec.Out); err != nil {
		return err
	}
	lock, err := runs.LockOutputs([]string{spec.Out}, nil)
	if err != nil {
		return err
	}
	defer lock.Release()
	spec.NoTrain = spec.Epochs == 0
	if !quiet && isTerminal(stderr) {
		spec.Progress = stderr
	}
	out := spec.Out
	var reps []*runs.PretrainReport
	for _, init := range list {
		s := spec
		s.Init = init
		if out != "" {
			s.Out = filepath.Join(out, init)
		}
		rep, err := runs.RunPretrain(s)
		if err != nil {
			return err
		}
		reps = append(reps, rep)
	}
	if out != "" && len(reps) > 1 {
		if err := runs.WritePretrainCurves(out, reps); err != nil {
			return err
		}
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

func checkPretrainFlags(s *runs.PretrainSpec, inits []string) error {
	switch {
	case !contains(pretrainData, s.Data):
		return usagef("-data must be one of %s, got %q", strings.Join(pretrainData, ", "), s.Data)
	case s.Data != "synthetic" && s.DataDir == "":
		return usagef("-data %s needs -data-dir", s.Data)
	case s.Hidden <= 0 || s.Hidden > runs.MaxHidden:
		return usagef("-hidden must be in [1, %d], got %d", runs.MaxHidden, s.Hidden)
	case s.Epochs < 0:
		return usagef("-epochs must be >= 0, got %d", s.Epochs)
	case s.Batch <= 0:
		return usagef("-batch must be >= 1, got %d", s.Batch)
	case s.Chunk <= 0:
		return usagef("-chunk must be >= 1, got %d", s.Chunk)
	case s.DType != "float64" && s.DType != "float32":
		return usagef("-dtype must be float64 or float32, got %q", s.DType)
	case !(s.Optim.LR > 0) || math.IsInf(s.Optim.LR, 0):
		return usagef("-lr must be a finite number > 0, got %g", s.Optim.LR)
	case !(s.Optim.ClipNorm >= 0) || math.IsInf(s.Optim.ClipNorm, 0):
		return usagef("-clip must be a finite number >= 0, got %g", s.Optim.ClipNorm)
	case s.Optim.Momentum != 0 && s.Optimizer != "sgd" && s.Optimizer != "rmsprop":
		return usagef("-momentum applies to sgd and rmsprop, not %s", s.Optimizer)
	case s.Seed == 0:
		return usagef("-seed must be >= 1")
	}
	for _, in := range inits {
		if in != "autoenc" && in != "random" && in != "linear" {
			return usagef("-init must be autoenc, random or linear (or a comma-separated list), got %q", in)
		}
	}
	if !contains(optim.Names(), s.Optimizer) {
		return usagef("-optimizer: unknown optimizer %q (known: %s)", s.Optimizer, joinNames(optim.Names()))
	}
	if _, err := optim.ParseSchedule(s.Schedule); err != nil {
		return usagef("-schedule: %v", err)
	}
	if _, err := optim.New(s.Optimizer, s.Optim); err != nil {
		return usagef("%v", err)
	}
	return nil
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
