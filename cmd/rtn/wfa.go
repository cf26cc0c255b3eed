package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/floats"

	"github.com/rtnlab/rtn/datasets"
	jreport "github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/runs"
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

// wfaInputs are the input flags the wfa subcommands share: -format, the
// format of the string files they read, and -model, the automaton they
// start from.
type wfaInputs struct {
	format, model string
	hasModel      bool
	fm            datasets.StringFormat
	m             *wfa.Model
}

// newWFAFlags returns the flag set of a wfa subcommand with -format and,
// when modelUsage is not empty, a required -model.
func newWFAFlags(name, modelUsage string) (*flag.FlagSet, *wfaInputs) {
	fs := newFlags(name)
	in := &wfaInputs{hasModel: modelUsage != ""}
	fs.StringVar(&in.format, "format", "pautomac", "string file format: pautomac, spice or lines")
	if in.hasModel {
		fs.StringVar(&in.model, "model", "", modelUsage)
	}
	return fs, in
}

// parse parses args and checks -format and that -model is given.
func (in *wfaInputs) parse(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	fm, err := datasets.ParseStringFormat(in.format)
	if err != nil {
		return usagef("-format: %v", err)
	}
	in.fm = fm
	if in.hasModel && in.model == "" {
		return usagef("-model is required")
	}
	return nil
}

// load loads -model; call it after the command's own flag checks.
func (in *wfaInputs) load() (*wfa.Model, error) {
	m, err := wfa.Load(in.model)
	in.m = m
	return m, err
}

// read reads the string file path named by flag (required). With a
// loaded model, every symbol is looked up by name in the model's alphabet
// (symbol i of a counted file is named "i"), whatever the format the model
// was learned from; a symbol the model does not know is an error naming
// the line.
func (in *wfaInputs) read(path, flag string) (datasets.Symbols, error) {
	if path == "" {
		return datasets.Symbols{}, usagef("%s is required", flag)
	}
	var alphabet []string
	if in.m != nil {
		alphabet = in.m.Alphabet
	}
	return datasets.ReadStringsFile(path, in.fm, alphabet)
}

// loadWFAModel loads the required -model of a subcommand that reads no
// strings.
func loadWFAModel(path string) (*wfa.Model, error) {
	if path == "" {
		return nil, usagef("-model is required")
	}
	return wfa.Load(path)
}

