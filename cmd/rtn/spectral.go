package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rtnlab/rtn/runs"
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
	var c runs.SpectralCommand
	var lists sweepLists
	// The flags leave their field unset (zero) unless given: the command
	// refuses a field of a run it does not choose (runs.SpectralCommand).
	fs.StringVar(&c.Single.Task, "task", "", fmt.Sprintf("target: random2rnn or addition (default %s)", d.Task))
	fs.IntVar(&c.Single.N, "n", 0, fmt.Sprintf("training examples of each length L, 2L, 2L+1 (default %d)", d.N))
	fs.Float64Var(&c.Single.Noise, "noise", 0, "standard deviation of the output noise")
	fs.IntVar(&c.Single.L, "L", 0, fmt.Sprintf("prefix length L (training lengths L, 2L, 2L+1) (default %d)", d.L))
	fs.IntVar(&c.Single.Rank, "rank", 0, "states of the learned 2-RNN (0: the target's, 5 or 2; with -data: chosen on the validation part, or by the singular-value gap)")
	fs.StringVar(&c.Single.Method, "method", "", fmt.Sprintf("recovery method: %s (default %s)", strings.Join(runs.SpectralMethods, ", "), d.Method))
	fs.Uint64Var(&c.Single.Seed, "seed", 0, fmt.Sprintf("random seed (target and data) (default %d)", d.Seed))
	fs.IntVar(&c.Single.D, "d", 0, fmt.Sprintf("input dimension of the random 2-RNN (default %d)", d.D))
	fs.IntVar(&c.Single.P, "p", 0, fmt.Sprintf("output dimension of the random 2-RNN (default %d)", d.P))
	fs.IntVar(&c.Single.States, "states", 0, fmt.Sprintf("states of the random 2-RNN (default %d)", d.States))
	fs.IntVar(&c.Single.Epochs, "epochs", 0, fmt.Sprintf("maximum training epochs of tiht+sgd and lstm, the methods that train for epochs (default %d)", runs.SpectralSpec{Method: "lstm"}.WithDefaults().Epochs))
	fs.BoolVar(&c.Sweep, "sweep", false, "run the paper's grid (Figures 3-5) and write CSV and PNG files to -out")
	fs.StringVar(&lists.ns, "ns", "", "-sweep: training sizes (default "+joinInts(dsw.Ns)+")")
	fs.StringVar(&lists.noises, "noises", "", "-sweep: noise levels (default "+joinFloats(dsw.Noises)+")")
	fs.StringVar(&lists.methods, "methods", "", "-sweep: methods (default "+strings.Join(dsw.Methods, ",")+")")
	fs.IntVar(&c.Grid.Seeds, "seeds", 0, fmt.Sprintf("-sweep: seeds per point (seed, seed+1, ...) (default %d)", dsw.Seeds))
	fs.StringVar(&lists.ranks, "ranks", "", "-sweep: ranks of the rank mis-specification runs (addition, noise 1, tiht) (default "+joinInts(c.RankSpec().Ranks)+")")
	fs.StringVar(&c.Out, "out", "", "-sweep: output directory (default "+runs.SpectralCommand{Sweep: true}.WithDefaults().Out+"); otherwise, when given, the learned model (DIR or FILE.npz, with its .json)")
	fs.StringVar(&c.Data.Data, "data", "", "learn from this sequence-data file (.npz or .csv, see docs/spectral-data.md) instead of -task; saved models: rtn spectral predict|finetune -h")
	fs.StringVar(&c.Single.SaveData, "save-data", "", "write the built-in task's data (train and test) to this .npz or .csv file")
	fs.Float64Var(&c.Data.ValidFrac, "valid-frac", 0, fmt.Sprintf("-data with no split of its own: validation fraction (default %g; 0: none)", dd.ValidFrac))
	fs.Float64Var(&c.Data.TestFrac, "test-frac", 0, fmt.Sprintf("-data with no split of its own: test fraction (default %g; 0: none)", dd.TestFrac))
	quiet := fs.Bool("quiet", false, "no progress lines on stderr")
	fs.BoolVar(&c.Resume, "resume", false, "-sweep: keep the runs already in -out's CSV files and run only the missing grid points")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if err := lists.apply(&c.Grid); err != nil {
		return err
	}
	// A flag of another run is refused whatever its value, 0 included.
	modes := c
	for _, f := range []struct {
		name string
		v    *int
	}{{"n", &modes.Single.N}, {"L", &modes.Single.L}, {"d", &modes.Single.D}, {"p", &modes.Single.P}, {"states", &modes.Single.States},
		{"seeds", &modes.Grid.Seeds}} {
		givenZeroIsOff(fs, f.name, f.v)
	}
	givenZeroIsOff(fs, "valid-frac", &modes.Data.ValidFrac)
	givenZeroIsOff(fs, "test-frac", &modes.Data.TestFrac)
	if err := modes.CheckModes(); err != nil {
		return specError(err)
	}
	// The flags given override the command's defaults: a value given, 0
	// or "" included, is the one Validate checks.
	c = c.WithDefaults()
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := lists.apply(&c.Grid); err != nil {
		return err
	}
	givenZeroIsOff(fs, "valid-frac", &c.Data.ValidFrac)
	givenZeroIsOff(fs, "test-frac", &c.Data.TestFrac)
	if err := c.Validate(); err != nil {
		return specError(err)
	}
	switch {
	case c.Data.Data != "":
		ds := c.DataSpec()
		ds.Progress = progressTo(stderr, *quiet)
		return runSpectralData(ds, *asJSON, stdout)
	case c.Sweep:
		sw := c.GridSpec()
		if err := needEstimate(sw.EstimateMemory()); err != nil {
			return err
		}
		return runSpectralSweep(sw, c.RankSpec(), c.Out, *quiet, c.Resume, *asJSON, stdout, stderr)
	}
	spec := c.SingleSpec()
	if err := needEstimate(spec.EstimateMemory()); err != nil {
		return err
	}
	if err := spec.CheckOutputs(); err != nil {
		return specError(err)
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

// apply reads the grid flags given into g (a flag not given leaves its
// field as it is: unset, the paper's grid).
func (l sweepLists) apply(g *runs.SweepSpec) error {
	return firstError(
		listOf(&g.Ns, l.ns, "-ns", fmt.Sprintf("a training size in [1, %d]", runs.MaxSpectralN), strconv.Atoi),
		listOf(&g.Noises, l.noises, "-noises", "a finite number >= 0", func(f string) (float64, error) { return strconv.ParseFloat(f, 64) }),
		listOf(&g.Methods, l.methods, "-methods", "", func(f string) (string, error) { return f, nil }),
		listOf(&g.Ranks, l.ranks, "-ranks", "a rank in [1, 9] (d^L for the addition task)", strconv.Atoi))
}

// listOf reads a comma-separated list into dst ("" leaves it: not
// given); what says what an item must be.
func listOf[T any](dst *[]T, s, flag, what string, read func(string) (T, error)) error {
	if s == "" {
		return nil
	}
	var out []T
	for _, f := range strings.Split(s, ",") {
		v, err := read(strings.TrimSpace(f))
		if err != nil {
			return usagef("%s: %q is not %s", flag, f, what)
		}
		out = append(out, v)
	}
	*dst = out
	return nil
}

// firstError returns the first error that is not nil.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// runSpectralSweep runs the grid sw, then the rank runs of rankList, and
// writes their CSV files and plots under out.
func runSpectralSweep(sw, rk runs.SweepSpec, out string, quiet, resume, asJSON bool, stdout, stderr io.Writer) error {
	if !quiet {
		sw.Log, rk.Log = stderr, stderr
	}
	reps, ranks, err := runs.SpectralSweepDir(sw, rk, out, resume)
	if err != nil {
		return specError(err)
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"runs": reps, "ranks": ranks})
	}
	fmt.Fprintf(stdout, "%d runs and %d rank runs written under %s (sweep.csv, ranks.csv, sweep_*.png, ranks_*.png)\n", len(reps), len(ranks), out)
	return nil
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
