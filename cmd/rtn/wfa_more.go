package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	jreport "github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/runs"
	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
)

func runWFAFinetune(args []string, stdout, stderr io.Writer) error {
	fs, in := newWFAFlags("wfa finetune", "model file to start from (rtn wfa learn -out)")
	train := fs.String("train", "", "training strings")
	out := fs.String("out", "", "fine-tuned model file to write")
	var cfg wfa.FinetuneConfig
	fs.StringVar(&cfg.Optimizer, "optimizer", "adam", "optimizer: "+joinNames(optim.Names()))
	fs.Float64Var(&cfg.Optim.LR, "lr", 3e-5, "learning rate (> 0)")
	fs.Float64Var(&cfg.Optim.ClipNorm, "clip", 0, "clip gradients to this global norm (0: off)")
	fs.IntVar(&cfg.Epochs, "epochs", 20, "most epochs (a resumed run continues up to this total)")
	fs.IntVar(&cfg.BatchSize, "batch", 64, "strings per step")
	fs.IntVar(&cfg.Patience, "patience", 1, "epochs without validation improvement before the rate drops (x0.1, twice at most: the third such plateau stops)")
	fs.Float64Var(&cfg.ValidFraction, "valid", 0.1, "share of the strings held out for early stopping, in (0, 1)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed (split, batches), >= 1")
	fs.StringVar(&cfg.Train.CheckpointPath, "checkpoint", "", "trainer checkpoint file (.npz), written at the end of every epoch (default with -resume: the -resume file)")
	fs.StringVar(&cfg.Resume, "resume", "", "checkpoint file to continue from, written by -checkpoint with the same -model, -train and training flags")
	fs.StringVar(&cfg.Train.MetricsPath, "metrics", "", "per-epoch metrics (JSON lines)")
	fs.StringVar(&cfg.Check, "check", wfa.CheckZLL, "final comparison with the start: zll (keep the start when the fine-tuned automaton is worse under the floor rule on the validation strings, or better on all the strings by less than -check-se standard errors) or none (return the fine-tuned automaton)")
	checkSE := fs.Float64("check-se", 2, "with -check zll, the gain on all the strings, in standard errors of the per-string gain, below which the start is kept (0 or negative: any gain)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := in.parse(fs, args, stderr); err != nil {
		return err
	}
	if err := checkWFAFinetuneFlags(&cfg, *train, *checkSE); err != nil {
		return err
	}
	if cfg.Check == wfa.CheckNone && flagSet(fs, "check-se") {
		return usagef("-check-se applies with -check zll only")
	}
	if err := checkWFAFinetuneOutputs(&cfg, *out, in.model, *train); err != nil {
		return err
	}
	lock, err := runs.LockOutputs(nil, []string{*out, cfg.Train.CheckpointPath, cfg.Train.MetricsPath})
	if err != nil {
		return err
	}
	defer lock.Release()
	m, err := in.load()
	if err != nil {
		return err
	}
	s, err := in.read(*train, "-train")
	if err != nil {
		return err
	}
	if _, _, err := wfa.FinetuneSplit(s.Seqs, cfg.ValidFraction, max(cfg.Seed, 1)); err != nil {
		if flagSet(fs, "valid") {
			return usagef("-valid %g: %v", cfg.ValidFraction, err)
		}
		return errors.Errorf("%s: %v (-valid %g)", *train, err, cfg.ValidFraction)
	}
	if !*quiet && isTerminal(stderr) {
		cfg.Train.Progress = stderr
	}
	ft, rep, err := wfa.Finetune(m, s, cfg)
	if err != nil {
		return finetuneFailure(err, cfg.Optim.LR)
	}
	if *out != "" {
		if err := ft.Save(*out); err != nil {
			return err
		}
	}
	return printFinetuneReport(stdout, rep, *out, *asJSON)
}

