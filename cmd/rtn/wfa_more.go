package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	jreport "github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/runs"
)

func runWFAScore(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wfa score")
	var spec runs.WFAScoreSpec
	format := formatFlag(fs, "string file format: pautomac, spice or lines")
	fs.StringVar(&spec.Model, "model", "", "model file")
	fs.StringVar(&spec.Test, "test", "", "test strings")
	fs.StringVar(&spec.Solution, "solution", "", "PAutomaC solution file (true probabilities of the test strings)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	var err error
	if spec.Format, err = parseFormat(*format); err != nil {
		return err
	}
	rep, err := runs.ScoreWFA(spec)
	if err != nil {
		return wfaError(err)
	}
	// A model of huge or non-finite weights gives a non-finite figure,
	// null in JSON.
	res := map[string]any{"strings": rep.Strings, "log_loss_nats_per_symbol": jreport.Float(rep.LogLoss), "normaliser": rep.Normaliser}
	if rep.Normaliser == "sample" {
		fmt.Fprintf(stderr, "rtn: note: %s has no usable mass (spectral radius >= 1, or a mass <= 0 or not finite): log_loss_nats_per_symbol is normalised over the distinct test strings, not comparable with a model's own normaliser\n", spec.Model)
	}
	if spec.Solution != "" {
		res["perplexity"] = jreport.Float(rep.Perplexity)
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	keys := make([]string, 0, len(res))
	for k := range res {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%v\n", k, res[k])
	}
	return tw.Flush()
}

func runWFARank(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wfa rank")
	spec := runs.WFARankSpec{Stdout: stdout}
	format := formatFlag(fs, "string file format: pautomac, spice or lines")
	fs.StringVar(&spec.Model, "model", "", "model file")
	fs.StringVar(&spec.Prefixes, "prefixes", "", "prefixes to complete (SPiCe prefix file)")
	fs.StringVar(&spec.Targets, "targets", "", "SPiCe target file: with it, print NDCG@5")
	fs.IntVar(&spec.K, "k", runs.WFARankSpec{}.WithDefaults().K, "symbols ranked per prefix")
	fs.StringVar(&spec.Out, "out", "", "rankings file (one line per prefix, "+runs.RankEnd+" = end; default stdout without -targets)")
	asJSON := fs.Bool("json", false, "print the score as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	var err error
	if spec.Format, err = parseFormat(*format); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return wfaError(err)
	}
	if *asJSON && spec.Targets == "" {
		return usagef("-json prints the NDCG@5 score: it needs -targets")
	}
	rep, err := runs.RankWFA(spec)
	if err != nil {
		return wfaError(err)
	}
	if spec.Targets == "" {
		return nil
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"ndcg5": rep.NDCG5, "prefixes": rep.Prefixes})
	}
	fmt.Fprintf(stdout, "NDCG@5 %.6f over %d prefixes\n", rep.NDCG5, rep.Prefixes)
	return nil
}

func runWFASample(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wfa sample")
	spec := runs.WFASampleSpec{Stdout: stdout}
	d := spec.WithDefaults()
	fs.StringVar(&spec.Model, "model", "", "model file")
	fs.IntVar(&spec.Count, "n", d.Count, "strings to draw")
	fs.IntVar(&spec.MaxLen, "max-len", d.MaxLen, "longest string")
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
		return wfaError(err)
	}
	rep, err := runs.SampleWFA(spec)
	if err == nil && !rep.Mass {
		fmt.Fprintf(stderr, "rtn: note: %s has no usable mass (spectral radius >= 1): its strings are drawn from next-symbol weights that do not describe a distribution\n", spec.Model)
	}
	if err == nil {
		noteRedrawn(stderr, rep.Redrawn, spec.MaxLen)
	}
	return wfaError(err)
}

func runWFAMinimize(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wfa minimize")
	var spec runs.WFAMinimizeSpec
	fs.StringVar(&spec.Model, "model", "", "model file")
	fs.Float64Var(&spec.Tol, "tol", spec.WithDefaults().Tol, "relative tolerance of the rank decisions")
	fs.StringVar(&spec.Out, "out", "", "minimal model file to write")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return wfaError(err)
	}
	before, after, err := runs.MinimizeWFA(spec)
	if err != nil {
		return wfaError(err)
	}
	fmt.Fprintf(stdout, "states %d -> %d\n", before, after)
	return nil
}

