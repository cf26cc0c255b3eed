package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/runs"
)

// umpsCommands are the subcommands of rtn umps.
var umpsCommands = map[string]func(args []string, stdout, stderr io.Writer) error{
	"train":    runUMPSTrain,
	"sample":   runUMPSSample,
	"prob":     runUMPSProb,
	"complete": runUMPSComplete,
	"eval":     runUMPSEval,
	"score":    runUMPSScore,
}

func runUMPS(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("rtn umps: want a subcommand: complete, eval, prob, sample, score or train")
	}
	if h := args[0]; h == "-h" || h == "-help" || h == "--help" || h == "help" {
		fmt.Fprintln(stdout, "usage: rtn umps <train|sample|prob|complete|eval|score> [flags] (rtn umps <subcommand> -h lists its flags)")
		return nil
	}
	f, ok := umpsCommands[args[0]]
	if !ok {
		return usagef("rtn umps: unknown subcommand %q (want complete, eval, prob, sample, score or train)", args[0])
	}
	return f(args[1:], stdout, stderr)
}

func writeJSONLine(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

func runUMPSTrain(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("umps train")
	var (
		spec   runs.UMPSSpec
		str    umpsTrainStrings
		quiet  bool
		asJSON bool
	)
	// The numeric flags leave their field unset (0) unless given: the
	// spec's defaults depend on -format (runs.UMPSSpec.WithDefaults).
	d, fd := runs.UMPSSpec{}.WithDefaults(), runs.UMPSSpec{Format: new(datasets.StringFormat)}.WithDefaults()
	def := func(v, file any) string {
		if file == runs.Off {
			file = 0
		}
		return fmt.Sprintf("default %v, with -format %v", v, file)
	}
	fs.StringVar(&spec.Data, "data", "", fmt.Sprintf("tomita1..tomita7, tomita3-adjacent, motzkin, or a file of strings (see -format) (default %s)", d.Data))
	fs.StringVar(&str.format, "format", "", "read -data as a string file: lines (white-space separated symbols), pautomac or spice (default: one string per line, one character per symbol)")
	fs.StringVar(&str.alphabet, "alphabet", "", "with -format lines: the symbols, separated by commas (default: the tokens of the file)")
	fs.Float64Var(&spec.ValidFrac, "valid-frac", 0, fmt.Sprintf("with -format: fraction of the file's strings held out for validation, drawn by -seed (0: %g)", fd.ValidFrac))
	fs.StringVar(&str.bond, "bond", "", fmt.Sprintf("bond dimension D, or auto: the rank rtn wfa learn selects on the file, at least 20, or 64 when that rank is the largest it tries (%s)", def(d.Bond, autoName(fd.Bond, runs.BondAuto))))
	fs.StringVar(&str.growFrom, "grow-from", "", "train first at this bond dimension and grow the trained core into -bond's, below it (with -bond auto: when the chosen D is above it; 0: start at -bond's; auto: with -bond auto, 20 when the rule picks 64, else 0) ("+def(autoName(d.GrowFrom, runs.GrowAuto), autoName(fd.GrowFrom, runs.GrowAuto))+")")
	fs.Float64Var(&spec.GrowLR, "grow-lr", 0, "Adam's learning rate for the grown model, with -grow-from (0: -lr's / 100)")
	fs.StringVar(&str.norm, "norm", "", fmt.Sprintf("normalisation: n (per length, P_n) or star (all lengths, P_*) (%s)", def(*d.Norm, *fd.Norm)))
	fs.StringVar(&str.init, "init", "", "core initialisation: identity (near-identity) or normal (N(0, 1/D)) (default "+umpsInitName(d.Init)+")")
	fs.IntVar(&spec.BalanceEpochs, "balance", 0, fmt.Sprintf("also train each restart after this many epochs of minibatches with equally many strings of each length (on P_n, also before -norm star), keep the better by validation NLL (0: the paper's protocol only) (%s)", def(d.BalanceEpochs, fd.BalanceEpochs)))
	fs.IntVar(&spec.NTrain, "train", 0, fmt.Sprintf("training strings (built-in languages) (default %d)", d.NTrain))
	fs.IntVar(&spec.NValid, "valid", 0, fmt.Sprintf("validation strings (built-in languages) (default %d)", d.NValid))
	fs.IntVar(&spec.Epochs, "epochs", 0, fmt.Sprintf("maximum epochs (early stopping may end sooner) (%s)", def(d.Epochs, fd.Epochs)))
	fs.IntVar(&spec.BatchSize, "batch", 0, fmt.Sprintf("strings per minibatch (%s)", def(d.BatchSize, fd.BatchSize)))
	fs.Float64Var(&spec.LR, "lr", 0, fmt.Sprintf("Adam's learning rate (0: 1e-2, or 1e-1 with -init normal; with -format %g)", fd.LR))
	fs.Float64Var(&spec.InitNoise, "init-noise", 0, fmt.Sprintf("with -init identity: standard deviation of the noise added to the identity (0: 1e-6; with -format %g)", fd.InitNoise))
	fs.IntVar(&spec.Patience, "patience", 0, fmt.Sprintf("epochs without a better validation NLL before the learning rate drops by 10 (the third plateau stops) (%s)", def(d.Patience, fd.Patience)))
	fs.Float64Var(&spec.ClipNorm, "clip", 0, fmt.Sprintf("scale each minibatch gradient down to this norm when it is larger (0: no clipping) (%s)", def(0, fd.ClipNorm)))
	fs.IntVar(&spec.Restarts, "restarts", 0, fmt.Sprintf("initialisations trained on the same data, the best by validation NLL kept (default %d)", d.Restarts))
	fs.Uint64Var(&spec.Seed, "seed", 0, fmt.Sprintf("random seed (default %d)", d.Seed))
	fs.StringVar(&spec.Out, "out", "", "output directory (model.npz, checkpoint.npz, metrics.jsonl)")
	fs.BoolVar(&quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&asJSON, "json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if err := str.apply(fs, &spec); err != nil {
		return err
	}
	// The flags given override the spec's defaults: a value given, 0
	// included, is the one Validate checks.
	spec = spec.WithDefaults()
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := str.apply(fs, &spec); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return specError(err)
	}
	spec.Progress = progressTo(stderr, quiet)
	rep, err := runs.TrainUMPS(spec)
	if err != nil {
		return specError(err)
	}
	reportUMPSClamps(stderr, spec, rep)
	if asJSON {
		return writeJSONLine(stdout, rep)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "task\t%s (%d train, %d valid)\n", rep.Data, rep.NTrain, rep.NValid)
	if rep.SpectralRank > 0 {
		fmt.Fprintf(tw, "bond\t%d (auto: spectral rank %d, %.1f s)\n", rep.Bond, rep.SpectralRank, rep.BondSeconds)
	} else {
		fmt.Fprintf(tw, "bond\t%d\n", rep.Bond)
	}
	if g := rep.Grown; g != nil {
		fmt.Fprintf(tw, "grown from\tbond %d: %d epochs (best %d), valid NLL %.6f nats/string, %.1f s\n", g.Bond, g.Epochs, g.BestEpoch, g.ValidNLL, g.Seconds)
	}
	fmt.Fprintf(tw, "epochs\t%d (best %d)\n", rep.Epochs, rep.BestEpoch)
	fmt.Fprintf(tw, "train NLL\t%.6f nats/string\n", rep.TrainNLL)
	fmt.Fprintf(tw, "valid NLL\t%.6f nats/string\n", rep.ValidNLL)
	fmt.Fprintf(tw, "length model\t%s (valid NLL with lengths %.6f nats/string)\n", rep.LengthModel, rep.ValidNLLAll)
	fmt.Fprintf(tw, "seconds\t%.1f\n", rep.Seconds)
	return tw.Flush()
}