func runWFARank(args []string, stdout, stderr io.Writer) error {
	fs, in := newWFAFlags("wfa rank", "model file")
	prefixes := fs.String("prefixes", "", "prefixes to complete (SPiCe prefix file)")
	targets := fs.String("targets", "", "SPiCe target file: with it, print NDCG@5")
	k := fs.Int("k", 5, "symbols ranked per prefix")
	out := fs.String("out", "", "rankings file (one line per prefix, -1 = end; default stdout without -targets)")
	asJSON := fs.Bool("json", false, "print the score as one JSON object")
	if err := in.parse(fs, args, stderr); err != nil {
		return err
	}
	if *k < 1 {
		return usagef("-k must be >= 1")
	}
	if *asJSON && *targets == "" {
		return usagef("-json prints the NDCG@5 score: it needs -targets")
	}
	if *out == "-" && *targets != "" {
		return usagef("-out - with -targets: the rankings and the score would share standard output")
	}
	if err := checkStdoutOrFile("-out", *out, in.model, *prefixes, *targets); err != nil {
		return err
	}
	var t []wfa.Target
	if *targets != "" {
		var err error
		if t, err = wfa.ReadTargetsFile(*targets); err != nil {
			return err
		}
	}
	m, err := in.load()
	if err != nil {
		return err
	}
	if slices.Contains(m.Alphabet, rankEnd) {
		return errors.Errorf("%s: the alphabet holds a symbol named %s, which rank writes for the end of the string", in.model, rankEnd)
	}
	s, err := in.read(*prefixes, "-prefixes")
	if err != nil {
		return err
	}
	if t != nil && len(t) != len(s.Seqs) {
		return errors.Errorf("%s: %d targets for the %d prefixes of %s", *targets, len(t), len(s.Seqs), *prefixes)
	}
	ranks, err := wfa.Rank(m, s.Seqs, *k)
	if err != nil {
		return err
	}
	score := 0.0
	if *targets != "" {
		// Scored before anything is written: a targets file that does
		// not match the prefixes leaves no rankings file behind.
		if score, err = wfa.NDCG5(spiceRanks(ranks, m.Alphabet), t); err != nil {
			return err
		}
	}
	if *out != "" || *targets == "" {
		if err := writeOut(*out, stdout, func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			for _, r := range ranks {
				f := make([]string, len(r))
				for i, v := range r {
					f[i] = rankName(m.Alphabet, v)
				}
				fmt.Fprintln(bw, strings.Join(f, " "))
			}
			return bw.Flush()
		}); err != nil {
			return err
		}
	}
	if *targets == "" {
		return nil
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"ndcg5": score, "prefixes": len(ranks)})
	}
	fmt.Fprintf(stdout, "NDCG@5 %.6f over %d prefixes\n", score, len(ranks))
	return nil
}

// rankEnd is what wfa rank writes for the end of the string.
var rankEnd = strconv.Itoa(wfa.End)

// rankName is what wfa rank writes for the symbol id of a ranking: its
// name in alphabet, or rankEnd for wfa.End.
func rankName(alphabet []string, id int) string {
	if id == wfa.End {
		return rankEnd
	}
	return alphabet[id]
}

// spiceRanks turns rankings of symbol ids into the symbols of a SPiCe
// target file, which are numbers: the number a symbol is named by (symbol
// "7" is 7), wfa.End for the end. A symbol whose name is not a number
// becomes wfa.End-1, which no target holds, so NDCG5 scores the rankings
// as SPiCe scores the lines rank writes.
func spiceRanks(ranks [][]int, alphabet []string) [][]int {
	number := make([]int, len(alphabet))
	for i, a := range alphabet {
		n, ok := datasets.SymbolNumber(a)
		if !ok {
			n = wfa.End - 1
		}
		number[i] = n
	}
	out := make([][]int, len(ranks))
	for i, r := range ranks {
		out[i] = make([]int, len(r))
		for j, id := range r {
			out[i][j] = wfa.End
			if id != wfa.End {
				out[i][j] = number[id]
			}
		}
	}
	return out
}

