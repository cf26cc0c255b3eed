package runs

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/params"
)

// SweepSpec is a grid of spectral runs (the paper's Figures 3-5); its
// unset fields take the paper's grid (WithDefaults).
type SweepSpec struct {
	// Tasks, Ns, Noises and Methods span the grid (see SpectralSpec).
	Tasks   []string
	Ns      []int
	Noises  []float64
	Methods []string
	// Ranks, if set, replaces the default rank by each of these in turn
	// (Figure 5); the method list then applies to every rank.
	Ranks []int
	// Seeds is the number of seeds per point: Seed, Seed+1, ...
	Seeds int
	// Seed is the first seed.
	Seed uint64
	// Epochs caps the training of the methods that train for epochs
	// (tiht+sgd, lstm; SpectralSpec.Epochs). If 0, it will be defaulted to
	// 100 when Methods include one; it is refused when they do not.
	Epochs int
	// Log receives one line per run (nil: none).
	Log io.Writer
	// Done holds runs of an earlier, interrupted sweep (ReadSweep): a
	// grid point with a report here is not run again, and its report
	// is returned in its place.
	Done []SpectralReport
	// After, if set, is called with the reports so far after every run
	// (the CLI rewrites its CSV there, so a killed sweep loses at most
	// one run).
	After func([]SpectralReport) error
}

// sweepKey names one grid point; rank is the requested rank (0: the
// task's default), matched against the reported rank only when a rank
// sweep asks for it.
type sweepKey struct {
	task, method string
	n            int
	noise        float64
	rank         int
	seed         uint64
}

// SpectralSweep runs every combination of the grid.
func SpectralSweep(s SweepSpec) ([]SpectralReport, error) {
	s = s.WithDefaults()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := checkEstimate(s.EstimateMemory()); err != nil {
		return nil, err
	}
	if s.Log == nil {
		s.Log = io.Discard
	}
	ranks := s.Ranks
	if len(ranks) == 0 {
		ranks = []int{0}
	}
	var grid []sweepKey
	for _, task := range s.Tasks {
		for _, noise := range s.Noises {
			for _, rank := range ranks {
				for _, n := range s.Ns {
					for _, method := range s.Methods {
						for k := range s.Seeds {
							grid = append(grid, sweepKey{task, method, n, noise, rank, s.Seed + uint64(k)})
						}
					}
				}
			}
		}
	}
	// Earlier runs outside this grid are kept, so that sweeps over
	// different grids can share one CSV.
	inGrid := map[sweepKey]bool{}
	for _, k := range grid {
		inGrid[k] = true
	}
	res := map[sweepKey]SpectralReport{}
	var extra []SpectralReport
	for _, r := range s.Done {
		k := sweepKey{task: r.Task, method: r.Method, n: r.N, noise: r.Noise, seed: r.Seed}
		if len(s.Ranks) > 0 {
			k.rank = r.Rank
		}
		if inGrid[k] {
			res[k] = r
		} else {
			extra = append(extra, r)
		}
	}
	// all lists the earlier runs outside the grid, then the grid's runs
	// so far in grid order.
	all := func() []SpectralReport {
		out := slices.Clone(extra)
		for _, g := range grid {
			if r, ok := res[g]; ok {
				out = append(out, r)
			}
		}
		return out
	}
	for _, g := range grid {
		if _, ok := res[g]; ok {
			continue
		}
		rep, err := RunSpectral(SpectralSpec{Task: g.task, N: g.n, Noise: g.noise, Rank: g.rank, Method: g.method,
			Seed: g.seed, Epochs: s.runEpochs(g.method)})
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(s.Log, "%s noise %g rank %d N %d %s seed %d: test MSE %.4g (var %.4g)%s %.1fs\n",
			g.task, g.noise, rep.Rank, g.n, g.method, rep.Seed, float64(rep.TestMSE), float64(rep.TestOutputVar),
			map[bool]string{true: " [zero fallback]"}[rep.ZeroFallback], rep.Seconds)
		res[g] = *rep
		if s.After != nil {
			if err := s.After(all()); err != nil {
				return nil, err
			}
		}
	}
	return all(), nil
}

