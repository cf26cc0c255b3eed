package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rtnlab/rtn/runs"
	"github.com/rtnlab/rtn/spectral"
)

// maxSpectralN bounds -n: the dense methods hold an N x d^(2L+1) design
// matrix.
const maxSpectralN = 1_000_000

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
	var spec runs.SpectralSpec
	fs.StringVar(&spec.Task, "task", "random2rnn", "target: random2rnn or addition")
	fs.IntVar(&spec.N, "n", 1000, "training examples of each length L, 2L, 2L+1")
	fs.Float64Var(&spec.Noise, "noise", 0, "standard deviation of the output noise")
	fs.IntVar(&spec.L, "L", 2, "prefix length L (training lengths L, 2L, 2L+1)")
	fs.IntVar(&spec.Rank, "rank", 0, "states of the learned 2-RNN (0: the target's, 5 or 2; with -data: chosen on the validation part, or by the singular-value gap)")
	fs.StringVar(&spec.Method, "method", "tiht", "recovery method: "+strings.Join(runs.SpectralMethods, ", "))
	seed := fs.Uint64("seed", 1, "random seed (target and data)")
	fs.IntVar(&spec.D, "d", 3, "input dimension of the random 2-RNN")
	fs.IntVar(&spec.P, "p", 2, "output dimension of the random 2-RNN")
	fs.IntVar(&spec.States, "states", 5, "states of the random 2-RNN")
	fs.IntVar(&spec.Epochs, "epochs", 100, "maximum training epochs of tiht+sgd and lstm")
	sweep := fs.Bool("sweep", false, "run the paper's grid (Figures 3-5) and write CSV and PNG files to -out")
	ns := fs.String("ns", "20,40,80,160,320,640,1280,2560,5000,10000,20000", "-sweep: training sizes")
	noises := fs.String("noises", "0,0.1,1", "-sweep: noise levels")
	methods := fs.String("methods", "ls,nuclear,iht,tiht,tiht+sgd,lstm", "-sweep: methods")
	seeds := fs.Int("seeds", 5, "-sweep: seeds per point (seed, seed+1, ...)")
	ranks := fs.String("ranks", "2,3,4,5", "-sweep: ranks of the rank mis-specification runs (addition, noise 1, tiht)")
	out := fs.String("out", "out/spectral", "-sweep: output directory; otherwise, when given, the learned model (DIR or FILE.npz, with its .json)")
	data := fs.String("data", "", "learn from this sequence-data file (.npz or .csv, see docs/spectral-data.md) instead of -task; saved models: rtn spectral predict|finetune -h")
	fs.StringVar(&spec.SaveData, "save-data", "", "write the built-in task's data (train and test) to this .npz or .csv file")
	validFrac := fs.Float64("valid-frac", 0.1, "-data with no split of its own: validation fraction")
	testFrac := fs.Float64("test-frac", 0.1, "-data with no split of its own: test fraction")
	quiet := fs.Bool("quiet", false, "-sweep: no progress lines on stderr")
	resume := fs.Bool("resume", false, "-sweep: keep the runs already in -out's CSV files and run only the missing grid points")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	spec.Seed = *seed
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
			ValidFrac: *validFrac, TestFrac: *testFrac, Epochs: spec.Epochs}
		if set["out"] {
			ds.SaveModel = *out
		}
		return runSpectralData(ds, set, *asJSON, stdout)
	}
	if set["out"] && mode == modeSingle {
		if spec.Method == "lstm" {
			return usagef("-out saves a learned 2-RNN; -method lstm has none")
		}
		spec.SaveModel = *out
	}
	if err := checkSpectralFlags(&spec); err != nil {
		return err
	}
	if mode == modeSweep {
		sw, rankList, err := parseSweep(spec, sweepLists{*ns, *noises, *methods, *ranks}, *seeds, *out)
		if err != nil {
			return err
		}
		if err := checkEpochsUse(set, sw.Methods, "when -methods includes", "tiht+sgd", "lstm"); err != nil {
			return err
		}
		if err := checkDirOut("-out", *out); err != nil {
			return err
		}
		if err := checkSweepSize(spec, sw); err != nil {
			return err
		}
		return runSpectralSweep(sw, rankList, *out, *quiet, *resume, *asJSON, stdout, stderr)
	}
	if err := checkEpochsUse(set, []string{spec.Method}, "to -method", "tiht+sgd", "lstm"); err != nil {
		return err
	}
	if ext := strings.ToLower(filepath.Ext(spec.SaveData)); spec.SaveData != "" && ext != ".npz" && ext != ".csv" {
		return usagef("-save-data must name a .npz or .csv file, got %q", spec.SaveData)
	}
	if err := needMemory(spectralBytes(spec)); err != nil {
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
	warnUnderdetermined(stderr, spec)
	rep, err := runs.RunSpectral(spec)
	if err != nil {
		return err
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

func checkSpectralFlags(s *runs.SpectralSpec) error {
	switch {
	case s.Task != "random2rnn" && s.Task != "addition":
		return usagef("-task must be random2rnn or addition, got %q", s.Task)
	case !contains(runs.SpectralMethods, s.Method):
		return usagef("-method must be one of %s, got %q", strings.Join(runs.SpectralMethods, ", "), s.Method)
	case s.N < 1 || s.N > maxSpectralN:
		return usagef("-n must be in [1, %d], got %d", maxSpectralN, s.N)
	case !(s.Noise >= 0) || math.IsInf(s.Noise, 0):
		return usagef("-noise must be a finite number >= 0, got %g", s.Noise)
	case s.L < 1 || s.L > 8:
		return usagef("-L must be in [1, 8], got %d", s.L)
	case s.Rank < 0:
		return usagef("-rank must be >= 1 (or 0 for the target's), got %d", s.Rank)
	case s.D < 1 || s.P < 1 || s.States < 1:
		return usagef("-d, -p and -states must be >= 1, got %d, %d, %d", s.D, s.P, s.States)
	case s.Epochs < 1:
		return usagef("-epochs must be >= 1, got %d", s.Epochs)
	case s.Seed == 0:
		return usagef("-seed must be >= 1")
	}
	if s.Task == "addition" && (s.D != 3 || s.P != 2 || s.States != 5) {
		return usagef("-d, -p and -states apply to -task random2rnn only")
	}
	d := s.D
	if s.Task == "addition" {
		d = 3
	}
	if dl := math.Pow(float64(d), float64(s.L)); s.Rank > 0 && float64(s.Rank) > dl {
		return usagef("-rank %d is larger than the Hankel matricisation allows (d^L = %g)", s.Rank, dl)
	}
	if dense, big := designTooLarge(*s, d); big {
		return fmt.Errorf("the %s method needs an N x d^(2L+1) = %d x %g design matrix, too large: use -method tt-als or a smaller -n", s.Method, s.N, dense)
	}
	return nil
}

// designTooLarge reports the columns d^(2L+1) of the dense design matrix
// of s over d inputs, and whether its N rows pass the dense methods' cap.
func designTooLarge(s runs.SpectralSpec, d int) (float64, bool) {
	dense := math.Pow(float64(d), float64(2*s.L+1))
	return dense, s.Method != "tt-als" && s.Method != "tt-tiht" && dense*float64(s.N) > 1<<26
}

// checkSweepSize applies the size checks of one run to the largest -ns of
// each of the sweep's methods, before the grid starts.
func checkSweepSize(base runs.SpectralSpec, sw runs.SweepSpec) error {
	s := base
	s.N = slices.Max(sw.Ns)
	for _, m := range sw.Methods {
		s.Method = m
		if dense, big := designTooLarge(s, max(s.D, 3)); big {
			return fmt.Errorf("-ns %d with -methods %s needs an N x d^(2L+1) = %d x %g design matrix, too large: use tt-als or smaller -ns", s.N, m, s.N, dense)
		}
		if err := needMemory(spectralBytes(s)); err != nil {
			return err
		}
	}
	return nil
}

// sweepLists holds the comma-separated grid flags of -sweep.
type sweepLists struct{ ns, noises, methods, ranks string }

// parseSweep reads the grid flags of -sweep into a grid of the paper's
// two tasks (and the ranks of the rank runs) with the seed and epochs of
// base.
func parseSweep(base runs.SpectralSpec, l sweepLists, seeds int, out string) (runs.SweepSpec, []int, error) {
	if seeds < 1 {
		return runs.SweepSpec{}, nil, usagef("-seeds must be >= 1, got %d", seeds)
	}
	if out == "" {
		return runs.SweepSpec{}, nil, usagef("-sweep needs -out")
	}
	sw := runs.SweepSpec{Tasks: []string{"random2rnn", "addition"}, Seeds: seeds, Seed: base.Seed, Epochs: base.Epochs}
	for _, f := range strings.Split(l.ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxSpectralN {
			return runs.SweepSpec{}, nil, usagef("-ns: %q is not a training size in [1, %d]", f, maxSpectralN)
		}
		sw.Ns = append(sw.Ns, n)
	}
	for _, f := range strings.Split(l.noises, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return runs.SweepSpec{}, nil, usagef("-noises: %q is not a finite number >= 0", f)
		}
		sw.Noises = append(sw.Noises, v)
	}
	for _, f := range strings.Split(l.methods, ",") {
		m := strings.TrimSpace(f)
		if !contains(runs.SpectralMethods, m) {
			return runs.SweepSpec{}, nil, usagef("-methods: unknown method %q (known: %s)", m, strings.Join(runs.SpectralMethods, ", "))
		}
		sw.Methods = append(sw.Methods, m)
	}
	var rankList []int
	for _, f := range strings.Split(l.ranks, ",") {
		r, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || r < 1 || r > 9 {
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
	"ranks": modeSweep, "resume": modeSweep, "quiet": modeSweep,
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