func runWFASample(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wfa sample")
	model := fs.String("model", "", "model file")
	n := fs.Int("n", 10, "strings to draw")
	maxLen := fs.Int("max-len", 100, "longest string")
	seed := fs.Uint64("seed", 1, "random seed")
	format := fs.String("format", "pautomac", "output format: pautomac, spice or lines")
	out := fs.String("out", "", "output file (default stdout)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *n < 1 || *maxLen < 0 {
		return usagef("-n must be >= 1 and -max-len >= 0")
	}
	fm, err := datasets.ParseStringFormat(*format)
	if err != nil {
		return usagef("-format: %v", err)
	}
	if err := checkStdoutOrFile("-out", *out, *model); err != nil {
		return err
	}
	if err := needMemory(fmt.Sprintf("-n %d -max-len %d", *n, *maxLen), float64s(2*float64(*n)*(float64(*maxLen)+1))); err != nil {
		return err
	}
	m, err := loadWFAModel(*model)
	if err != nil {
		return err
	}
	if fm != datasets.Lines {
		for _, a := range m.Alphabet {
			if _, ok := datasets.SymbolNumber(a); !ok {
				return usagef("-format %s writes symbols as numbers and %s has a symbol named %q (-format lines writes any name)", *format, *model, a)
			}
		}
	}
	if _, err := m.WFA.Stop(); err != nil {
		return errors.WithMessage(err, *model)
	}
	if r, err := m.WFA.SpectralRadius(); err != nil || !(r < 1) {
		fmt.Fprintf(stderr, "rtn: note: %s has no usable mass (spectral radius >= 1): its strings are drawn from next-symbol weights that do not describe a distribution\n", *model)
	}
	rng := rand.New(rand.NewPCG(*seed, 0))
	s := datasets.Symbols{Alphabet: m.Alphabet}
	for range *n {
		x, err := m.WFA.Sample(rng, *maxLen)
		if err != nil {
			return err
		}
		s.Seqs = append(s.Seqs, x)
	}
	return writeOut(*out, stdout, func(w io.Writer) error { return datasets.WriteStrings(w, s, fm) })
}

func runWFAMinimize(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wfa minimize")
	model := fs.String("model", "", "model file")
	tol := fs.Float64("tol", 1e-9, "relative tolerance of the rank decisions")
	out := fs.String("out", "", "minimal model file to write")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if !(*tol > 0 && *tol < 1) {
		return usagef("-tol must be in (0, 1)")
	}
	if *out == "" {
		return usagef("-out is required")
	}
	if err := checkOutput("-out", *out, *model); err != nil {
		return err
	}
	m, err := loadWFAModel(*model)
	if err != nil {
		return err
	}
	small, err := spectral.Minimize(m.WFA, *tol)
	if err != nil {
		return err
	}
	before := m.WFA.States
	m.WFA = small
	if err := m.Save(*out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "states %d -> %d\n", before, small.States)
	return nil
}

func runWFADot(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wfa dot")
	model := fs.String("model", "", "model file")
	minW := fs.Float64("min-weight", 0, "leave out transitions whose weight's magnitude is below this")
	out := fs.String("out", "", "DOT file (default stdout)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if !(*minW >= 0) || math.IsInf(*minW, 0) {
		return usagef("-min-weight must be a finite number >= 0, got %g", *minW)
	}
	if err := checkStdoutOrFile("-out", *out, *model); err != nil {
		return err
	}
	m, err := loadWFAModel(*model)
	if err != nil {
		return err
	}
	return writeOut(*out, stdout, func(w io.Writer) error { return m.DOT(w, *minW) })
}

