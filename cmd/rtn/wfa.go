package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/runs"
)

var wfaCommands = map[string]func(args []string, stdout, stderr io.Writer) error{
	"learn":    runWFALearn,
	"score":    runWFAScore,
	"finetune": runWFAFinetune,
	"rank":     runWFARank,
	"sample":   runWFASample,
	"minimize": runWFAMinimize,
	"dot":      runWFADot,
	"sweep":    runWFASweep,
}

func runWFA(args []string, stdout, stderr io.Writer) error {
	var names []string
	for n := range wfaCommands {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(args) == 0 {
		return usagef("rtn wfa: no subcommand (one of %s)", strings.Join(names, ", "))
	}
	if h := args[0]; h == "-h" || h == "-help" || h == "--help" || h == "help" {
		fmt.Fprintf(stdout, "usage: rtn wfa <%s> [flags] (rtn wfa <subcommand> -h lists its flags)\n", strings.Join(names, "|"))
		return nil
	}
	f, ok := wfaCommands[args[0]]
	if !ok {
		return usagef("rtn wfa: unknown subcommand %q (one of %s)", args[0], strings.Join(names, ", "))
	}
	return f(args[1:], stdout, stderr)
}

// wfaFlagNames are the flags of the wfa specs' fields whose flag is not
// their name in kebab case.
var wfaFlagNames = map[string]string{"ValidFraction": "valid", "LRows": "lrows", "LColumns": "lcolumns",
	"CheckpointPath": "checkpoint", "MetricsPath": "metrics", "Candidates": "v"}

// wfaError is specError with the wfa commands' flag names.
func wfaError(err error) error { return specErrorNamed(err, wfaFlagNames) }

// formatFlag registers -format, the format of the string files a command
// reads or writes; its default is the specs' zero datasets.StringFormat.
func formatFlag(fs *flag.FlagSet, usage string) *string {
	return fs.String("format", datasets.StringFormat(0).String(), usage)
}

// parseFormat parses the value of -format.
func parseFormat(name string) (datasets.StringFormat, error) {
	fm, err := datasets.ParseStringFormat(name)
	if err != nil {
		return fm, usagef("-format: %v", err)
	}
	return fm, nil
}

func runWFALearn(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wfa learn")
	var spec runs.WFALearnSpec
	d := runs.WFALearnSpec{}.WithDefaults()
	format := formatFlag(fs, "string file format: pautomac, spice or lines")
	fs.StringVar(&spec.Train, "train", "", "training strings")
	fs.IntVar(&spec.Rank, "rank", 0, "number of states (0: choose rank, variant and basis on a validation split)")
	fs.StringVar(&spec.Hankel, "hankel", "", "Hankel variant: classic, prefix, suffix or factor (default: classic with -rank, classic and factor when selecting)")
	fs.IntVar(&spec.LRows, "lrows", 0, "longest basis prefix (default: 5 with -rank, {3, 4, 5} when selecting)")
	fs.IntVar(&spec.LColumns, "lcolumns", 0, "longest basis suffix, with -rank (default: -lrows; the selection uses lcolumns = lrows)")
	fs.IntVar(&spec.Folds, "folds", 0, fmt.Sprintf("cross-validation folds of the selection (default %d: hold out -valid once)", d.Folds))
	fs.Float64Var(&spec.ValidFraction, "valid", 0, fmt.Sprintf("share of the training strings held out for the selection, with -folds 1 (default %g)", d.ValidFraction))
	fs.Uint64Var(&spec.Seed, "seed", d.Seed, "random seed (validation split, randomized SVD)")
	fs.StringVar(&spec.Out, "out", "", "model file to write (JSON)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	verbose := fs.Bool("v", false, "print every selection candidate to stderr")
	fs.IntVar(&spec.Mixture, "mixture", 0, fmt.Sprintf("largest number of the best selection candidates averaged into the model (weights fitted on the validation strings, kept only when they beat the best single candidate there by -mixture-se standard errors; 1: the best candidate alone; -select zll only; default %d)", d.Mixture))
	fs.Float64Var(&spec.MixtureSE, "mixture-se", 0, fmt.Sprintf("keep the mixture only when its validation gain over the best candidate exceeds this many standard errors of that gain (0 or negative: any gain; -select zll only; default %g)", d.MixtureSE))
	fs.StringVar(&spec.Select, "select", "", fmt.Sprintf("selection criterion: zll (floored values over the automaton's mass), nll (next-symbol likelihood, the fine-tuning objective), perplexity (floored, normalised over the validation strings) or loo (as perplexity, each string weighted by its count minus one) (default %s)", d.Select))
	quiet := fs.Bool("quiet", false, "no progress line")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	var err error
	if spec.Format, err = parseFormat(*format); err != nil {
		return err
	}
	givenZeroIsOff(fs, "mixture-se", &spec.MixtureSE)
	if *verbose {
		spec.Candidates = stderr
	}
	if err := spec.Validate(); err != nil {
		return wfaError(err) // before WithDefaults: a seed given as 0 is refused
	}
	spec.Progress = progressTo(stderr, *quiet)
	rep, err := runs.LearnWFA(spec)
	if err != nil {
		return wfaError(err)
	}
	return printWFALearn(stdout, rep, spec.Out, *asJSON)
}

// printWFALearn writes the report of wfa learn, as text or as one JSON
// object; out is the model file written ("" for none).
func printWFALearn(stdout io.Writer, rep *runs.WFALearnReport, out string, asJSON bool) error {
	fit := rep.Fit
	res := wfaLearnResult{Variant: fit.Chosen.Variant.String(), Rows: fit.Chosen.Rows, Cols: fit.Chosen.Cols, Rank: fit.Chosen.Rank,
		States: rep.Model.WFA.States, Radius: rep.Radius, Candidates: len(fit.Candidates), SelectSeconds: fit.SelectSeconds, FitSeconds: fit.FitSeconds, Model: out}
	for _, c := range fit.Components {
		res.Components = append(res.Components, wfaComponent{Variant: c.Spec.Variant.String(), Rows: c.Spec.Rows, Cols: c.Spec.Cols, Rank: c.Spec.Rank, Weight: c.Weight})
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "variant\t%s\nlrows\t%d\nlcolumns\t%d\nrank\t%d\n", res.Variant, res.Rows, res.Cols, res.Rank)
	for i, c := range res.Components {
		fmt.Fprintf(tw, "component %d\t%s lrows=%d lcolumns=%d rank=%d weight=%.4f\n", i+1, c.Variant, c.Rows, c.Cols, c.Rank, c.Weight)
	}
	fmt.Fprintf(tw, "states\t%d\nspectral radius\t%.4f\ncandidates\t%d\nselect seconds\t%.3f\nfit seconds\t%.3f\n",
		res.States, res.Radius, res.Candidates, res.SelectSeconds, res.FitSeconds)
	return tw.Flush()
}

// wfaLearnResult is what wfa learn prints: the chosen configuration (the
// first component's for a mixture) and the mixture's components.
type wfaLearnResult struct {
	Variant       string         `json:"variant"`
	Rows          int            `json:"lrows"`
	Cols          int            `json:"lcolumns"`
	Rank          int            `json:"rank"`
	Components    []wfaComponent `json:"components,omitempty"`
	States        int            `json:"states"`
	Radius        float64        `json:"spectral_radius"`
	Candidates    int            `json:"candidates"`
	SelectSeconds float64        `json:"select_seconds"`
	FitSeconds    float64        `json:"fit_seconds"`
	Model         string         `json:"model,omitempty"`
}

// wfaComponent is one mixture component in wfa learn's output.
type wfaComponent struct {
	Variant string  `json:"variant"`
	Rows    int     `json:"lrows"`
	Cols    int     `json:"lcolumns"`
	Rank    int     `json:"rank"`
	Weight  float64 `json:"weight"`
}
