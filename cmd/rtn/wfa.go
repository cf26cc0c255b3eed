package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
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
	f, ok := wfaCommands[args[0]]
	if !ok {
		return usagef("rtn wfa: unknown subcommand %q (one of %s)", args[0], strings.Join(names, ", "))
	}
	return f(args[1:], stdout, stderr)
}

// stringsFlags are the flags that read a string sample.
type stringsFlags struct{ format string }

func (f *stringsFlags) add(fs interface {
	StringVar(p *string, name, value, usage string)
}) {
	fs.StringVar(&f.format, "format", "pautomac", "string file format: pautomac, spice or lines")
}

func (f *stringsFlags) parse() (datasets.StringFormat, error) {
	fm, err := datasets.ParseStringFormat(f.format)
	if err != nil {
		return 0, usagef("-format: %v", err)
	}
	return fm, nil
}

// readSample reads a string file; alphabet fixes the symbols of a lines
// file (nil: learn them).
func readSample(path, flag string, format datasets.StringFormat, alphabet []string) (datasets.Symbols, error) {
	if path == "" {
		return datasets.Symbols{}, usagef("%s is required", flag)
	}
	return datasets.ReadStringsFile(path, format, alphabet)
}

// checkAlphabet makes sure a test file fits the model's alphabet.
func checkAlphabet(m *wfa.Model, s datasets.Symbols, path string) error {
	if len(s.Alphabet) > len(m.Alphabet) {
		return errors.Errorf("%s: %d symbols, the model knows %d", path, len(s.Alphabet), len(m.Alphabet))
	}
	return nil
}