func runWFADot(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wfa dot")
	spec := runs.WFADotSpec{Stdout: stdout}
	fs.StringVar(&spec.Model, "model", "", "model file")
	fs.Float64Var(&spec.MinWeight, "min-weight", 0, "leave out transitions whose weight's magnitude is below this")
	fs.StringVar(&spec.Out, "out", "", "DOT file (default stdout)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	return wfaError(runs.DotWFA(spec))
}

func runWFASweep(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wfa sweep")
	var spec runs.WFASweepSpec
	d := spec.WithDefaults()
	format := formatFlag(fs, "string file format: pautomac, spice or lines")
	fs.StringVar(&spec.Train, "train", "", "training strings")
	fs.StringVar(&spec.Hankel, "hankel", "", "Hankel variant (default: classic and factor)")
	fs.IntVar(&spec.LRows, "lrows", 0, "lrows = lcolumns (default: 3, 4 and 5)")
	ranks := fs.String("ranks", "", "comma-separated ranks (default: 2..30, 35, 40, 50)")
	fs.IntVar(&spec.Folds, "folds", 0, fmt.Sprintf("cross-validation folds (default %d: hold out -valid once)", d.Folds))
	fs.Float64Var(&spec.ValidFraction, "valid", 0, fmt.Sprintf("share of the training strings held out, with -folds 1 (default %g)", d.ValidFraction))
	fs.Uint64Var(&spec.Seed, "seed", d.Seed, "random seed")
	asJSON := fs.Bool("json", false, "print the sweep as one JSON object")
	fs.StringVar(&spec.Test, "test", "", "test strings: with -solution, print each candidate's test perplexity as fitted on the first fold's training part (an oracle view; the selection never sees it)")
	fs.StringVar(&spec.Solution, "solution", "", "PAutomaC solution file of -test")
	fs.Float64Var(&spec.MaxRuledOut, "max-ruled-out", d.MaxRuledOut, "largest share of validation strings a candidate may give a value <= 0")
	quiet := fs.Bool("quiet", false, "no progress line")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	var err error
	if spec.Format, err = parseFormat(*format); err != nil {
		return err
	}
	if *ranks != "" {
		for _, f := range strings.Split(*ranks, ",") {
			r, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return usagef("-ranks: %q is not an integer", f)
			}
			spec.Ranks = append(spec.Ranks, r)
		}
	}
	if err := spec.Validate(); err != nil {
		return wfaError(err) // before WithDefaults: a seed given as 0 is refused
	}
	spec.Progress = progressTo(stderr, *quiet)
	rep, err := runs.SweepWFA(spec)
	if rep == nil {
		return wfaError(err)
	}
	if e := printWFASweep(stdout, rep, spec.Test != "", *asJSON); e != nil {
		return e
	}
	return wfaError(err)
}

// printWFASweep writes the candidates of wfa sweep, as a table or as one
// JSON object, with a test column when test. Figures of a rejected
// candidate can be infinite (a divergent automaton's zll and nll) and are
// written as null.
func printWFASweep(stdout io.Writer, rep *runs.WFASweepReport, test, asJSON bool) error {
	type row struct {
		Variant    string        `json:"variant"`
		Rows       int           `json:"lrows"`
		Rank       int           `json:"rank"`
		Perplexity jreport.Float `json:"valid_perplexity"`
		LOO        jreport.Float `json:"valid_loo"`
		NLL        jreport.Float `json:"valid_nll"`
		ZLL        jreport.Float `json:"valid_zll"`
		Test       jreport.Float `json:"test_perplexity,omitempty"`
		Radius     jreport.Float `json:"spectral_radius"`
		Ruled      jreport.Float `json:"ruled_out"`
		Rejected   string        `json:"rejected,omitempty"`
	}
	var rows []row
	for _, c := range rep.Candidates {
		rows = append(rows, row{c.Spec.Variant.String(), c.Spec.Rows, c.Spec.Rank, jreport.Float(c.Perplexity), jreport.Float(c.LOO), jreport.Float(c.NLL),
			jreport.Float(c.ZLL), jreport.Float(rep.Test[c.Spec.String()]), jreport.Float(c.Radius), jreport.Float(c.Floored), c.Rejected})
	}
	if asJSON {
		res := map[string]any{"candidates": rows}
		if rep.Chosen != "" {
			res["chosen"] = rep.Chosen
		}
		return json.NewEncoder(stdout).Encode(res)
	}
	bw := bufio.NewWriter(stdout)
	fmt.Fprintf(bw, "%-8s %5s %4s %16s %10s %10s %10s", "variant", "lrows", "rank", "valid perplexity", "valid loo", "valid nll", "valid zll")
	if test {
		fmt.Fprintf(bw, " %10s", "test")
	}
	fmt.Fprintf(bw, " %8s %9s %s\n", "radius", "ruled out", "rejected")
	for _, r := range rows {
		fmt.Fprintf(bw, "%-8s %5d %4d %16.6g %10.5g %10.5g %10.5g", r.Variant, r.Rows, r.Rank, r.Perplexity, r.LOO, r.NLL, r.ZLL)
		if test {
			fmt.Fprintf(bw, " %10.6g", r.Test)
		}
		fmt.Fprintf(bw, " %8.4f %9.4f %s\n", r.Radius, r.Ruled, r.Rejected)
	}
	if rep.Chosen != "" {
		fmt.Fprintf(bw, "chosen: %v\n", rep.Chosen)
	}
	return bw.Flush()
}
