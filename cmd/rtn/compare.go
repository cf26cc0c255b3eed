package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/runs"
)

func runCompare(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "merge" {
		return runCompareMerge(args[1:], stdout, stderr)
	}
	fs := newFlags("compare")
	var spec runs.CompareSpec
	d := runs.CompareSpec{}.WithDefaults()
	fs.StringVar(&spec.Model, "model", "", "model: a registered cell on a sequence task, or 2rnn (the spectral regression), 2rnn-spectral, umps, pcnn, pcnn-rnn, pcnn-cnn, wfa (default "+d.Model+"; known: "+strings.Join(runs.CompareModels(), ", ")+")")
	fs.StringVar(&spec.Task, "task", "", "data: pfa, jsb, nottingham, muse, piano (a cell), random2rnn or addition (2rnn), tomita1..7 or motzkin (umps), alphabet, music, xor or anbn (pcnn), the format of -data: pautomac, spice or lines (umps, wfa); default the first")
	fs.StringVar(&spec.DataFile, "data", "", "text file, one sequence per line (a cell; overrides -task), or a string file (umps; wfa, required); the other models refuse it")
	fs.IntVar(&spec.Hidden, "hidden", 0, "hidden units / rank / bond dimension / units (0: the model's default)")
	fs.IntVar(&spec.Size, "size", 0, "data size (2rnn, umps, pcnn, wfa; 0: the model's default)")
	fs.Float64Var(&spec.Noise, "noise", 0, "output noise standard deviation (2rnn)")
	fs.IntVar(&spec.Rank, "rank", 0, "decomposition rank of cp2rnn (0: hidden) and hotrnn (0: 4)")
	fs.IntVar(&spec.Order, "order", 0, "order of hotrnn (0: 2)")
	fs.IntVar(&spec.Lags, "lags", 0, "lagged states of hotrnn (0: 2)")
	fs.StringVar(&spec.Activation, "activation", "", "the cell's activation (a cell; default the cell's)")
	fs.IntVar(&spec.Layers, "layers", 0, "stacked cells (a cell; 0: 1)")
	fs.Float64Var(&spec.Dropout, "dropout", 0, "dropout rate between stacked cells (a cell with -layers >= 2; 0: none)")
	fs.IntVar(&spec.Embed, "embed", 0, "width of a learned embedding of the input symbols (a cell; 0: one-hot inputs)")
	fs.StringVar(&spec.DType, "dtype", "", "float type of the steps: float64 or float32 (a cell; default float64)")
	fs.IntVar(&spec.Chunk, "chunk", 0, "truncated-BPTT length (a cell; 0: full backpropagation through time)")
	fs.Uint64Var(&spec.DataSeed, "data-seed", 0, fmt.Sprintf("seed of the data (fixed across runs; default %d; a suite's problems set their own)", d.DataSeed))
	opts := fs.String("optimizers", runs.CompareDefaultOptimizers, "comma-separated optimizers, each NAME[:key=value...] with keys lr, momentum, nesterov, beta1, beta2, rho, eps, wd, clip, schedule, ar, as (known: "+strings.Join(runs.CompareOptimizerNames(), ", ")+")")
	grid := fs.String("lr-grid", "", "learning-rate grid: LO:HI:N (N log-spaced rates), a list R1,R2,..., or own (each optimizer's rate); empty: the model's grid")
	seeds := fs.String("seeds", "", fmt.Sprintf("seeds: N (1..N) or a list S1,S2,... (default %d; %d under -protocol deepobs)", len(d.Seeds), len(runs.CompareSpec{Protocol: runs.ProtocolDeepOBS}.WithDefaults().Seeds)))
	fs.IntVar(&spec.Budget.Epochs, "epochs", 0, fmt.Sprintf("epochs per run (default %d when -steps and -seconds are unset)", d.Budget.Epochs))
	fs.IntVar(&spec.Budget.Steps, "steps", 0, "optimizer steps per run (with -epochs, the first reached stops a run)")
	fs.Float64Var(&spec.Budget.Seconds, "seconds", 0, "training seconds per run (machine-dependent; alone, without -epochs or -steps)")
	fs.IntVar(&spec.Batch, "batch", 0, fmt.Sprintf("minibatch size (default %d; a suite: each problem's); 0: full batch", d.Batch))
	fs.IntVar(&spec.EvalEvery, "eval-every", 0, "also record the curve every N steps (0: per epoch)")
	fs.Float64Var(&spec.Target, "target", 0, "validation loss to reach: steps and seconds to it are reported (0: none; -protocol algoperf: from a reference run)")
	fs.Float64Var(&spec.DivergeFactor, "diverge", d.DivergeFactor, "a run diverges when a training loss exceeds this multiple of the reference loss (the start's, the first epoch's largest batch or the trivial loss, the largest) or is NaN/Inf; <= 0 keeps only NaN/Inf")
	fs.StringVar(&spec.Protocol, "protocol", "", "deepobs (tune on the grid, rerun the tuned rate with -rerun seeds) or algoperf (time to a per-problem target from a reference run); empty: the grid and its tuning")
	fs.IntVar(&spec.ExtendGrid, "extend-grid", 0, "up to N rates beyond the grid for an optimizer tuned at its edge (0: none)")
	fs.IntVar(&spec.Rerun, "rerun", 0, "run each tuned rate again with this many seeds in all (0: none; -protocol deepobs: 10)")
	fs.StringVar(&spec.Suite, "suite", "", "run the comparison over a suite of problems (known: "+strings.Join(runs.CompareSuites(), ", ")+"), each in its own subdirectory of -out")
	fs.IntVar(&spec.Jobs, "jobs", d.Jobs, "runs trained at once (results do not depend on it)")
	shard := fs.String("shard", "", "run only shard i/n of the grid (join with rtn compare merge)")
	fs.StringVar(&spec.Out, "out", runs.CommandOut("compare"), "output directory (runs, table, CSV, JSON, figures); reused to resume (empty: none, the table only)")
	quiet := fs.Bool("quiet", false, "no progress lines on stderr")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if err := compareFlags(&spec, fs, *opts, *grid, *seeds, *shard); err != nil {
		return err
	}
	if err := compareError(spec.WithDefaults().Validate()); err != nil {
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
	spec.Log = stderr
	if !*quiet {
		spec.Progress = stderr
	}
	rep, err := runs.RunCompare(spec)
	if err != nil {
		return compareError(err)
	}
	return printCompare(rep, *asJSON, stdout)
}

// compareFlags maps the list-valued flags to spec; the -lr-grid "own"
// runs each optimizer at its own rate, -batch 0 is a full batch and
// -diverge 0 keeps only the NaN/Inf tests.
func compareFlags(spec *runs.CompareSpec, fs *flag.FlagSet, opts, grid, seeds, shard string) error {
	var err error
	if spec.Settings, err = runs.ParseCompareOptimizers(opts); err != nil {
		return compareError(err)
	}
	if grid == "own" {
		spec.OwnRates = true
	} else if spec.LRGrid, err = runs.ParseLRGrid(grid); err != nil {
		return compareError(err)
	}
	if seeds != "" {
		if spec.Seeds, err = runs.ParseSeeds(seeds); err != nil {
			return compareError(err)
		}
	}
	if shard != "" {
		if spec.Shard, err = compare.ParseShard(shard); err != nil {
			return usagef("-shard must be i/n with 1 <= i <= n, got %q", shard)
		}
	}
	givenZeroIsOff(fs, "batch", &spec.Batch) // runs.FullBatch
	zeroIsOff(&spec.DivergeFactor)
	return nil
}

// compareFlagNames are the CompareSpec fields whose flag is not their
// name in kebab case.
var compareFlagNames = map[string]string{"Settings": "optimizers", "DivergeFactor": "diverge", "OwnRates": "lr-grid"}

// compareError is specError with rtn compare's flag names.
func compareError(err error) error { return specErrorNamed(err, compareFlagNames) }

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
	rep, err := runs.MergeCompare(*out, dirs...)
	if err != nil {
		return err
	}
	return printCompare(rep, *asJSON, stdout)
}