// sweepHeader is the column list of the sweep CSV files.
var sweepHeader = []string{"task", "method", "n", "noise", "rank", "seed", "train_mse", "test_mse", "test_output_var", "zero_fallback", "seconds"}

// WriteSweepCSV writes the runs to path atomically (the format ReadSweep
// reads).
func WriteSweepCSV(path string, reps []SpectralReport) error {
	var rows [][]string
	for _, r := range reps {
		rows = append(rows, []string{r.Task, r.Method, strconv.Itoa(r.N), strconv.FormatFloat(r.Noise, 'g', -1, 64), strconv.Itoa(r.Rank),
			strconv.FormatUint(r.Seed, 10), rtoa(float64(r.TrainMSE)), rtoa(float64(r.TestMSE)), rtoa(float64(r.TestOutputVar)),
			strconv.FormatBool(r.ZeroFallback), report.Ftoa(r.Seconds)})
	}
	return report.WriteCSV(path, sweepHeader, rows)
}

// rtoa formats a result exactly, so that a resumed sweep plots the same
// means as an uninterrupted one.
func rtoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// ReadSweep reads a CSV written by WriteSweepCSV; a missing file is no
// runs, a malformed one an error naming the line.
func ReadSweep(path string) ([]SpectralReport, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 || !slices.Equal(recs[0], sweepHeader) {
		return nil, fmt.Errorf("%s: not a sweep CSV (header %q)", path, strings.Join(sweepHeader, ","))
	}
	var reps []SpectralReport
	for i, rec := range recs[1:] {
		r, err := parseSweepRow(rec)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+2, err)
		}
		reps = append(reps, r)
	}
	return reps, nil
}

func parseSweepRow(rec []string) (SpectralReport, error) {
	var r SpectralReport
	var errs []error
	atoi := func(s string) int {
		v, err := strconv.Atoi(s)
		errs = append(errs, err)
		return v
	}
	atof := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		errs = append(errs, err)
		return v
	}
	r.Task, r.Method = rec[0], rec[1]
	r.N, r.Noise, r.Rank = atoi(rec[2]), atof(rec[3]), atoi(rec[4])
	seed, err := strconv.ParseUint(rec[5], 10, 64)
	errs = append(errs, err)
	r.Seed = seed
	r.TrainMSE, r.TestMSE, r.TestOutputVar = report.Float(atof(rec[6])), report.Float(atof(rec[7])), report.Float(atof(rec[8]))
	fb, err := strconv.ParseBool(rec[9])
	errs = append(errs, err)
	r.ZeroFallback, r.Seconds = fb, atof(rec[10])
	for _, err := range errs {
		if err != nil {
			return r, err
		}
	}
	if !slices.Contains(SpectralMethods, r.Method) {
		return r, fmt.Errorf("unknown method %q", r.Method)
	}
	for i, v := range []float64{r.Noise, float64(r.TrainMSE), float64(r.TestMSE), float64(r.TestOutputVar), r.Seconds} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return r, fmt.Errorf("column %s is %v, want a finite number", sweepHeader[[]int{3, 6, 7, 8, 10}[i]], v)
		}
	}
	return r, nil
}