// umpsTrainStrings are the flags of umps train read from strings.
type umpsTrainStrings struct{ format, alphabet, bond, growFrom, norm, init string }

// apply sets the fields of the flags given; a flag whose 0 means none
// (-balance, -clip, -grow-from) given as 0 asks for runs.Off.
func (f umpsTrainStrings) apply(fs *flag.FlagSet, spec *runs.UMPSSpec) error {
	if err := umpsFileFlags(spec, f.format, f.alphabet); err != nil {
		return err
	}
	var err error
	if flagSet(fs, "bond") {
		if spec.Bond, err = autoOrInt(f.bond, runs.BondAuto); err != nil {
			return usagef("-bond must be auto or an integer in [1, %d], got %q", runs.MaxBond, f.bond)
		}
	}
	if flagSet(fs, "grow-from") {
		if spec.GrowFrom, err = autoOrInt(f.growFrom, runs.GrowAuto); err != nil {
			return usagef("-grow-from must be auto, 0 or an integer below -bond, got %q", f.growFrom)
		}
	}
	if flagSet(fs, "norm") {
		n, err := umps.ParseNorm(f.norm)
		if err != nil {
			return usagef("-norm must be n or star, got %q", f.norm)
		}
		spec.Norm = &n
	}
	if flagSet(fs, "init") {
		i, ok := umpsInits[f.init]
		if !ok {
			return usagef("-init must be identity or normal, got %q", f.init)
		}
		spec.Init = i
	}
	givenZeroIsOff(fs, "balance", &spec.BalanceEpochs)
	givenZeroIsOff(fs, "clip", &spec.ClipNorm)
	givenZeroIsOff(fs, "grow-from", &spec.GrowFrom)
	return nil
}

