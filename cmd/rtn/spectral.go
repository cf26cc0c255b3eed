package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rtnlab/rtn/runs"
	"github.com/rtnlab/rtn/spectral"
)

func runSpectral(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "predict":
			return runSpectralPredict(args[1:], stdout, stderr)
		case "finetune":
			return runSpectralFinetune(args[1:], stdout, stderr)
		}
	}
	fs := newFlags("spectral")
	d, dsw, dd := runs.SpectralSpec{}.WithDefaults(), runs.SweepSpec{}.WithDefaults(), runs.SpectralDataSpec{}.WithDefaults()
	spec := runs.SpectralSpec{TestN: d.TestN}
	fs.StringVar(&spec.Task, "task", d.Task, "target: random2rnn or addition")
	fs.IntVar(&spec.N, "n", d.N, "training examples of each length L, 2L, 2L+1")
	fs.Float64Var(&spec.Noise, "noise", 0, "standard deviation of the output noise")
	fs.IntVar(&spec.L, "L", d.L, "prefix length L (training lengths L, 2L, 2L+1)")
	fs.IntVar(&spec.Rank, "rank", 0, "states of the learned 2-RNN (0: the target's, 5 or 2; with -data: chosen on the validation part, or by the singular-value gap)")
	fs.StringVar(&spec.Method, "method", d.Method, "recovery method: "+strings.Join(runs.SpectralMethods, ", "))
	fs.Uint64Var(&spec.Seed, "seed", d.Seed, "random seed (target and data)")
	fs.IntVar(&spec.D, "d", d.D, "input dimension of the random 2-RNN")
	fs.IntVar(&spec.P, "p", d.P, "output dimension of the random 2-RNN")
	fs.IntVar(&spec.States, "states", d.States, "states of the random 2-RNN")
	fs.IntVar(&spec.Epochs, "epochs", d.Epochs, "maximum training epochs of tiht+sgd and lstm")
	sweep := fs.Bool("sweep", false, "run the paper's grid (Figures 3-5) and write CSV and PNG files to -out")
	ns := fs.String("ns", joinInts(dsw.Ns), "-sweep: training sizes")
	noises := fs.String("noises", joinFloats(dsw.Noises), "-sweep: noise levels")
	methods := fs.String("methods", strings.Join(dsw.Methods, ","), "-sweep: methods")
	seeds := fs.Int("seeds", dsw.Seeds, "-sweep: seeds per point (seed, seed+1, ...)")
	ranks := fs.String("ranks", "2,3,4,5", "-sweep: ranks of the rank mis-specification runs (addition, noise 1, tiht)")
	out := fs.String("out", "out/spectral", "-sweep: output directory; otherwise, when given, the learned model (DIR or FILE.npz, with its .json)")
	data := fs.String("data", "", "learn from this sequence-data file (.npz or .csv, see docs/spectral-data.md) instead of -task; saved models: rtn spectral predict|finetune -h")
	fs.StringVar(&spec.SaveData, "save-data", "", "write the built-in task's data (train and test) to this .npz or .csv file")
	validFrac := fs.Float64("valid-frac", dd.ValidFrac, "-data with no split of its own: validation fraction")
	testFrac := fs.Float64("test-frac", dd.TestFrac, "-data with no split of its own: test fraction")
	quiet := fs.Bool("quiet", false, "no progress lines on stderr")
	resume := fs.Bool("resume", false, "-sweep: keep the runs already in -out's CSV files and run only the missing grid points")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	mode := modeSingle
	switch {
	case *data != "" && *sweep:
		return usagef("-sweep cannot be used with -data (the data file replaces the built-in task)")
	case *data != "":
		mode = modeData
	case *sweep:
		mode = modeSweep
	}
	if err := checkSpectralModes(mode, set); err != nil {
		return err
	}
	if mode == modeData {
		ds := runs.SpectralDataSpec{Data: *data, Method: spec.Method, Rank: spec.Rank, Seed: spec.Seed,
			ValidFrac: *validFrac, TestFrac: *testFrac, Epochs: spec.Epochs, MaxRank: dd.MaxRank, Progress: progressTo(stderr, *quiet)}
		zeroIsOff(&ds.ValidFrac, &ds.TestFrac)
		if set["out"] {
			ds.SaveModel = *out
		}
		return runSpectralData(ds, set, *asJSON, stdout)
	}
	if set["out"] && mode == modeSingle {
		spec.SaveModel = *out
	}
	if mode == modeSweep {
		sw, rankList, err := parseSweep(spec, sweepLists{*ns, *noises, *methods, *ranks}, *seeds, *out)
		if err != nil {
			return err
		}
		rk := sw
		rk.Ranks = rankList
		for _, s := range []runs.SweepSpec{sw, rk} {
			if err := s.Validate(); err != nil {
				return specError(err)
			}
		}
		if err := checkEpochsUse(set, sw.Methods, "when -methods includes", "tiht+sgd", "lstm"); err != nil {
			return err
		}
		if err := checkDirOut("-out", *out); err != nil {
			return err
		}
		if err := needEstimate(sw.EstimateMemory()); err != nil {
			return err
		}
		return runSpectralSweep(sw, rankList, *out, *quiet, *resume, *asJSON, stdout, stderr)
	}
	if err := spec.Validate(); err != nil {
		return specError(err)
	}
	if err := checkEpochsUse(set, []string{spec.Method}, "to -method", "tiht+sgd", "lstm"); err != nil {
		return err
	}
	if err := needEstimate(spec.EstimateMemory()); err != nil {
		return err
	}
	if err := checkModelOut("-out", spec.SaveModel); err != nil {
		return err
	}
	if err := checkOutFile("-save-data", spec.SaveData); err != nil {
		return err
	}
	if np, _ := spectral.ModelPaths(spec.SaveModel); spec.SaveModel != "" && sameFile(spec.SaveData, np) {
		return usagef("-save-data %s is also the model file of -out: one would overwrite the other", spec.SaveData)
	}
	if min, what := spec.Underdetermined(); spec.N < min {
		fmt.Fprintf(stderr, "rtn: warning: -n %d is below the %d examples the %s method needs (%s): the fit is underdetermined\n", spec.N, min, spec.Method, what)
	}
	spec.Progress = progressTo(stderr, *quiet)
	rep, err := runs.RunSpectral(spec)
	if err != nil {
		return specError(err)
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "task\t%s (L = %d, noise std %g, N = %d per length)\n", rep.Task, spec.L, rep.Noise, rep.N)
	fmt.Fprintf(tw, "method\t%s, rank %d\n", rep.Method, rep.Rank)
	fmt.Fprintf(tw, "train MSE\t%.6g (length %d)\n", float64(rep.TrainMSE), 2*spec.L+1)
	fmt.Fprintf(tw, "test MSE\t%.6g (length 6, noiseless)\n", float64(rep.TestMSE))
	fmt.Fprintf(tw, "test output variance\t%.6g\n", float64(rep.TestOutputVar))
	if rep.ZeroFallback {
		fmt.Fprintf(tw, "zero fallback\tyes: %s\n", rep.Reason)
	}
	fmt.Fprintf(tw, "seconds\t%.2f\n", rep.Seconds)
	return tw.Flush()
}