// WriteSweep writes the runs to dir/name.csv and one log-log PNG per task
// and noise level (dir/name_<task>_noise<noise>.png, the paper's panels),
// or per task, noise and method when byRank (Figure 5: one line per rank).
func WriteSweep(dir, name string, reps []SpectralReport, byRank bool) error {
	if err := WriteSweepCSV(filepath.Join(dir, name+".csv"), reps); err != nil {
		return err
	}
	type panel struct {
		task  string
		noise float64
		meth  string
	}
	lines := map[panel]map[string]map[int][]float64{}
	var panels []panel
	for _, r := range reps {
		key := panel{task: r.Task, noise: r.Noise}
		line := r.Method
		if byRank {
			key.meth = r.Method
			line = "R=" + strconv.Itoa(r.Rank)
		}
		if lines[key] == nil {
			lines[key] = map[string]map[int][]float64{}
			panels = append(panels, key)
		}
		if lines[key][line] == nil {
			lines[key][line] = map[int][]float64{}
		}
		lines[key][line][r.N] = append(lines[key][line][r.N], float64(r.TestMSE))
	}
	if !byRank {
		if err := params.WriteFileAtomic(filepath.Join(dir, name+"_summary.md"), func(w io.Writer) error {
			return SweepSummary(w, reps)
		}); err != nil {
			return err
		}
	}
	for _, p := range panels {
		var series []report.Series
		var names []string
		for n := range lines[p] {
			names = append(names, n)
		}
		slices.SortFunc(names, func(a, b string) int { return methodOrder(a) - methodOrder(b) })
		for _, n := range names {
			s := report.Series{Name: n}
			var ns []int
			for k := range lines[p][n] {
				ns = append(ns, k)
			}
			slices.Sort(ns)
			for _, k := range ns {
				s.X = append(s.X, float64(k))
				s.Y = append(s.Y, mean(lines[p][n][k]))
			}
			series = append(series, s)
		}
		file := fmt.Sprintf("%s_%s_noise%s", name, p.task, report.Ftoa(p.noise))
		title := fmt.Sprintf("%s, noise std %s", p.task, report.Ftoa(p.noise))
		if byRank {
			file += "_" + p.meth
			title += ", " + p.meth
		}
		if err := report.LogLogPlot(filepath.Join(dir, file+".png"), title,
			"training examples per length N", "average test MSE (length 6)", series); err != nil {
			return err
		}
	}
	return nil
}

// SweepSummary writes a markdown table of the mean test MSE over seeds
// for every task, noise level and N (one column per method, with the
// number of seeds), and the ratio of the TIHT+SGD mean to the TIHT mean
// where both ran (below 1: fine-tuning helped).
func SweepSummary(w io.Writer, reps []SpectralReport) error {
	type point struct {
		task  string
		noise float64
		n     int
	}
	mses := map[point]map[string][]float64{}
	var points []point
	var methods []string
	for _, r := range reps {
		p := point{r.Task, r.Noise, r.N}
		if mses[p] == nil {
			mses[p] = map[string][]float64{}
			points = append(points, p)
		}
		mses[p][r.Method] = append(mses[p][r.Method], float64(r.TestMSE))
		if !slices.Contains(methods, r.Method) {
			methods = append(methods, r.Method)
		}
	}
	slices.SortFunc(methods, func(a, b string) int { return methodOrder(a) - methodOrder(b) })
	slices.SortFunc(points, func(a, b point) int {
		if c := strings.Compare(a.task, b.task); c != 0 {
			return -c // random2rnn first, as in the paper
		}
		if a.noise != b.noise {
			return cmp.Compare(a.noise, b.noise)
		}
		return a.n - b.n
	})
	var b strings.Builder
	b.WriteString("| task | noise | N |")
	for _, m := range methods {
		b.WriteString(" " + m + " |")
	}
	b.WriteString(" tiht+sgd / tiht |\n|---|---|---|")
	b.WriteString(strings.Repeat("---|", len(methods)+1) + "\n")
	for _, p := range points {
		fmt.Fprintf(&b, "| %s | %s | %d |", p.task, report.Ftoa(p.noise), p.n)
		for _, m := range methods {
			if v := mses[p][m]; len(v) > 0 {
				fmt.Fprintf(&b, " %.3g (%d) |", mean(v), len(v))
			} else {
				b.WriteString(" |")
			}
		}
		t, ts := mses[p]["tiht"], mses[p]["tiht+sgd"]
		if len(t) > 0 && len(ts) > 0 {
			fmt.Fprintf(&b, " %.3f |\n", mean(ts)/mean(t))
		} else {
			b.WriteString(" |\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func methodOrder(m string) int {
	if i := slices.Index(SpectralMethods, m); i >= 0 {
		return i
	}
	if r, err := strconv.Atoi(m[min(2, len(m)):]); err == nil {
		return 100 + r
	}
	return 1000
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
