package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/runs"
)

// optimizerAliases are -optimizers names that stand for a registered
// optimizer with preset settings.
var optimizerAliases = map[string]compare.Setting{
	"momentum": {Name: "momentum", Optimizer: "sgd", Config: optimConfig(0.9, false)},
	"nesterov": {Name: "nesterov", Optimizer: "sgd", Config: optimConfig(0.9, true)},
}

func knownOptimizers() string {
	n := compare.Names()
	for a := range optimizerAliases {
		n = append(n, a)
	}
	slices.Sort(n)
	return strings.Join(n, ", ")
}

func runCompare(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "merge" {
		return runCompareMerge(args[1:], stdout, stderr)
	}
	fs := newFlags("compare")
	var spec runs.CompareSpec
	fs.StringVar(&spec.Model, "model", "lstm", "model: a registered cell on a sequence task, or 2rnn (the spectral regression), 2rnn-spectral, umps, pcnn, pcnn-rnn, pcnn-cnn, wfa (known: "+strings.Join(runs.CompareModels(), ", ")+")")
	fs.StringVar(&spec.Task, "task", "", "data: pfa (a cell), random2rnn or addition (2rnn), tomita1..7 or motzkin (umps), alphabet, music, xor or anbn (pcnn), the format of -data: pautomac, spice or lines (wfa); default the first")
	fs.StringVar(&spec.DataFile, "data", "", "text file, one sequence per line (a cell; overrides -task), or the string file (wfa; required)")
	fs.IntVar(&spec.Hidden, "hidden", 0, "hidden units / rank / bond dimension / units (0: the model's default)")
	fs.IntVar(&spec.Size, "size", 0, "data size (2rnn, umps, pcnn; 0: the model's default)")
	fs.Float64Var(&spec.Noise, "noise", 0, "output noise standard deviation (2rnn)")
	fs.IntVar(&spec.Rank, "rank", 0, "decomposition rank of cp2rnn (0: hidden) and hotrnn (0: 4)")
	fs.IntVar(&spec.Order, "order", 0, "order of hotrnn (0: 2)")
	fs.IntVar(&spec.Lags, "lags", 0, "lagged states of hotrnn (0: 2)")
	fs.StringVar(&spec.Activation, "activation", "", "the cell's activation (a cell; default the cell's)")
	fs.IntVar(&spec.Layers, "layers", 1, "stacked cells (a cell)")
	fs.Float64Var(&spec.Dropout, "dropout", 0, "dropout rate between stacked cells (a cell with -layers >= 2; 0: none)")
	fs.IntVar(&spec.Embed, "embed", 0, "width of a learned embedding of the input symbols (a cell; 0: one-hot inputs)")
	fs.StringVar(&spec.DType, "dtype", "", "float type of the steps: float64 or float32 (a cell; default float64)")
	fs.IntVar(&spec.Chunk, "chunk", 0, "truncated-BPTT length (a cell; 0: full backpropagation through time)")
	fs.Uint64Var(&spec.DataSeed, "data-seed", 1, "seed of the data (fixed across runs)")
	opts := fs.String("optimizers", "sgd,momentum,adam,rmsprop,adagrad", "comma-separated optimizers, each NAME[:key=value...] with keys lr, momentum, nesterov, beta1, beta2, rho, eps, wd, clip, schedule, ar, as (known: "+knownOptimizers()+")")
	grid := fs.String("lr-grid", "", "learning-rate grid: LO:HI:N (N log-spaced rates) or a list R1,R2,... (empty: each optimizer's rate)")
	seeds := fs.String("seeds", "3", "seeds: N (1..N) or a list S1,S2,...")
	var budget compare.Budget
	fs.IntVar(&budget.Epochs, "epochs", 0, "epochs per run (default 3 when -steps and -seconds are unset)")
	fs.IntVar(&budget.Steps, "steps", 0, "optimizer steps per run")
	fs.Float64Var(&budget.Seconds, "seconds", 0, "training seconds per run (machine-dependent)")
	batch := fs.Int("batch", 32, "minibatch size (0: full batch)")
	evalEvery := fs.Int("eval-every", 0, "also record the curve every N steps (0: per epoch)")
	target := fs.Float64("target", 0, "validation loss to reach: steps and seconds to it are reported (0: none)")
	diverge := fs.Float64("diverge", 10, "a run diverges when a training loss exceeds this multiple of the largest batch loss of the first epoch (or is NaN/Inf); <= 0 keeps only NaN/Inf")
	jobs := fs.Int("jobs", runtime.NumCPU(), "runs trained at once (results do not depend on it)")
	shard := fs.String("shard", "", "run only shard i/n of the grid (join with rtn compare merge)")
	out := fs.String("out", "out/compare", "output directory (runs, table, CSV, JSON, plots); reused to resume")
	quiet := fs.Bool("quiet", false, "no progress lines on stderr")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	cfg := compare.Config{Budget: budget, BatchSize: *batch, EvalEvery: *evalEvery, Target: *target, Jobs: *jobs, Dir: *out}
	if err := checkCompareFlags(&cfg, *opts, *grid, *seeds, *shard, *diverge); err != nil {
		return err
	}
	if *out == "" {
		return usagef("-out must name a directory")
	}
	if !slices.Contains(runs.CompareModels(), spec.Model) {
		return usagef("-model: unknown model %q (known: %s)", spec.Model, strings.Join(runs.CompareModels(), ", "))
	}
	if runs.CompareCell(spec.Model) {
		if err := checkCellFlags(spec.Model, layers.CellConfig{Activation: spec.Activation, Rank: spec.Rank, Order: spec.Order, Lags: spec.Lags}); err != nil {
			return err
		}
		if err := checkCompositionFlags(spec.Layers, spec.Dropout, spec.Embed); err != nil {
			return err
		}
		if spec.DType != "" && spec.DType != "float64" && spec.DType != "float32" {
			return usagef("-dtype must be float64 or float32, got %q", spec.DType)
		}
		if spec.Hidden >= 0 {
			pfa := datasets.PFAConfig{}.WithDefaults()
			ts := runs.TrainSpec{Model: spec.Model, Hidden: cmp.Or(spec.Hidden, runs.CompareCellHidden), Layers: spec.Layers, Batch: max(cfg.BatchSize, 1),
				Embed: spec.Embed, Rank: spec.Rank, Order: spec.Order, Lags: spec.Lags}
			if err := trainModelCheck(&ts, pfa.Symbols, pfa.MaxLen); err != nil {
				return err
			}
		}
	} else {
		spec.Layers = 0 // the flag's default: the other models have no layers
		for _, name := range []string{"rank", "order", "lags", "activation", "layers", "dropout", "embed", "dtype"} {
			if flagSet(fs, name) {
				return usagef("-%s applies to the registered cells only, not -model %s", name, spec.Model)
			}
		}
	}
	if spec.Hidden < 0 || spec.Size < 0 || spec.Chunk < 0 || !(spec.Noise >= 0) || math.IsInf(spec.Noise, 0) {
		return usagef("-hidden, -size, -chunk and -noise must be >= 0")
	}
	if spec.DataSeed == 0 {
		return usagef("-data-seed must be >= 1")
	}
	if spec.Model == "wfa" {
		if spec.DataFile == "" {
			return usagef("-data: model wfa needs a string file")
		}
		for _, name := range []string{"chunk", "size", "noise"} {
			if flagSet(fs, name) {
				return usagef("-%s has no effect with -model wfa", name)
			}
		}
		if spec.Task != "" {
			if _, err := datasets.ParseStringFormat(spec.Task); err != nil {
				return usagef("-task: %v", err)
			}
		}
	}
	for _, st := range cfg.Settings {
		if st.Optimizer == compare.Riemann && !strings.HasPrefix(spec.Model, "pcnn") {
			return usagef("-optimizers: riemann needs a model with a metric (pcnn, pcnn-rnn, pcnn-cnn), not %s", spec.Model)
		}
	}
	if err := checkOutDir("-out", *out); err != nil {
		return err
	}
	lock, err := runs.LockOutputs([]string{*out}, nil)
	if err != nil {
		return err
	}
	defer lock.Release()
	spec.Log = stderr
	factory, spec, err := runs.CompareProblem(spec)
	if err != nil {
		return err
	}
	cfg.Problem, cfg.Meta, cfg.Executor = factory, spec, spec.Executor
	if !*quiet {
		cfg.Log = stderr
	}
	res, err := compare.Run(cfg)
	if err != nil {
		return err
	}
	if cfg.Shard.Count > 0 {
		fmt.Fprintf(stdout, "shard %s: %d of %d runs in %s; join the shards with: rtn compare merge DIR...\n",
			cfg.Shard, len(res.Runs), len(res.Plan), *out)
		return nil
	}
	return writeCompare(res, *out, *asJSON, stdout)
}

func runCompareMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("compare merge")
	out := fs.String("out", "", "output directory (default: the first DIR)")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object")
	if err := fs.Parse(args); err != nil {
		return parse(fs, args, stderr)
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		return usagef("rtn compare merge: give the shard directories (rtn compare merge [-out DIR] DIR...)")
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "plan.json")); err != nil {
			return fmt.Errorf("rtn compare merge: %s holds no plan.json (not an rtn compare -out directory)", d)
		}
	}
	if *out == "" {
		*out = dirs[0]
	}
	// The shards are locked too: a shard still running is refused, not
	// merged half done.
	lock, err := runs.LockOutputs(append([]string{*out}, dirs...), nil)
	if err != nil {
		return err
	}
	defer lock.Release()
	res, err := compare.Merge(dirs...)
	if err != nil {
		return err
	}
	return writeCompare(res, *out, *asJSON, stdout)
}

// writeCompare writes the table (table.txt), CSV, JSON and plots into
// dir and prints the table or the JSON.
func writeCompare(res *compare.Results, dir string, asJSON bool, stdout io.Writer) error {
	sum := res.Summary()
	if err := sum.WriteFiles(dir); err != nil {
		return err
	}
	if err := runs.ComparePlots(dir, sum); err != nil {
		return err
	}
	err := params.WriteFileAtomic(filepath.Join(dir, "table.txt"), func(w io.Writer) error { return sum.WriteTable(w) })
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(sum)
	}
	if err := sum.WriteTable(stdout); err != nil {
		return err
	}
	if sum.Executor != (compare.Executor{}) {
		fmt.Fprintf(stdout, "\nexecutor: %s\n", executorText(sum.Executor))
	}
	fmt.Fprintf(stdout, "\nfiles written under %s (table.txt, runs.csv, grid.csv, summary.json, loss_vs_*.png)\n", dir)
	return nil
}

