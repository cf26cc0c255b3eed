package runs

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/baseline"
	"github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/spectral"
)

// SpectralMethods lists the methods RunSpectral knows, in plotting order.
var SpectralMethods = []string{"ls", "nuclear", "iht", "tiht", "tiht+sgd", "lstm", "tt-tiht", "tt-als"}

// SpectralSpec describes one run of the 2-RNN spectral paper's
// experiments (Section 5): a target, training sets of lengths L, 2L, 2L+1
// with N examples each, a recovery method and a test set of noiseless
// length-6 sequences.
type SpectralSpec struct {
	// Task is "random2rnn" or "addition".
	Task string
	// N is the number of training examples of each length.
	N int
	// Noise is the standard deviation of the training output noise.
	Noise float64
	// L is the prefix length; if 0 it defaults to 2.
	L int
	// Rank is the number of states learned; if 0 it defaults to the
	// target's (5 for random2rnn with the default States, 2 for addition).
	Rank int
	// Method is one of SpectralMethods.
	Method string
	// Seed selects the target (random2rnn) and the data.
	Seed uint64
	// D, P and States size the random 2-RNN; if 0 they default to 3, 2, 5.
	D, P, States int
	// Epochs caps the training epochs of tiht+sgd and lstm (Adam, lr
	// 0.001, batch 100, early stop after 5 epochs without improvement of
	// the training loss); if 0 it defaults to 100.
	Epochs int
	// TestN is the number of test sequences; if 0 it defaults to 1,000.
	TestN int
	// SaveData, if set, is a sequence-data file (.npz or .csv) that
	// receives the run's data: the training sets, then the test set,
	// labelled train and test (see datasets.WriteIOData).
	SaveData string
	// SaveModel, if set, receives the learned 2-RNN (see
	// spectral.ModelPaths; the lstm method has none and ignores it).
	SaveModel string
}

// SpectralReport is the result of RunSpectral (the JSON of rtn spectral):
// the run's settings, the MSE on the length-(2L+1) training set and on the
// noiseless test set (mean over examples and outputs), the variance of the
// test targets, whether the zero-function rule applied (and why), the
// iterations per Hankel tensor (IHT/TIHT/nuclear/ALS), the training epochs
// (tiht+sgd, lstm; Rank is then the LSTM's hidden size) and the wall time
// of learning in seconds.
type SpectralReport struct {
	Task          string       `json:"task"`
	Method        string       `json:"method"`
	N             int          `json:"n"`
	Noise         float64      `json:"noise"`
	Rank          int          `json:"rank"`
	Seed          uint64       `json:"seed"`
	TrainMSE      report.Float `json:"train_mse"`
	TestMSE       report.Float `json:"test_mse"`
	TestOutputVar report.Float `json:"test_output_var"`
	ZeroFallback  bool         `json:"zero_fallback"`
	Reason        string       `json:"reason,omitempty"`
	Iterations    [3]int       `json:"iterations"`
	Epochs        int          `json:"epochs,omitempty"`
	Seconds       float64      `json:"seconds"`
	// Data, Basis, NValid, NTest and ValidMSE are set by RunSpectralData.
	Data     string       `json:"data,omitempty"`
	Basis    string       `json:"basis,omitempty"`
	NValid   int          `json:"n_valid,omitempty"`
	NTest    int          `json:"n_test,omitempty"`
	ValidMSE report.Float `json:"valid_mse,omitempty"`
}

// spectralProblem draws the target of spec from its seed (stream 1).
func spectralProblem(spec SpectralSpec) (spectral.TwoRNNProblem, error) {
	switch spec.Task {
	case "random2rnn":
		cfg := spectral.RandomTwoRNNConfig{States: spec.States, In: spec.D, Out: spec.P}
		return spectral.RandomTwoRNNProblem(cfg, rand.New(rand.NewPCG(spec.Seed, 1)))
	case "addition":
		return spectral.AdditionProblem(), nil
	}
	return spectral.TwoRNNProblem{}, errors.Errorf("runs: unknown spectral task %q (want random2rnn or addition)", spec.Task)
}

