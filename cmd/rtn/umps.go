package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rtnlab/rtn/experiments"
	"github.com/rtnlab/rtn/layers/umps"
)

// umpsCommands are the subcommands of rtn umps.
var umpsCommands = map[string]func(args []string, stdout, stderr io.Writer) error{
	"train":    runUMPSTrain,
	"sample":   runUMPSSample,
	"prob":     runUMPSProb,
	"complete": runUMPSComplete,
	"eval":     runUMPSEval,
}

func runUMPS(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("rtn umps: want a subcommand: complete, eval, prob, sample or train")
	}
	if h := args[0]; h == "-h" || h == "-help" || h == "--help" || h == "help" {
		fmt.Fprintln(stdout, "usage: rtn umps <train|sample|prob|complete|eval> [flags] (rtn umps <subcommand> -h lists its flags)")
		return nil
	}
	f, ok := umpsCommands[args[0]]
	if !ok {
		return usagef("rtn umps: unknown subcommand %q (want complete, eval, prob, sample or train)", args[0])
	}
	return f(args[1:], stdout, stderr)
}

func writeJSONLine(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

func runUMPSTrain(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("umps train")
	var (
		spec   experiments.UMPSSpec
		norm   string
		init   string
		quiet  bool
		asJSON bool
	)
	fs.StringVar(&spec.Data, "data", "tomita4", "tomita1..tomita7, tomita3-adjacent, motzkin, or a text file (one string per line)")
	fs.IntVar(&spec.Bond, "bond", 20, "bond dimension D")
	fs.StringVar(&norm, "norm", "n", "normalisation: n (per length, P_n) or star (all lengths, P_*)")
	fs.StringVar(&init, "init", "identity", "core initialisation: identity (near-identity) or normal (N(0, 1/D))")
	fs.IntVar(&spec.BalanceEpochs, "balance", 5, "also train each restart after this many epochs of minibatches with equally many strings of each length, keep the better by validation NLL (0: the paper's protocol only; needs -norm n)")
	fs.IntVar(&spec.NTrain, "train", 1000, "training strings (built-in languages)")
	fs.IntVar(&spec.NValid, "valid", 1000, "validation strings (built-in languages)")
	fs.IntVar(&spec.Epochs, "epochs", 300, "maximum epochs (early stopping usually ends sooner)")
	fs.IntVar(&spec.Restarts, "restarts", 1, "initialisations trained on the same data, the best by validation NLL kept")
	seed := fs.Uint64("seed", 1, "random seed")
	fs.StringVar(&spec.Out, "out", "", "output directory (model.npz, checkpoint.npz, metrics.jsonl)")
	fs.BoolVar(&quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&asJSON, "json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	spec.Seed = *seed
	switch {
	case spec.Bond < 1 || spec.Bond > 512:
		return usagef("-bond must be in [1, 512], got %d", spec.Bond)
	case spec.NTrain < 1 || spec.NValid < 1:
		return usagef("-train and -valid must be >= 1")
	case spec.Epochs < 1:
		return usagef("-epochs must be >= 1, got %d", spec.Epochs)
	case spec.BalanceEpochs < 0:
		return usagef("-balance must be >= 0, got %d", spec.BalanceEpochs)
	case spec.Restarts < 1:
		return usagef("-restarts must be >= 1, got %d", spec.Restarts)
	case spec.Seed == 0:
		return usagef("-seed must be >= 1")
	}
	var err error
	if spec.Norm, err = umps.ParseNorm(norm); err != nil {
		return usagef("-norm must be n or star, got %q", norm)
	}
	if spec.BalanceEpochs > 0 && spec.Norm == umps.AllLengths {
		return usagef("-balance needs -norm n (under P_* the length weights are learned); add -balance 0")
	}
	switch init {
	case "identity":
		spec.Init = umps.NearIdentity
	case "normal":
		spec.Init = umps.RandomNormal
	default:
		return usagef("-init must be identity or normal, got %q", init)
	}
	spec.Progress = progressTo(stderr, quiet)
	if err := checkOutDir("-out", spec.Out); err != nil {
		return err
	}
	if err := umpsDataCheck(spec.Data, spec.Progress); err != nil {
		return err
	}
	rep, err := experiments.TrainUMPS(spec)
	if err != nil {
		return err
	}
	reportUMPSClamps(stderr, spec, rep)
	if asJSON {
		return writeJSONLine(stdout, rep)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "task\t%s (%d train, %d valid)\n", rep.Data, rep.NTrain, rep.NValid)
	fmt.Fprintf(tw, "bond\t%d\n", rep.Bond)
	fmt.Fprintf(tw, "epochs\t%d (best %d)\n", rep.Epochs, rep.BestEpoch)
	fmt.Fprintf(tw, "train NLL\t%.6f nats/string\n", rep.TrainNLL)
	fmt.Fprintf(tw, "valid NLL\t%.6f nats/string\n", rep.ValidNLL)
	fmt.Fprintf(tw, "seconds\t%.1f\n", rep.Seconds)
	return tw.Flush()
}

// loadModel reads -model and reports a missing flag as a usage error.
func loadModel(path string) (*umps.MPS, experiments.UMPSMeta, error) {
	if path == "" {
		return nil, experiments.UMPSMeta{}, usagef("-model is required")
	}
	return experiments.LoadUMPS(path)
}

func runUMPSSample(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("umps sample")
	model := fs.String("model", "", "model file or run directory")
	regex := fs.String("regex", "", "regular expression over the model's alphabet (required)")
	count := fs.Int("n", 10, "number of strings")
	exact := fs.Bool("exact", false, "use the DFA sampler (any regex) instead of Algorithm 1 (unambiguous regexes)")
	seed := fs.Uint64("seed", 1, "random seed")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *regex == "" {
		return usagef("-regex is required")
	}
	if *count < 0 {
		return usagef("-n must be >= 0, got %d", *count)
	}
	if err := umpsSampleCheck(*count); err != nil {
		return err
	}
	m, meta, err := loadModel(*model)
	if err != nil {
		return err
	}
	r, err := umps.CompileRegex(*regex, strings.Join(meta.Alphabet, ""))
	if err != nil {
		return flagError("-regex", err)
	}
	t, err := umps.NewTransfer(m)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(*seed, 0x73616d70))
	var out [][]int
	if *exact {
		s, err := t.NewExactSampler(r)
		if err != nil {
			return err
		}
		out, err = s.Sample(*count, rng)
		if err != nil {
			return err
		}
	} else if out, err = t.Sample(r, *count, rng); err != nil {
		return err
	}
	for _, s := range out {
		fmt.Fprintln(stdout, experiments.FormatSymbols(s, meta.Alphabet))
	}
	return nil
}

func runUMPSProb(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("umps prob")
	model := fs.String("model", "", "model file or run directory")
	regex := fs.String("regex", "", "regular expression: print log P_*(s in R)")
	str := fs.String("string", "", "a string: print log P_n(s) and log P_*(s)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if (*regex == "") == (*str == "") {
		return usagef("give exactly one of -regex and -string")
	}
	m, meta, err := loadModel(*model)
	if err != nil {
		return err
	}
	t, err := umps.NewTransfer(m)
	if err != nil {
		return err
	}
	res := map[string]any{}
	if *regex != "" {
		r, err := umps.CompileRegex(*regex, strings.Join(meta.Alphabet, ""))
		if err != nil {
			return flagError("-regex", err)
		}
		lp, err := t.LogProbRegex(r)
		if err != nil {
			return err
		}
		res["regex"], res["log_prob"], res["ambiguous"] = *regex, lp, r.Ambiguous()
	} else {
		s, err := experiments.ParseSymbols(*str, meta.Alphabet)
		if err != nil {
			return flagError("-string", err)
		}
		ln, err := m.LogProbN(s)
		if err != nil {
			return err
		}
		res["string"], res["log_prob_n"] = *str, ln
		if ls, err := t.LogProbStar(s); err == nil {
			res["log_prob_star"] = ls
		} else {
			res["log_prob_star_error"] = err.Error()
		}
	}
	if *asJSON {
		return writeJSONLine(stdout, res)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, k := range []string{"regex", "string", "ambiguous", "log_prob", "log_prob_n", "log_prob_star", "log_prob_star_error"} {
		if v, ok := res[k]; ok {
			fmt.Fprintf(tw, "%s\t%v\n", k, v)
		}
	}
	return tw.Flush()
}

func runUMPSComplete(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("umps complete")
	model := fs.String("model", "", "model file or run directory")
	prefix := fs.String("prefix", "", "the symbols before the missing one")
	suffix := fs.String("suffix", "", "the symbols after the missing one")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	m, meta, err := loadModel(*model)
	if err != nil {
		return err
	}
	p, err := experiments.ParseSymbols(*prefix, meta.Alphabet)
	if err != nil {
		return usagef("-prefix: %v", err)
	}
	s, err := experiments.ParseSymbols(*suffix, meta.Alphabet)
	if err != nil {
		return usagef("-suffix: %v", err)
	}
	t, err := umps.NewTransfer(m)
	if err != nil {
		return err
	}
	dist, err := t.Complete(p, s)
	if err != nil {
		return err
	}
	if *asJSON {
		d := map[string]float64{}
		for c, v := range dist {
			d[meta.Alphabet[c]] = v
		}
		return writeJSONLine(stdout, map[string]any{"prefix": *prefix, "suffix": *suffix, "distribution": d})
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "symbol\tprobability")
	for c, v := range dist {
		fmt.Fprintf(tw, "%s\t%.6f\n", meta.Alphabet[c], v)
	}
	return tw.Flush()
}

func runUMPSEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("umps eval")
	model := fs.String("model", "", "model file or run directory")
	task := fs.String("task", "", "language: tomita1..tomita7, tomita3-adjacent or motzkin (default: the model's training data)")
	n := fs.Int("len", 16, "string length")
	count := fs.Int("samples", 1000, "number of samples (and of completions for motzkin)")
	seed := fs.Uint64("seed", 1, "random seed")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *n < 0 || *count < 1 {
		return usagef("-len must be >= 0 and -samples >= 1")
	}
	m, meta, err := loadModel(*model)
	if err != nil {
		return err
	}
	if *task == "" {
		*task = meta.Data
	}
	if _, _, err := experiments.Membership(*task); err != nil {
		return usagef("-task: %v", err)
	}
	if err := experiments.CheckAlphabet(*task, meta.Alphabet); err != nil {
		return flagError("-task", err)
	}
	if err := umpsEvalCheck(*n, *count, m.Bond, m.Symbols, *task == "motzkin"); err != nil {
		return err
	}
	start := time.Now()
	ev, err := experiments.EvalUMPS(m, *task, *n, *count, rand.New(rand.NewPCG(*seed, 0x6576616c)))
	if err != nil {
		return err
	}
	ev.Seconds = time.Since(start).Seconds()
	if *asJSON {
		return writeJSONLine(stdout, ev)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "task\t%s\nbond\t%d\nlen\t%d\nsamples\t%d\nvalid %%\t%.2f\n", ev.Task, ev.Bond, ev.Len, ev.Samples, ev.ValidPercent)
	if ev.CompletionPercent != nil {
		fmt.Fprintf(tw, "completion %%\t%.2f\n", *ev.CompletionPercent)
	}
	return tw.Flush()
}