// executorText is "kind/dtype", followed for the compiled graphs by why
// the steps run there.
func executorText(e compare.Executor) string {
	if e.Reason == "" {
		return e.String()
	}
	return e.String() + " (" + e.Reason + ")"
}

// checkCompareFlags reads the list-valued flags into cfg and checks the
// others, naming the flag at fault.
func checkCompareFlags(cfg *compare.Config, opts, grid, seeds, shard string, diverge float64) error {
	var err error
	if cfg.Settings, err = parseOptimizers(opts); err != nil {
		return err
	}
	if cfg.LRGrid, err = parseGrid(grid); err != nil {
		return err
	}
	if cfg.Seeds, err = parseSeeds(seeds); err != nil {
		return err
	}
	if shard != "" {
		if cfg.Shard, err = compare.ParseShard(shard); err != nil {
			return usagef("-shard must be i/n with 1 <= i <= n, got %q", shard)
		}
	}
	b := &cfg.Budget
	switch {
	case b.Epochs < 0 || b.Steps < 0:
		return usagef("-epochs and -steps must be >= 0")
	case !(b.Seconds >= 0) || math.IsInf(b.Seconds, 0):
		return usagef("-seconds must be a finite number >= 0, got %g", b.Seconds)
	case cfg.BatchSize < 0:
		return usagef("-batch must be >= 0, got %d", cfg.BatchSize)
	case cfg.EvalEvery < 0:
		return usagef("-eval-every must be >= 0, got %d", cfg.EvalEvery)
	case !(cfg.Target >= 0) || math.IsInf(cfg.Target, 0):
		return usagef("-target must be a finite number >= 0, got %g", cfg.Target)
	case math.IsNaN(diverge) || math.IsInf(diverge, 0):
		return usagef("-diverge must be a finite number, got %g", diverge)
	case cfg.Jobs < 1 || cfg.Jobs > maxJobs:
		return usagef("-jobs must be in [1, %d], got %d", maxJobs, cfg.Jobs)
	}
	if b.Epochs == 0 && b.Steps == 0 && b.Seconds == 0 {
		b.Epochs = 3
	}
	cfg.DivergeFactor = diverge
	if diverge <= 0 {
		cfg.DivergeFactor = -1
	}
	return nil
}