// RunSpectral runs one spectral experiment. The data come from stream
// (Seed, 2 + N) so that runs with different N are independent.
func RunSpectral(spec SpectralSpec) (*SpectralReport, error) {
	if spec.L == 0 {
		spec.L = 2
	}
	if spec.Epochs == 0 {
		spec.Epochs = 100
	}
	if !slices.Contains(SpectralMethods, spec.Method) {
		return nil, errors.Errorf("runs: unknown spectral method %q (want one of %v)", spec.Method, SpectralMethods)
	}
	prob, err := spectralProblem(spec)
	if err != nil {
		return nil, err
	}
	if spec.Rank == 0 {
		spec.Rank = prob.Target.States
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 2+uint64(spec.N)))
	sp, err := prob.Splits(spectral.TwoRNNSplitConfig{N: spec.N, L: spec.L, Noise: spec.Noise, TestN: spec.TestN}, rng)
	if err != nil {
		return nil, err
	}
	if spec.SaveData != "" {
		if err := saveSplits(spec.SaveData, sp); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	var res spectral.Result
	epochs := 0
	switch spec.Method {
	case "lstm":
		return runLSTM(spec, sp, start)
	case "tt-tiht":
		res, err = spectral.LearnTTTIHT(sp.Train, spec.Rank, spectral.TTTIHTConfig{}, rng)
	case "tt-als":
		// Bootstrap (prefix/suffix cores from the shorter tensor) needs
		// prefix and suffix spaces of full rank: d >= R and d p >= R.
		d, p := prob.Target.In, prob.Target.Out
		boot := d >= spec.Rank && d*p >= spec.Rank
		res, err = spectral.LearnTT(sp.Train, spec.Rank, spectral.ALSConfig{Batch: 4000, Bootstrap: boot}, rng)
	default:
		cfg := spectral.Config{Rank: spec.Rank, NuclearHoldout: spec.Noise > 0}
		switch spec.Method {
		case "ls":
			cfg.Method = spectral.MethodLS
		case "nuclear":
			cfg.Method = spectral.MethodNuclear
		case "iht":
			cfg.Method = spectral.MethodIHT
		default:
			cfg.Method = spectral.MethodTIHT
		}
		res, err = spectral.Learn(sp.Train, cfg)
	}
	if err != nil {
		return nil, err
	}
	if spec.Method == "tiht+sgd" {
		judge := func(m spectral.RNN) (float64, error) { return m.MSE(sp.Train[2]) }
		res, epochs, err = fineTune(res, sp.Train[:], judge, spec.Epochs, spec.Seed)
		if err != nil {
			return nil, err
		}
	}
	test, err := res.Model.MSE(sp.Test)
	if err != nil {
		return nil, err
	}
	if spec.SaveModel != "" {
		info := spectral.ModelInfo{Method: spec.Method, Data: spec.Task, Seed: spec.Seed, TrainMSE: res.TrainMSE, ZeroFallback: res.ZeroFallback}
		if err := saveModel(spec.SaveModel, res.Model, info); err != nil {
			return nil, err
		}
	}
	return &SpectralReport{
		Task: spec.Task, Method: spec.Method, N: spec.N, Noise: spec.Noise, Rank: spec.Rank, Seed: spec.Seed,
		TrainMSE: report.Float(res.TrainMSE), TestMSE: report.Float(test), TestOutputVar: report.Float(sp.Test.OutputVar()),
		ZeroFallback: res.ZeroFallback, Reason: res.Reason, Iterations: res.Iterations, Epochs: epochs,
		Seconds: time.Since(start).Seconds(),
	}, nil
}