// sweepLists holds the comma-separated grid flags of -sweep.
type sweepLists struct{ ns, noises, methods, ranks string }

// parseSweep reads the grid flags of -sweep into a grid of the paper's
// two tasks (and the ranks of the rank runs) with the seed and epochs of
// base.
func parseSweep(base runs.SpectralSpec, l sweepLists, seeds int, out string) (runs.SweepSpec, []int, error) {
	if out == "" {
		return runs.SweepSpec{}, nil, usagef("-sweep needs -out")
	}
	sw := runs.SweepSpec{Tasks: []string{"random2rnn", "addition"}, Seeds: seeds, Seed: base.Seed, Epochs: base.Epochs}
	for _, f := range strings.Split(l.ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return runs.SweepSpec{}, nil, usagef("-ns: %q is not a training size in [1, %d]", f, runs.MaxSpectralN)
		}
		sw.Ns = append(sw.Ns, n)
	}
	for _, f := range strings.Split(l.noises, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return runs.SweepSpec{}, nil, usagef("-noises: %q is not a finite number >= 0", f)
		}
		sw.Noises = append(sw.Noises, v)
	}
	for _, f := range strings.Split(l.methods, ",") {
		sw.Methods = append(sw.Methods, strings.TrimSpace(f))
	}
	var rankList []int
	for _, f := range strings.Split(l.ranks, ",") {
		r, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return runs.SweepSpec{}, nil, usagef("-ranks: %q is not a rank in [1, 9] (d^L for the addition task)", f)
		}
		rankList = append(rankList, r)
	}
	return sw, rankList, nil
}