// printCompare prints a comparison's table (or JSON), a suite's table, or
// what a shard did.
func printCompare(rep *runs.CompareReport, asJSON bool, stdout io.Writer) error {
	s := rep.Spec
	switch {
	case rep.Suite != nil && asJSON:
		return json.NewEncoder(stdout).Encode(rep.Suite)
	case rep.Suite != nil:
		if err := rep.Suite.WriteTable(stdout); err != nil {
			return err
		}
		if s.Out != "" {
			fmt.Fprintf(stdout, "\nfiles written under %s: table.txt, table.tex, time_to_target.{txt,csv}, profile_{steps,seconds}.{png,svg,pdf}, suite.json; one directory per problem\n", s.Out)
		}
		return nil
	case rep.Summary == nil:
		res := rep.Results
		fmt.Fprintf(stdout, "shard %s: %d of %d runs in %s", s.Shard, len(res.Runs), len(res.Plan), s.Out)
		if res.Waiting > 0 {
			fmt.Fprintf(stdout, "; %d runs wait for other shards or for a later stage (run the shards again once all have finished)", res.Waiting)
		}
		fmt.Fprintln(stdout, "; join the shards with: rtn compare merge DIR...")
		return nil
	case asJSON:
		return json.NewEncoder(stdout).Encode(rep.Summary)
	}
	sum := rep.Summary
	if err := sum.WriteTable(stdout); err != nil {
		return err
	}
	if s.TargetFrom != "" {
		fmt.Fprintf(stdout, "\ntarget %.6g: %s\n", sum.Target, s.TargetFrom)
	}
	if sum.Executor != (compare.Executor{}) {
		fmt.Fprintf(stdout, "\nexecutor: %s\n", executorText(sum.Executor))
	}
	if s.Out != "" {
		fmt.Fprintf(stdout, "\nfiles written under %s (table.txt, table.tex, runs.csv, grid.csv, summary.json, loss_vs_*.{png,svg,pdf})\n", s.Out)
	}
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
