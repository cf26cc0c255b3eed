package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rtnlab/rtn/runs"
)

var stringsCommands = map[string]func(args []string, stdout, stderr io.Writer) error{
	"fit":    runStringsFit,
	"score":  runStringsScore,
	"sample": runStringsSample,
	"rank":   runStringsRank,
}

func runStrings(args []string, stdout, stderr io.Writer) error {
	var names []string
	for n := range stringsCommands {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(args) == 0 {
		return usagef("rtn strings: no subcommand (one of %s)", strings.Join(names, ", "))
	}
	if h := args[0]; h == "-h" || h == "-help" || h == "--help" || h == "help" {
		fmt.Fprintf(stdout, "usage: rtn strings <%s> [flags] (rtn strings <subcommand> -h lists its flags)\n", strings.Join(names, "|"))
		return nil
	}
	f, ok := stringsCommands[args[0]]
	if !ok {
		return usagef("rtn strings: unknown subcommand %q (one of %s)", args[0], strings.Join(names, ", "))
	}
	return f(args[1:], stdout, stderr)
}

// intList parses "10,20,40".
func intList(flagName, s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, usagef("%s: %q is not an integer", flagName, f)
		}
		out = append(out, v)
	}
	return out, nil
}

// stringsFitFlagNames are the flags of the StringsFitSpec fields whose
// flag is not their name in kebab case.
var stringsFitFlagNames = map[string]string{"Families": "family", "Tolerance": "em-tol", "SuffixLength": "start-suffixes",
	"EMIterations": "em-iters", "EMAccel": "em-accel", "ValidFraction": "valid", "Budget": "budget"}

func runStringsFit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("strings fit")
	var spec runs.StringsFitSpec
	d := spec.WithDefaults()
	train := fs.String("train", "", "training strings")
	format := stringsFormatFlag(fs)
	out := fs.String("out", "", "model file to write (JSON; empty: none, the selection table only)")
	families := fs.String("family", "", "candidate families, comma-separated: pfa, hmm, or wfa alone (the spectral estimate) (default "+strings.Join(d.Families, ",")+")")
	states := fs.String("states", "", "candidate numbers of states, comma-separated (default: grow from -states-from by -states-growth until -states-patience sizes do not improve)")
	fs.IntVar(&spec.StatesFrom, "states-from", 0, fmt.Sprintf("first number of states of the growing grid (default %d)", d.StatesFrom))
	fs.Float64Var(&spec.StatesGrowth, "states-growth", 0, fmt.Sprintf("factor between sizes of the growing grid (default %g)", d.StatesGrowth))
	fs.IntVar(&spec.StatesMax, "states-max", 0, fmt.Sprintf("most states of the growing grid (default %d)", d.StatesMax))
	fs.IntVar(&spec.StatesPatience, "states-patience", 0, fmt.Sprintf("sizes in a row without validation improvement that end the growing grid (default %d)", d.StatesPatience))
	fs.Float64Var(&spec.Training.Tolerance, "em-tol", 0, fmt.Sprintf("relative validation improvement an EM iteration needs to count (default %g)", d.Training.Tolerance))
	fs.StringVar(&spec.Start, "start", "", "start of the automata: spectral or random (default "+d.Start+")")
	fs.IntVar(&spec.Spectral.SuffixLength, "start-suffixes", 0, fmt.Sprintf("spectral start: cluster the predictive states by the probabilities they give to the next strings of up to this many symbols; -1: by the WFA's own basis (default %d)", d.Spectral.SuffixLength))
	fs.StringVar(&spec.Method, "method", "", "refinement: em, gradient or em+gradient (default "+d.Method+")")
	fs.StringVar(&spec.Training.Optimizer, "optimizer", "", "optimizer of the gradient refinement (default "+d.Training.Optimizer+")")
	fs.Float64Var(&spec.Training.Optim.LR, "lr", 0, fmt.Sprintf("learning rate (default %g)", d.Training.Optim.LR))
	fs.IntVar(&spec.Training.Epochs, "epochs", 0, fmt.Sprintf("most gradient epochs (default %d)", d.Training.Epochs))
	fs.IntVar(&spec.Training.BatchSize, "batch", 0, fmt.Sprintf("distinct strings per gradient step (default %d)", d.Training.BatchSize))
	fs.IntVar(&spec.EMIterations, "em-iters", 0, fmt.Sprintf("most EM passes over the training strings (default %d)", d.EMIterations))
	fs.StringVar(&spec.Training.EMAccel, "em-accel", "", "EM acceleration: plain or squarem (SQUAREM extrapolation of the Baum-Welch steps) (default "+d.Training.EMAccel+")")
	fs.IntVar(&spec.GridStrings, "grid-strings", 0, fmt.Sprintf("on a larger training split, the grid first scans sizes on this many strings, then grows on all of them from each family's best (default %d)", d.GridStrings))
	fs.Float64Var(&spec.ValidFraction, "valid", 0, fmt.Sprintf("share of the strings held out for selection and early stopping (default %g)", d.ValidFraction))
	fs.Uint64Var(&spec.Seed, "seed", d.Seed, "random seed (split, starts, batches)")
	fs.BoolVar(&spec.Single, "single", false, "keep the best candidate alone instead of trying the mixture of the trained automata")
	fs.IntVar(&spec.Jobs, "jobs", d.Jobs, "workers (the model is the same for any number)")
	fs.DurationVar(&spec.Budget, "budget", 0, "wall time after which no candidate starts and training stops at the next epoch (default "+d.Budget.String()+")")
	asJSON := fs.Bool("json", false, "print the fit summary as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	fm, err := parseFormat(*format)
	if err != nil {
		return err
	}
	spec.Train, spec.Format, spec.Out, spec.Log = *train, fm, *out, stderr
	if *families != "" {
		spec.Families = strings.Split(*families, ",")
	}
	if spec.States, err = intList("-states", *states); err != nil {
		return err
	}
	if err := spec.WithDefaults().Validate(); err != nil {
		return specErrorNamed(err, stringsFitFlagNames)
	}
	lock, err := runs.LockOutputs(nil, []string{*out})
	if err != nil {
		return err
	}
	defer lock.Release()
	_, sum, err := runs.FitStrings(spec)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(sum)
	}
	c := sum.Candidates[sum.Chosen]
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "family\tstates\tstart\tmethod\tvalid nats/string\tvalid nats/symbol\tseconds\t\n")
	for i, c := range sum.Candidates {
		mark := ""
		if i == sum.Chosen {
			mark = "chosen"
		}
		if c.Skipped != "" {
			mark = "skipped: " + c.Skipped
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.5f\t%.5f\t%.1f\t%s\n", c.Family, c.States, c.Start, c.Method, c.Valid, c.ValidPerSymbol, c.Seconds, mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	verb := "wrote " + *out
	if *out == "" {
		verb = "chosen (not written: no -out)"
	}
	fmt.Fprintf(stdout, "%s: %s, %d states (spectral estimate %s), %.1fs\n", verb, c.Family, c.States, sum.Spectral, sum.Seconds)
	return nil
}

func stringsFormatFlag(fs *flag.FlagSet) *string {
	return formatFlag(fs, "string file format: pautomac, spice or lines")
}

func runStringsScore(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("strings score")
	var spec runs.StringsScoreSpec
	d := spec.WithDefaults()
	fs.StringVar(&spec.Model, "model", "", "model file (rtn strings fit -out)")
	fs.StringVar(&spec.Test, "test", "", "test strings")
	fs.StringVar(&spec.Solution, "solution", "", "PAutomaC solution file (true probabilities of the test strings)")
	format := stringsFormatFlag(fs)
	fs.IntVar(&spec.Jobs, "jobs", d.Jobs, "workers")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	var err error
	if spec.Format, err = parseFormat(*format); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return specError(err)
	}
	m, res, err := runs.RunStringsScore(spec)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	fmt.Fprintf(stdout, "model %s (%s)\nstrings %d\nlog-loss %.6f nats/symbol (end of string counted)\n", spec.Model, m.Family, res.Strings, res.LogLoss)
	if res.Perplexity != nil {
		fmt.Fprintf(stdout, "perplexity %.4f\noptimum %.4f\nratio %.5f\n", *res.Perplexity, *res.Optimum, *res.Ratio)
	}
	return nil
}