func runWFASweep(args []string, stdout, stderr io.Writer) error {
	fs, in := newWFAFlags("wfa sweep", "")
	train := fs.String("train", "", "training strings")
	hankel := fs.String("hankel", "", "Hankel variant (default: classic and factor)")
	lrows := fs.Int("lrows", 0, "lrows = lcolumns (default: 3, 4 and 5)")
	ranks := fs.String("ranks", "", "comma-separated ranks (default: 2..30, 35, 40, 50)")
	folds := fs.Int("folds", 1, "cross-validation folds (1: hold out -valid once)")
	valid := fs.Float64("valid", 0.2, "share of the training strings held out with -folds 1")
	seed := fs.Uint64("seed", 1, "random seed")
	asJSON := fs.Bool("json", false, "print the sweep as one JSON object")
	testPath := fs.String("test", "", "test strings: with -solution, print each candidate's test perplexity as fitted on the first fold's training part (an oracle view; the selection never sees it)")
	solPath := fs.String("solution", "", "PAutomaC solution file of -test")
	maxRuled := fs.Float64("max-ruled-out", 0, "largest share of validation strings a candidate may give a value <= 0 (0: the default, 0.5)")
	if err := in.parse(fs, args, stderr); err != nil {
		return err
	}
	cfg, err := wfaConfig(0, *hankel, *lrows, 0, *folds, *valid, *seed)
	if err != nil {
		return err
	}
	if err := checkValidWithFolds(fs, *folds); err != nil {
		return err
	}
	if !(*maxRuled >= 0 && *maxRuled <= 1) {
		return usagef("-max-ruled-out must be in [0, 1], got %g", *maxRuled)
	}
	if (*testPath == "") != (*solPath == "") {
		return usagef("-test and -solution go together: the test column needs both")
	}
	cfg.MaxFloored, cfg.AllFigures, cfg.Mixture = *maxRuled, true, 1 // the sweep lists candidates: no mixture
	if *ranks != "" {
		for _, f := range strings.Split(*ranks, ",") {
			r, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || r < 1 {
				return usagef("-ranks: %q is not a rank >= 1", f)
			}
			if slices.Contains(cfg.Ranks, r) {
				return usagef("-ranks: %d appears twice", r)
			}
			cfg.Ranks = append(cfg.Ranks, r)
		}
	}
	s, err := in.readTrain(*train, cfg)
	if err != nil {
		return err
	}
	testScore := map[string]float64{}
	if *testPath != "" {
		// The test strings are read with the training strings' alphabet,
		// so that their symbols are the automata's whatever -format.
		test, err := datasets.ReadStringsFile(*testPath, in.fm, s.Alphabet)
		if err != nil {
			return err
		}
		sol, err := datasets.ReadSolutionFile(*solPath)
		if err != nil {
			return err
		}
		if len(sol) != len(test.Seqs) {
			return errors.Errorf("%s: %d probabilities for the %d strings of %s", *solPath, len(sol), len(test.Seqs), *testPath)
		}
		cfg.OnCandidate = func(c wfa.Candidate, w spectral.WFA) {
			if _, done := testScore[c.Spec.String()]; done {
				return
			}
			p, err := wfa.Score(&wfa.Model{WFA: w}, test.Seqs, sol)
			if err != nil {
				p = math.NaN()
			}
			testScore[c.Spec.String()] = p
		}
	}
	_, rep, err := wfa.Fit(s, cfg)
	var none *wfa.NoCandidateError
	if errors.As(err, &none) && *ranks != "" {
		return usagef("-ranks: every rank (smallest %d) is above the largest the Hankel matrices allow (%d)", none.Smallest, none.Usable)
	}
	if rep == nil || len(rep.Candidates) == 0 {
		return err
	}
	// Figures of a rejected candidate can be infinite (a divergent
	// automaton's zll and nll) and are written as null.
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
			jreport.Float(c.ZLL), jreport.Float(testScore[c.Spec.String()]), jreport.Float(c.Radius), jreport.Float(c.Floored), c.Rejected})
	}
	if *asJSON {
		res := map[string]any{"candidates": rows}
		if err == nil {
			res["chosen"] = rep.Chosen.String()
		}
		if e := json.NewEncoder(stdout).Encode(res); e != nil {
			return e
		}
		return err
	}
	bw := bufio.NewWriter(stdout)
	fmt.Fprintf(bw, "%-8s %5s %4s %16s %10s %10s %10s", "variant", "lrows", "rank", "valid perplexity", "valid loo", "valid nll", "valid zll")
	if *testPath != "" {
		fmt.Fprintf(bw, " %10s", "test")
	}
	fmt.Fprintf(bw, " %8s %9s %s\n", "radius", "ruled out", "rejected")
	for _, r := range rows {
		fmt.Fprintf(bw, "%-8s %5d %4d %16.6g %10.5g %10.5g %10.5g", r.Variant, r.Rows, r.Rank, r.Perplexity, r.LOO, r.NLL, r.ZLL)
		if *testPath != "" {
			fmt.Fprintf(bw, " %10.6g", r.Test)
		}
		fmt.Fprintf(bw, " %8.4f %9.4f %s\n", r.Radius, r.Ruled, r.Rejected)
	}
	if err == nil {
		fmt.Fprintf(bw, "chosen: %v\n", rep.Chosen)
	}
	if e := bw.Flush(); e != nil {
		return e
	}
	return err
}