// umpsInits are the names of -init.
var umpsInits = map[string]umps.Init{"identity": umps.NearIdentity, "normal": umps.RandomNormal}

// umpsInitName is the -init name of i.
func umpsInitName(i umps.Init) string {
	for n, v := range umpsInits {
		if v == i {
			return n
		}
	}
	return fmt.Sprint(int(i))
}

// autoName writes v as autoOrInt reads it.
func autoName(v, auto int) string {
	if v == auto {
		return "auto"
	}
	return fmt.Sprint(v)
}

// autoOrInt reads "auto" as auto and an integer as itself.
func autoOrInt(v string, auto int) (int, error) {
	if v == "auto" {
		return auto, nil
	}
	return strconv.Atoi(v)
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// givenString is the value of the string flag name, or nil when it was
// not given on the command line (a spec's "not given", where "" is a
// value).
func givenString(fs *flag.FlagSet, name string, v *string) *string {
	if !flagSet(fs, name) {
		return nil
	}
	return v
}

func runUMPSSample(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("umps sample")
	var spec runs.UMPSSampleSpec
	d := spec.WithDefaults()
	fs.StringVar(&spec.Model, "model", "", "model file or run directory")
	regex := fs.String("regex", "", "regular expression over the model's alphabet (required; '' is the empty string)")
	fs.IntVar(&spec.Count, "n", d.Count, "number of strings")
	fs.StringVar(&spec.Method, "method", d.Method, "auto (Algorithm 1 for an unambiguous regex on a P_* model, else exact), alg1 or exact (DFA sampler, any regex)")
	exact := fs.Bool("exact", false, "same as -method exact")
	fs.Uint64Var(&spec.Seed, "seed", d.Seed, "random seed")
	asJSON := fs.Bool("json", false, "print one JSON object (method, length model, samples)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	spec.Regex = givenString(fs, "regex", regex)
	if *exact {
		if flagSet(fs, "method") && spec.Method != umps.SampleExact.String() {
			return usagef("-exact and -method %s disagree: give one of them", spec.Method)
		}
		spec.Method = umps.SampleExact.String()
	}
	if err := spec.Validate(); err != nil {
		return specError(err)
	}
	res, err := runs.RunUMPSSample(spec)
	if err != nil {
		return specError(err)
	}
	if *asJSON {
		return writeJSONLine(stdout, map[string]any{"regex": *regex, "method": res.Method,
			"length_model": res.LengthModel, "samples": res.Samples})
	}
	fmt.Fprintf(stderr, "rtn umps sample: method %s, length model %s\n", res.Method, res.LengthModel)
	for _, s := range res.Samples {
		fmt.Fprintln(stdout, s)
	}
	return nil
}

func runUMPSProb(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("umps prob")
	var spec runs.UMPSProbSpec
	fs.StringVar(&spec.Model, "model", "", "model file or run directory")
	regex := fs.String("regex", "", "regular expression: print log P(s in R) ('' is the empty string)")
	str := fs.String("string", "", "a string: print log P(s), log P_n(s) and log P_*(s)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	spec.Regex, spec.String = givenString(fs, "regex", regex), givenString(fs, "string", str)
	p, err := runs.RunUMPSProb(spec)
	if err != nil {
		return specError(err)
	}
	res := map[string]any{"length_model": p.LengthModel, "log_prob": p.LogProb}
	if spec.Regex != nil {
		res["regex"], res["ambiguous"] = *regex, p.Ambiguous
	} else {
		res["string"], res["log_prob_n"] = *str, p.LogProbN
		if p.StarError == "" {
			res["log_prob_star"] = p.LogProbStar
		} else {
			res["log_prob_star_error"] = p.StarError
		}
	}
	if *asJSON {
		return writeJSONLine(stdout, res)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, k := range []string{"regex", "string", "length_model", "ambiguous", "log_prob", "log_prob_n", "log_prob_star", "log_prob_star_error"} {
		if v, ok := res[k]; ok {
			fmt.Fprintf(tw, "%s\t%v\n", k, v)
		}
	}
	return tw.Flush()
}

func runUMPSComplete(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("umps complete")
	var spec runs.UMPSCompleteSpec
	fs.StringVar(&spec.Model, "model", "", "model file or run directory")
	fs.StringVar(&spec.Prefix, "prefix", "", "the symbols before the missing one")
	fs.StringVar(&spec.Suffix, "suffix", "", "the symbols after the missing one")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	c, err := runs.RunUMPSComplete(spec)
	if err != nil {
		return specError(err)
	}
	if *asJSON {
		d := map[string]float64{}
		for i, v := range c.Probs {
			d[c.Symbols[i]] = v
		}
		return writeJSONLine(stdout, map[string]any{"prefix": spec.Prefix, "suffix": spec.Suffix, "distribution": d,
			"length_model": c.LengthModel})
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "symbol\tprobability")
	for i, v := range c.Probs {
		fmt.Fprintf(tw, "%s\t%.6f\n", c.Symbols[i], v)
	}
	return tw.Flush()
}

func runUMPSEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("umps eval")
	var spec runs.UMPSEvalSpec
	d := spec.WithDefaults()
	fs.StringVar(&spec.Model, "model", "", "model file or run directory")
	fs.StringVar(&spec.Task, "task", "", "language: tomita1..tomita7, tomita3-adjacent or motzkin (default: the model's training data)")
	fs.IntVar(&spec.Len, "len", d.Len, "string length")
	fs.IntVar(&spec.Samples, "samples", d.Samples, "number of samples (and of completions for motzkin)")
	fs.Uint64Var(&spec.Seed, "seed", d.Seed, "random seed")
	asJSON := fs.Bool("json", false, "print one JSON object")
	quiet := fs.Bool("quiet", false, "no progress line")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return specError(err)
	}
	spec.Progress = progressTo(stderr, *quiet)
	ev, err := runs.RunUMPSEval(spec)
	if err != nil {
		return specError(err)
	}
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

// reportUMPSClamps says on stderr when the built-in language had fewer
// strings than -train or -valid asked for.
func reportUMPSClamps(stderr io.Writer, spec runs.UMPSSpec, rep *runs.UMPSReport) {
	if _, _, err := runs.Membership(spec.Data); err != nil {
		return // a file: split 80/20, -train and -valid do not apply
	}
	if rep.NTrain < spec.NTrain {
		fmt.Fprintf(stderr, "rtn: note: -train %d reduced to %d (80%% of the %s strings up to the maximum length)\n", spec.NTrain, rep.NTrain, spec.Data)
	}
	if rep.NValid < spec.NValid {
		fmt.Fprintf(stderr, "rtn: note: -valid %d reduced to %d (20%% of the %s strings up to the maximum length)\n", spec.NValid, rep.NValid, spec.Data)
	}
}