func runWFALearn(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wfa learn")
	var sf stringsFlags
	sf.add(fs)
	train := fs.String("train", "", "training strings")
	rank := fs.Int("rank", 0, "number of states (0: choose rank, variant and basis on a validation split)")
	hankel := fs.String("hankel", "", "Hankel variant: classic, prefix, suffix or factor (default: classic with -rank, all four when selecting)")
	lrows := fs.Int("lrows", 0, "longest basis prefix (default: 5 with -rank, {3, 5} when selecting)")
	lcols := fs.Int("lcolumns", 0, "longest basis suffix (default: -lrows)")
	valid := fs.Float64("valid", 0.2, "share of the training strings held out for the selection")
	seed := fs.Uint64("seed", 1, "random seed (validation split, randomized SVD)")
	out := fs.String("out", "", "model file to write (JSON)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	verbose := fs.Bool("v", false, "print every selection candidate to stderr")
	criterion := fs.String("select", "zll", "selection criterion: zll (floored values over the automaton's mass), nll (clipped next-symbol likelihood) or perplexity (floored, normalised over the validation strings)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	cfg, err := wfaConfig(*rank, *hankel, *lrows, *lcols, *valid, *seed)
	if err != nil {
		return err
	}
	if cfg.Criterion, err = wfa.ParseCriterion(*criterion); err != nil {
		return usagef("-select: %v", err)
	}
	format, err := sf.parse()
	if err != nil {
		return err
	}
	s, err := readSample(*train, "-train", format, nil)
	if err != nil {
		return err
	}
	m, rep, err := wfa.Fit(s, cfg)
	if *verbose && rep != nil {
		for _, c := range rep.Candidates {
			fmt.Fprintf(stderr, "%-40v nll %-10.6g perplexity %-12.6g radius %-8.4g floored %.4f %s\n", c.Spec, c.NLL, c.Perplexity, c.Radius, c.Floored, c.Rejected)
		}
	}
	var re *spectral.HankelRankError
	if errors.As(err, &re) {
		return usagef("-rank %d is above the Hankel matrix's largest usable rank %d", *rank, re.Max)
	}
	if err != nil {
		return err
	}
	if *out != "" {
		if err := m.Save(*out); err != nil {
			return err
		}
	}
	res := wfaLearnResult{Variant: rep.Chosen.Variant.String(), Rows: rep.Chosen.Rows, Cols: rep.Chosen.Cols, Rank: rep.Chosen.Rank,
		Candidates: len(rep.Candidates), SelectSeconds: rep.SelectSeconds, FitSeconds: rep.FitSeconds, Model: *out}
	if r, err := m.WFA.SpectralRadius(); err == nil {
		res.Radius = r
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "variant\t%s\nlrows\t%d\nlcolumns\t%d\nrank\t%d\nspectral radius\t%.4f\ncandidates\t%d\nselect seconds\t%.3f\nfit seconds\t%.3f\n",
		res.Variant, res.Rows, res.Cols, res.Rank, res.Radius, res.Candidates, res.SelectSeconds, res.FitSeconds)
	return tw.Flush()
}

type wfaLearnResult struct {
	Variant       string  `json:"variant"`
	Rows          int     `json:"lrows"`
	Cols          int     `json:"lcolumns"`
	Rank          int     `json:"rank"`
	Radius        float64 `json:"spectral_radius"`
	Candidates    int     `json:"candidates"`
	SelectSeconds float64 `json:"select_seconds"`
	FitSeconds    float64 `json:"fit_seconds"`
	Model         string  `json:"model,omitempty"`
}

// wfaConfig turns the learn flags into a Config.
func wfaConfig(rank int, hankel string, lrows, lcols int, valid float64, seed uint64) (wfa.Config, error) {
	cfg := wfa.Config{ValidFraction: valid, Seed: seed}
	if rank < 0 {
		return cfg, usagef("-rank must be >= 0, got %d", rank)
	}
	if lrows < 0 || lcols < 0 || lrows > 32 || lcols > 32 {
		return cfg, usagef("-lrows and -lcolumns must be in [0, 32]")
	}
	if !(valid > 0 && valid < 1) {
		return cfg, usagef("-valid must be in (0, 1), got %g", valid)
	}
	if lcols == 0 {
		lcols = lrows
	}
	cfg.Spec = wfa.Spec{Variant: spectral.Classic, Rows: lrows, Cols: lcols, Rank: rank}
	if hankel != "" {
		v, err := spectral.ParseHankelVariant(hankel)
		if err != nil {
			return cfg, usagef("-hankel: %v", err)
		}
		cfg.Spec.Variant = v
		cfg.Variants = []spectral.HankelVariant{v}
	}
	if lrows > 0 {
		cfg.Bases = []int{lrows}
	}
	return cfg, nil
}

func runWFAScore(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wfa score")
	var sf stringsFlags
	sf.add(fs)
	model := fs.String("model", "", "model file")
	test := fs.String("test", "", "test strings")
	solution := fs.String("solution", "", "PAutomaC solution file (true probabilities of the test strings)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *model == "" {
		return usagef("-model is required")
	}
	format, err := sf.parse()
	if err != nil {
		return err
	}
	m, err := wfa.Load(*model)
	if err != nil {
		return err
	}
	s, err := readSample(*test, "-test", format, lineAlphabet(format, m))
	if err != nil {
		return err
	}
	if err := checkAlphabet(m, s, *test); err != nil {
		return err
	}
	res := map[string]any{"strings": len(s.Seqs)}
	ll, err := wfa.LogLoss(m, s.Seqs)
	if err != nil {
		return err
	}
	res["log_loss"], res["normaliser"] = ll.NatsPerSymbol, ll.Normaliser
	if *solution != "" {
		sol, err := datasets.ReadSolutionFile(*solution)
		if err != nil {
			return err
		}
		p, err := wfa.Score(m, s.Seqs, sol)
		if err != nil {
			return err
		}
		res["perplexity"] = p
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

// lineAlphabet is the alphabet a lines file must use with model m (nil for
// the counted formats, whose header fixes it).
func lineAlphabet(format datasets.StringFormat, m *wfa.Model) []string {
	if format == datasets.Lines {
		return m.Alphabet
	}
	return nil
}

// loadModelFlag loads -model, which is required.
func loadModelFlag(path string) (*wfa.Model, error) {
	if path == "" {
		return nil, usagef("-model is required")
	}
	return wfa.Load(path)
}

// writeOut writes through fn to path atomically, or to stdout when path is
// empty or "-".
func writeOut(path string, stdout io.Writer, fn func(io.Writer) error) error {
	if path == "" || path == "-" {
		return fn(stdout)
	}
	return params.WriteFileAtomic(path, fn)
}