func runWFALearn(args []string, stdout, stderr io.Writer) error {
	fs, in := newWFAFlags("wfa learn", "")
	train := fs.String("train", "", "training strings")
	rank := fs.Int("rank", 0, "number of states (0: choose rank, variant and basis on a validation split)")
	hankel := fs.String("hankel", "", "Hankel variant: classic, prefix, suffix or factor (default: classic with -rank, classic and factor when selecting)")
	lrows := fs.Int("lrows", 0, "longest basis prefix (default: 5 with -rank, {3, 4, 5} when selecting)")
	lcols := fs.Int("lcolumns", 0, "longest basis suffix, with -rank (default: -lrows; the selection uses lcolumns = lrows)")
	folds := fs.Int("folds", 1, "cross-validation folds of the selection (1: hold out -valid once)")
	valid := fs.Float64("valid", 0.2, "share of the training strings held out for the selection with -folds 1")
	seed := fs.Uint64("seed", 1, "random seed (validation split, randomized SVD)")
	out := fs.String("out", "", "model file to write (JSON)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	verbose := fs.Bool("v", false, "print every selection candidate to stderr")
	mixture := fs.Int("mixture", 8, "largest number of the best selection candidates averaged into the model (weights fitted on the validation strings, kept only when they beat the best single candidate there by -mixture-se standard errors; 1: the best candidate alone; zll only)")
	mixtureSE := fs.Float64("mixture-se", 1, "keep the mixture only when its validation gain over the best candidate exceeds this many standard errors of that gain (0 or negative: any gain)")
	criterion := fs.String("select", "zll", "selection criterion: zll (floored values over the automaton's mass), nll (next-symbol likelihood, the fine-tuning objective), perplexity (floored, normalised over the validation strings) or loo (as perplexity, each string weighted by its count minus one)")
	if err := in.parse(fs, args, stderr); err != nil {
		return err
	}
	cfg, err := wfaConfig(*rank, *hankel, *lrows, *lcols, *folds, *valid, *seed)
	if err != nil {
		return err
	}
	if *rank == 0 && *lcols != 0 {
		return usagef("-lcolumns applies with -rank only: the selection uses lcolumns = lrows")
	}
	if *rank > 0 {
		var unused []string
		for _, name := range []string{"folds", "valid", "mixture", "mixture-se", "select", "v"} {
			if flagSet(fs, name) {
				unused = append(unused, "-"+name)
			}
		}
		if len(unused) > 0 {
			return usagef("%s: selection flags, no effect with -rank", strings.Join(unused, ", "))
		}
	}
	if err := checkValidWithFolds(fs, *folds); err != nil {
		return err
	}
	if cfg.Criterion, err = wfa.ParseCriterion(*criterion); err != nil {
		return usagef("-select: %v", err)
	}
	if cfg.Criterion != wfa.ValidZLL && (flagSet(fs, "mixture") || flagSet(fs, "mixture-se")) {
		return usagef("-mixture and -mixture-se apply with -select zll only")
	}
	if *mixture < 1 {
		return usagef("-mixture must be >= 1, got %d", *mixture)
	}
	if math.IsNaN(*mixtureSE) || math.IsInf(*mixtureSE, 0) {
		return usagef("-mixture-se must be a finite number, got %g", *mixtureSE)
	}
	cfg.Mixture, cfg.MixtureSE = *mixture, *mixtureSE
	if cfg.MixtureSE == 0 {
		cfg.MixtureSE = -1 // any gain: Config reads 0 as its default
	}
	if cfg.Criterion != wfa.ValidZLL {
		cfg.Mixture = 1 // only zll forms mixtures
	}
	if err := checkOutput("-out", *out, *train); err != nil {
		return err
	}
	lock, err := runs.LockOutputs(nil, []string{*out})
	if err != nil {
		return err
	}
	defer lock.Release()
	s, err := in.readTrain(*train, cfg)
	if err != nil {
		return err
	}
	m, rep, err := wfa.Fit(s, cfg)
	if *verbose && rep != nil {
		for _, c := range rep.Candidates {
			fmt.Fprintf(stderr, "%-40v loo %-10.6g zll %-10.6g nll %-10.6g perplexity %-12.6g radius %-8.4g floored %.4f %s\n", c.Spec, c.LOO, c.ZLL, c.NLL, c.Perplexity, c.Radius, c.Floored, c.Rejected)
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
		States: m.WFA.States, Candidates: len(rep.Candidates), SelectSeconds: rep.SelectSeconds, FitSeconds: rep.FitSeconds, Model: *out}
	for _, c := range rep.Components {
		res.Components = append(res.Components, wfaComponent{Variant: c.Spec.Variant.String(), Rows: c.Spec.Rows, Cols: c.Spec.Cols, Rank: c.Spec.Rank, Weight: c.Weight})
	}
	if r, err := m.WFA.SpectralRadius(); err == nil {
		res.Radius = r
	}
	if *asJSON {
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

// wfaConfig turns the learn flags into a Config.
func wfaConfig(rank int, hankel string, lrows, lcols, folds int, valid float64, seed uint64) (wfa.Config, error) {
	cfg := wfa.Config{Folds: folds, ValidFraction: valid, Seed: seed}
	if seed == 0 {
		return cfg, usagef("-seed must be >= 1")
	}
	if folds < 1 {
		return cfg, usagef("-folds must be >= 1, got %d", folds)
	}
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
	fs, in := newWFAFlags("wfa score", "model file")
	test := fs.String("test", "", "test strings")
	solution := fs.String("solution", "", "PAutomaC solution file (true probabilities of the test strings)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := in.parse(fs, args, stderr); err != nil {
		return err
	}
	m, err := in.load()
	if err != nil {
		return err
	}
	s, err := in.read(*test, "-test")
	if err != nil {
		return err
	}
	if len(s.Seqs) == 0 {
		return errors.Errorf("%s: no strings to score", *test)
	}
	var sol []float64
	if *solution != "" {
		if sol, err = datasets.ReadSolutionFile(*solution); err != nil {
			return err
		}
		if len(sol) != len(s.Seqs) {
			return errors.Errorf("%s: %d probabilities for the %d strings of %s", *solution, len(sol), len(s.Seqs), *test)
		}
		if sum := floats.Sum(sol); !(sum > 0) || math.IsInf(sum, 0) {
			return errors.Errorf("%s: the probabilities sum to %g, want a positive finite sum", *solution, sum)
		}
	}
	res := map[string]any{"strings": len(s.Seqs)}
	ll, err := wfa.LogLoss(m, s.Seqs)
	if err != nil {
		return err
	}
	// A model of huge or non-finite weights gives a non-finite figure,
	// null in JSON.
	res["log_loss"], res["normaliser"] = jreport.Float(ll.NatsPerSymbol), ll.Normaliser
	if ll.Normaliser == "sample" {
		fmt.Fprintf(stderr, "rtn: note: %s has no usable mass (spectral radius >= 1, or a mass <= 0 or not finite): log_loss is normalised over the distinct test strings, not comparable with a model's own normaliser\n", in.model)
	}
	if sol != nil {
		p, err := wfa.Score(m, s.Seqs, sol)
		if err != nil {
			return errors.Wrap(err, in.model) // the solution was checked above
		}
		res["perplexity"] = jreport.Float(p)
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

// readTrain reads the -train file of learn and sweep: the memory its
// alphabet needs is checked first, and -folds against its strings after.
func (in *wfaInputs) readTrain(path string, cfg wfa.Config) (datasets.Symbols, error) {
	if err := wfaLearnMemory(path, in.fm, cfg); err != nil {
		return datasets.Symbols{}, err
	}
	s, err := in.read(path, "-train")
	if err != nil {
		return s, err
	}
	return s, checkFolds(cfg.Folds, len(s.Seqs))
}

// checkValidWithFolds refuses -valid with more than one fold: the folds
// hold out 1/K of the strings each.
func checkValidWithFolds(fs *flag.FlagSet, folds int) error {
	if folds > 1 && flagSet(fs, "valid") {
		return usagef("-valid applies with -folds 1: each of the %d folds holds out 1/%d of the strings", folds, folds)
	}
	return nil
}

// checkFolds refuses more cross-validation folds than half the strings.
func checkFolds(folds, strings int) error {
	if folds > 1 && strings < 2*folds {
		return usagef("-folds %d: %d strings allow at most %d folds", folds, strings, strings/2)
	}
	return nil
}

// writeOut writes through fn to path atomically, or to stdout when path is
// empty or "-".
func writeOut(path string, stdout io.Writer, fn func(io.Writer) error) error {
	if path == "" || path == "-" {
		return fn(stdout)
	}
	return params.WriteFileAtomic(path, fn)
}
