package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/rtnlab/rtn/runs"
)

func runPCNN(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("pcnn")
	var (
		spec    runs.PCNNSpec
		degree  string
		minutes float64
		asJSON  bool
		quiet   bool
		base    string
		depth   int
	)
	d, dh := runs.PCNNSpec{}.WithDefaults(), runs.PCNNBaselineSpec{Baseline: "hmm"}.WithDefaults()
	fs.StringVar(&spec.Task, "task", d.Task, "task: alphabet, music, xor or anbn")
	fs.IntVar(&spec.Size, "size", 0, "task size: lines (alphabet, xor), bars (music) or blocks (anbn); 0 = the paper's")
	fs.StringVar(&spec.Model, "model", d.Model, "model: rnn, cnn or pcnn")
	fs.StringVar(&spec.Activation, "activation", d.Activation, "activation: tanh or logistic")
	fs.StringVar(&spec.Writing, "writing", d.Writing, "writing-weight metric: qdh or dh")
	fs.StringVar(&spec.Transition, "transition", d.Transition, "transition metric: rbpm, rutsd, qdrbpm, qdrutsd or fb")
	fs.IntVar(&spec.Units, "units", d.Units, "network size N")
	fs.StringVar(&degree, "degree", strconv.Itoa(d.Degree), "incoming edges per unit, loop included, or full")
	fs.Float64Var(&minutes, "minutes", 0, "training time budget in minutes (0: -passes only)")
	fs.IntVar(&spec.Passes, "passes", 0, "gradient passes (0: -minutes only)")
	fs.IntVar(&spec.Restarts, "restarts", 0, "starts probed for 150 passes each before training the best (0: 4 for anbn, 1 otherwise)")
	fs.IntVar(&spec.Generate, "generate", 0, "print this many symbols sampled from the trained model")
	fs.StringVar(&base, "baseline", "", "run a sanity baseline instead of a network: bzip2, ctw or hmm")
	fs.IntVar(&depth, "ctw-depth", 0, fmt.Sprintf("context depth of the ctw baseline (default %d)", runs.PCNNBaselineSpec{Baseline: "ctw"}.WithDefaults().Depth))
	states := fs.Int("hmm-states", 0, fmt.Sprintf("states of the hmm baseline (default %d)", dh.States))
	iters := fs.Int("hmm-iterations", 0, fmt.Sprintf("Baum-Welch iterations of the hmm baseline (default %d)", dh.Iterations))
	fs.Uint64Var(&spec.Seed, "seed", d.Seed, "random seed")
	fs.StringVar(&spec.Out, "out", "", "output directory (report.json, curve.csv, curve.png)")
	fs.BoolVar(&asJSON, "json", false, "print the result as one JSON object")
	fs.BoolVar(&quiet, "quiet", false, "no progress lines")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	var err error
	if degree == "full" {
		spec.Degree = runs.Full
	} else if spec.Degree, err = strconv.Atoi(degree); err != nil {
		return usagef("-degree must be full or an integer in [1, -units=%d], got %q", spec.Units, degree)
	}
	if spec.Budget, err = runs.PCNNMinutes(minutes); err != nil {
		return specError(err)
	}
	b := runs.PCNNBaselineSpec{Baseline: base, Task: spec.Task, Size: spec.Size, Depth: depth, States: *states, Iterations: *iters, Seed: spec.Seed,
		Network: spec}
	if base != "" {
		return runPCNNBaseline(b, asJSON, stdout)
	}
	if err := b.WithDefaults().Validate(); err != nil {
		return specErrorNamed(err, baselineFlagNames)
	}
	if err := spec.Validate(); err != nil {
		return specError(err)
	}
	if !quiet {
		spec.Log = stderr
	}
	rep, err := runs.RunPCNN(spec)
	if err != nil {
		return specError(err)
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	return writePCNNTable(stdout, rep)
}

func runPCNNBaseline(b runs.PCNNBaselineSpec, asJSON bool, stdout io.Writer) error {
	if err := b.Validate(); err != nil {
		return specErrorNamed(err, baselineFlagNames)
	}
	rep, err := runs.RunPCNNBaseline(b)
	if err != nil {
		return specErrorNamed(err, baselineFlagNames)
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "task\t%s\n", rep.Task)
	fmt.Fprintf(tw, "baseline\t%s\n", rep.Method)
	fmt.Fprintf(tw, "valid bits\t%.1f\n", rep.ValidBits)
	fmt.Fprintf(tw, "true bits\t%.1f\n", rep.TrueBits)
	fmt.Fprintf(tw, "regret\t%.1f bits\n", rep.RegretBits)
	return tw.Flush()
}

func writePCNNTable(w io.Writer, r *runs.PCNNReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	deg := "full"
	if r.Degree > 0 {
		deg = strconv.Itoa(r.Degree)
	}
	fmt.Fprintf(tw, "task\t%s\n", r.Task)
	fmt.Fprintf(tw, "model\t%s with %s (%d units, degree %s)\n", r.Model, r.Method, r.Units, deg)
	fmt.Fprintf(tw, "training\t%d passes in %.1f s (%.3f s/pass)\n", r.Passes, r.Seconds, r.PerPass)
	if r.Restarts > 1 {
		fmt.Fprintf(tw, "starts\t%d probed, the best trained on\n", r.Restarts)
	}
	fmt.Fprintf(tw, "valid bits\t%.1f (best check; %.1f at the end)\n", r.ValidBits, r.FinalValidBits)
	fmt.Fprintf(tw, "true bits\t%.1f\n", r.TrueBits)
	fmt.Fprintf(tw, "regret\t%.1f bits\n", r.RegretBits)
	if r.ErrorPercent != nil {
		fmt.Fprintf(tw, "error\t%.2f %%\n", *r.ErrorPercent)
	}
	if r.Sample != "" {
		fmt.Fprintf(tw, "sample\t%q\n", r.Sample)
	}
	return tw.Flush()
}