// fineTune trains the linear 2-RNN of res on the training sets with
// Adam (lr 0.001, the paper's setting), batch 100, the learning rate
// divided by 10 after 5 epochs without a lower training loss and training
// ended at the third such plateau (without the drops, Adam's steps at
// 0.001 are coarser than the spectral estimate's error at large N and the
// fine-tuning never improves on it), then keeps the result only if its
// training MSE (by judge) is not above the spectral estimate's.
func fineTune(res spectral.Result, train []datasets.TwoRNNData, judge func(spectral.RNN) (float64, error), epochs int, seed uint64) (spectral.Result, int, error) {
	if res.ZeroFallback {
		return res, 0, nil // the zero 2-RNN has zero gradients
	}
	r := res.Model
	m, err := twornn.NewModel("tworn", r.In, r.States, r.Out, activation.Identity)
	if err != nil {
		return res, 0, err
	}
	if err := m.SetFromRNN(r); err != nil {
		return res, 0, err
	}
	reg, err := twornn.NewRegression(m, train)
	if err != nil {
		return res, 0, err
	}
	opt, err := optim.New("adam", optim.Config{LR: 0.001})
	if err != nil {
		return res, 0, err
	}
	tr, err := optim.NewTrainer(reg, opt, optim.TrainConfig{
		Epochs: epochs, BatchSize: 100, Seed: seed, Patience: 5, MaxDrops: 3,
	})
	if err != nil {
		return res, 0, err
	}
	out, err := tr.Run()
	if optim.IsDiverged(err) {
		return res, 0, nil // keep the spectral estimate
	}
	if err != nil {
		return res, 0, err
	}
	tuned := m.RNN()
	mse, err := judge(tuned)
	if err != nil {
		return res, 0, err
	}
	if mse <= res.TrainMSE {
		res.Model, res.TrainMSE = tuned, mse
	}
	return res, out.Epochs, nil
}

// runLSTM trains the LSTM baseline on all training lengths with Adam
// (lr 0.001, batch 100, early stopping on the training loss) and reports
// it like a spectral run (no zero-function rule: the paper applies it to
// the recovery methods).
func runLSTM(spec SpectralSpec, sp spectral.TwoRNNSplits, start time.Time) (*SpectralReport, error) {
	const hidden = 20
	in, out := sp.Train[0].In, sp.Train[0].Out
	net, err := baseline.NewLSTMRegressor(in, out, hidden, rand.New(rand.NewPCG(spec.Seed, 3)))
	if err != nil {
		return nil, err
	}
	reg, err := twornn.NewRegression(net, sp.Train[:])
	if err != nil {
		return nil, err
	}
	opt, err := optim.New("adam", optim.Config{LR: 0.001})
	if err != nil {
		return nil, err
	}
	tr, err := optim.NewTrainer(reg, opt, optim.TrainConfig{Epochs: spec.Epochs, BatchSize: 100, Seed: spec.Seed, Patience: 5, MaxDrops: 1})
	if err != nil {
		return nil, err
	}
	res, err := tr.Run()
	if err != nil {
		return nil, err
	}
	trainMSE, err := twornn.MSE(net, sp.Train[2])
	if err != nil {
		return nil, err
	}
	test, err := twornn.MSE(net, sp.Test)
	if err != nil {
		return nil, err
	}
	return &SpectralReport{
		Task: spec.Task, Method: spec.Method, N: spec.N, Noise: spec.Noise, Rank: hidden, Seed: spec.Seed,
		TrainMSE: report.Float(trainMSE), TestMSE: report.Float(test), TestOutputVar: report.Float(sp.Test.OutputVar()),
		Epochs: res.Epochs, Seconds: time.Since(start).Seconds(),
	}, nil
}

// SweepSpec is a grid of spectral runs (the paper's Figures 3-5).
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
	// Epochs caps fine-tuning (SpectralSpec.Epochs).
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
			Seed: g.seed, Epochs: s.Epochs})
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