// runSpectralSweep runs the grid sw, then the rank runs of rankList, and
// writes their CSV files and plots under out.
func runSpectralSweep(sw runs.SweepSpec, rankList []int, out string, quiet, resume, asJSON bool, stdout, stderr io.Writer) error {
	if !quiet {
		sw.Log = stderr
	}
	lock, err := runs.LockOutputs([]string{out}, nil)
	if err != nil {
		return err
	}
	defer lock.Release()
	sweepCSV, ranksCSV := filepath.Join(out, "sweep.csv"), filepath.Join(out, "ranks.csv")
	if resume {
		var err error
		if sw.Done, err = runs.ReadSweep(sweepCSV); err != nil {
			return err
		}
	}
	sw.After = func(r []runs.SpectralReport) error { return runs.WriteSweepCSV(sweepCSV, r) }
	reps, err := runs.SpectralSweep(sw)
	if err != nil {
		return err
	}
	if err := runs.WriteSweep(out, "sweep", reps, false); err != nil {
		return err
	}
	// Figure 5: rank mis-specification on the addition task, noise 1.
	rk := sw
	rk.Tasks, rk.Noises, rk.Ranks, rk.Methods = []string{"addition"}, []float64{1}, rankList, []string{"tiht"}
	rk.Done = nil
	if resume {
		if rk.Done, err = runs.ReadSweep(ranksCSV); err != nil {
			return err
		}
	}
	rk.After = func(r []runs.SpectralReport) error { return runs.WriteSweepCSV(ranksCSV, r) }
	ranks, err := runs.SpectralSweep(rk)
	if err != nil {
		return err
	}
	if err := runs.WriteSweep(out, "ranks", ranks, true); err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"runs": reps, "ranks": ranks})
	}
	fmt.Fprintf(stdout, "%d runs and %d rank runs written under %s (sweep.csv, ranks.csv, sweep_*.png, ranks_*.png)\n", len(reps), len(ranks), out)
	return nil
}

// spectralMode is what one rtn spectral command runs.
type spectralMode int

const (
	// modeSingle is one run of a built-in task.
	modeSingle spectralMode = 1 << iota
	// modeSweep is the paper's grid (-sweep).
	modeSweep
	// modeData is one run on a sequence-data file (-data).
	modeData
)

// String names the modes m in a message.
func (m spectralMode) String() string {
	switch m {
	case modeSingle:
		return "a single built-in run"
	case modeSweep:
		return "-sweep"
	case modeData:
		return "-data"
	case modeSingle | modeData:
		return "single runs (built-in task or -data)"
	}
	return fmt.Sprintf("modes %d", int(m))
}

// spectralFlagModes gives the modes that use each flag of rtn spectral
// that some modes ignore; the flags not listed apply to every mode.
var spectralFlagModes = map[string]spectralMode{
	"task": modeSingle, "n": modeSingle, "noise": modeSingle, "L": modeSingle,
	"d": modeSingle, "p": modeSingle, "states": modeSingle, "save-data": modeSingle,
	"method": modeSingle | modeData, "rank": modeSingle | modeData,
	"ns": modeSweep, "noises": modeSweep, "methods": modeSweep, "seeds": modeSweep,
	"ranks": modeSweep, "resume": modeSweep,
	"valid-frac": modeData, "test-frac": modeData,
}

// spectralFlagTwins pairs a flag with the one that plays its part in
// another mode (-method for one run, -methods for the grid), for the
// hint of a message.
var spectralFlagTwins = map[string]string{
	"n": "ns", "noise": "noises", "method": "methods", "rank": "ranks",
	"ns": "n", "noises": "noise", "methods": "method", "ranks": "rank", "seeds": "seed",
}

// checkSpectralModes refuses the flags given on the command line (set)
// that have no effect in mode, naming them and the mode that uses them.
// When several are wrong, those used by the same modes as the first (in
// alphabetical order) are named together.
func checkSpectralModes(mode spectralMode, set map[string]bool) error {
	var home spectralMode
	var bad []string
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if appliesIn(name, mode) {
			continue
		}
		m := spectralFlagModes[name]
		if home == 0 {
			home = m
		}
		if m == home {
			bad = append(bad, "-"+name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	list := strings.Join(bad, ", ")
	if mode == modeData && home == modeSingle {
		return usagef("%s cannot be used with -data (the data file replaces the built-in task)", list)
	}
	verb, hint := "applies", ""
	if len(bad) > 1 {
		verb = "apply"
	} else if twin, ok := spectralFlagTwins[bad[0][1:]]; ok && appliesIn(twin, mode) {
		hint = fmt.Sprintf(" (did you mean -%s?)", twin)
	}
	return usagef("%s %s to %s only, not to %s%s", list, verb, home, mode, hint)
}

// appliesIn reports whether the flag name has an effect in mode.
func appliesIn(name string, mode spectralMode) bool {
	m, ok := spectralFlagModes[name]
	return !ok || m&mode != 0
}

// checkEpochsUse refuses -epochs (when given, set) unless methods
// include one of users, the methods that train for epochs; how says
// where the methods come from in the message.
func checkEpochsUse(set map[string]bool, methods []string, how string, users ...string) error {
	if !set["epochs"] {
		return nil
	}
	for _, m := range methods {
		if contains(users, m) {
			return nil
		}
	}
	return usagef("-epochs applies only %s %s (got %s)", how, strings.Join(users, " or "), strings.Join(methods, ", "))
}

// joinInts writes a list of integers as a flag value.
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// joinFloats writes a list of numbers as a flag value.
func joinFloats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

// needEstimate checks a spec's memory estimate against the limit.
func needEstimate(est runs.MemoryEstimate, err error) error {
	if err == nil {
		err = runs.CheckMemory(est)
	}
	return specError(err)
}
