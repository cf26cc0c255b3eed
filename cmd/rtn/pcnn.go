package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/pcnn"
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
	fs.StringVar(&spec.Task, "task", "anbn", "task: alphabet, music, xor or anbn")
	fs.IntVar(&spec.Size, "size", 0, "task size: lines (alphabet, xor), bars (music) or blocks (anbn); 0 = the paper's")
	fs.StringVar(&spec.Model, "model", "pcnn", "model: rnn, cnn or pcnn")
	fs.StringVar(&spec.Activation, "activation", "tanh", "activation: tanh or logistic")
	fs.StringVar(&spec.Writing, "writing", "qdh", "writing-weight metric: qdh or dh")
	fs.StringVar(&spec.Transition, "transition", "rbpm", "transition metric: rbpm, rutsd, qdrbpm, qdrutsd or fb")
	fs.IntVar(&spec.Units, "units", 16, "network size N")
	fs.StringVar(&degree, "degree", "3", "incoming edges per unit, loop included, or full")
	fs.Float64Var(&minutes, "minutes", 0, "training time budget in minutes (0: -passes only)")
	fs.IntVar(&spec.Passes, "passes", 0, "gradient passes (0: -minutes only)")
	fs.IntVar(&spec.Restarts, "restarts", 0, "starts probed for 150 passes each before training the best (0: 4 for anbn, 1 otherwise)")
	fs.IntVar(&spec.Generate, "generate", 0, "print this many symbols sampled from the trained model")
	fs.StringVar(&base, "baseline", "", "run a sanity baseline instead of a network: bzip2, ctw or hmm")
	fs.IntVar(&depth, "ctw-depth", 8, "context depth of the ctw baseline")
	states := fs.Int("hmm-states", 32, "states of the hmm baseline")
	iters := fs.Int("hmm-iterations", 50, "Baum-Welch iterations of the hmm baseline")
	seed := fs.Uint64("seed", 1, "random seed")
	fs.StringVar(&spec.Out, "out", "", "output directory (report.json, curve.csv, curve.png)")
	fs.BoolVar(&asJSON, "json", false, "print the result as one JSON object")
	fs.BoolVar(&quiet, "quiet", false, "no progress lines")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	spec.Seed = *seed
	if base != "" {
		return runPCNNBaseline(runs.PCNNBaselineSpec{Baseline: base, Task: spec.Task, Size: spec.Size,
			Depth: depth, States: *states, Iterations: *iters, Seed: spec.Seed}, asJSON, stdout)
	}
	if err := checkPCNNFlags(&spec, degree, minutes); err != nil {
		return err
	}
	if err := checkOutDir("-out", spec.Out); err != nil {
		return err
	}
	if what, bytes, err := pcnnBytes(spec); err != nil {
		return err
	} else if err := needMemory(what, bytes); err != nil {
		return err
	}
	if !quiet {
		spec.Log = stderr
	}
	rep, err := runs.RunPCNN(spec)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	return writePCNNTable(stdout, rep)
}

func runPCNNBaseline(b runs.PCNNBaselineSpec, asJSON bool, stdout io.Writer) error {
	switch {
	case b.Baseline != "bzip2" && b.Baseline != "ctw" && b.Baseline != "hmm":
		return usagef("-baseline must be bzip2, ctw or hmm, got %q", b.Baseline)
	case b.States < 1 || b.States > maxUnits:
		return usagef("-hmm-states must be in [1, %d], got %d", maxUnits, b.States)
	case b.Iterations < 1:
		return usagef("-hmm-iterations must be >= 1, got %d", b.Iterations)
	case b.Task != "alphabet" && b.Task != "music" && b.Task != "xor" && b.Task != "anbn":
		return usagef("-task must be alphabet, music, xor or anbn, got %q", b.Task)
	case b.Size < 0:
		return usagef("-size must be >= 0, got %d", b.Size)
	case b.Depth < 1 || b.Depth > 64:
		return usagef("-ctw-depth must be in [1, 64], got %d", b.Depth)
	case b.Seed == 0:
		return usagef("-seed must be >= 1")
	}
	rep, err := runs.RunPCNNBaseline(b)
	if err != nil {
		return err
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

// maxUnits bounds -units: a fully connected PCNN of that size over a
// 67-symbol alphabet holds 67 million transition weights.
const maxUnits = 1 << 10

func checkPCNNFlags(s *runs.PCNNSpec, degree string, minutes float64) error {
	switch s.Task {
	case "alphabet", "music", "xor", "anbn":
	default:
		return usagef("-task must be alphabet, music, xor or anbn, got %q", s.Task)
	}
	if _, err := pcnn.ParseKind(s.Model); err != nil {
		return usagef("-model must be rnn, cnn or pcnn, got %q", s.Model)
	}
	if _, err := activation.ParseOneOf(s.Activation, pcnn.Activations()...); err != nil {
		return usagef("-activation must be tanh or logistic, got %q", s.Activation)
	}
	if _, err := pcnn.ParseWriting(s.Writing); err != nil {
		return usagef("-writing must be qdh or dh, got %q", s.Writing)
	}
	tm, err := pcnn.ParseTransition(s.Transition)
	if err != nil {
		return usagef("-transition must be rbpm, rutsd, qdrbpm, qdrutsd or fb, got %q", s.Transition)
	}
	if s.Model == "rnn" && (tm == pcnn.RBPM || tm == pcnn.RUTSD) {
		return usagef("-transition %s is not available for the rnn (quadratic in the alphabet): use qd%s", s.Transition, s.Transition)
	}
	if s.Units < 1 || s.Units > maxUnits {
		return usagef("-units must be in [1, %d], got %d", maxUnits, s.Units)
	}
	if degree == "full" {
		s.Degree = 0
	} else {
		d, err := strconv.Atoi(degree)
		if err != nil || d < 1 || d > s.Units {
			return usagef("-degree must be full or an integer in [1, -units=%d], got %q", s.Units, degree)
		}
		s.Degree = d
	}
	switch {
	case s.Size < 0:
		return usagef("-size must be >= 0, got %d", s.Size)
	case !(minutes >= 0) || minutes > maxMinutes:
		return usagef("-minutes must be a number in [0, %d] (a year), got %g", maxMinutes, minutes)
	case s.Passes < 0:
		return usagef("-passes must be >= 0, got %d", s.Passes)
	case minutes == 0 && s.Passes == 0:
		return usagef("set -minutes or -passes")
	case s.Restarts < 0:
		return usagef("-restarts must be >= 0, got %d", s.Restarts)
	case s.Generate < 0:
		return usagef("-generate must be >= 0, got %d", s.Generate)
	case s.Seed == 0:
		return usagef("-seed must be >= 1")
	}
	s.Budget = time.Duration(minutes * float64(time.Minute))
	return nil
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