func runStringsSample(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("strings sample")
	var spec runs.StringsSampleSpec
	d := spec.WithDefaults()
	fs.StringVar(&spec.Model, "model", "", "model file (rtn strings fit -out)")
	fs.IntVar(&spec.Count, "n", d.Count, "strings to draw")
	fs.IntVar(&spec.MaxLen, "max-len", d.MaxLen, "longest string (longer draws are redrawn)")
	fs.Uint64Var(&spec.Seed, "seed", d.Seed, "random seed")
	format := formatFlag(fs, "output format: pautomac, spice or lines")
	fs.StringVar(&spec.Out, "out", "", "output file (default stdout)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	var err error
	if spec.Format, err = parseFormat(*format); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return specError(err)
	}
	spec.Stdout = stdout
	rep, err := runs.SampleStrings(spec)
	if err != nil {
		return specError(err)
	}
	noteRedrawn(stderr, rep.Redrawn, spec.MaxLen)
	return nil
}

func runStringsRank(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("strings rank")
	var spec runs.StringsRankSpec
	fs.StringVar(&spec.Model, "model", "", "model file (rtn strings fit -out)")
	fs.StringVar(&spec.Prefixes, "prefixes", "", "prefixes to complete (SPiCe prefix file with -format spice)")
	fs.StringVar(&spec.Targets, "targets", "", "SPiCe target file: with it, print NDCG@5")
	format := stringsFormatFlag(fs)
	fs.IntVar(&spec.K, "k", spec.WithDefaults().K, "symbols ranked per prefix")
	fs.StringVar(&spec.Out, "out", "", "rankings file (one line per prefix, -1 = end; default stdout without -targets)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	var err error
	if spec.Format, err = parseFormat(*format); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return specError(err)
	}
	spec.Stdout = stdout
	rep, err := runs.RunStringsRank(spec)
	if err != nil {
		return specError(err)
	}
	if spec.Targets != "" {
		fmt.Fprintf(stdout, "NDCG@5 %.6f over %d prefixes\n", rep.NDCG5, rep.Prefixes)
	}
	return nil
}
