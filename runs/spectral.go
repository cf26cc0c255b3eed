package experiments

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
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/rnn"
	"github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/losses"
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
	Task          string  `json:"task"`
	Method        string  `json:"method"`
	N             int     `json:"n"`
	Noise         float64 `json:"noise"`
	Rank          int     `json:"rank"`
	Seed          uint64  `json:"seed"`
	TrainMSE      Float   `json:"train_mse"`
	TestMSE       Float   `json:"test_mse"`
	TestOutputVar Float   `json:"test_output_var"`
	ZeroFallback  bool    `json:"zero_fallback"`
	Reason        string  `json:"reason,omitempty"`
	Iterations    [3]int  `json:"iterations"`
	Epochs        int     `json:"epochs,omitempty"`
	Seconds       float64 `json:"seconds"`
	// Data, Basis, NValid, NTest and ValidMSE are set by RunSpectralData.
	Data     string `json:"data,omitempty"`
	Basis    string `json:"basis,omitempty"`
	NValid   int    `json:"n_valid,omitempty"`
	NTest    int    `json:"n_test,omitempty"`
	ValidMSE Float  `json:"valid_mse,omitempty"`
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
	return spectral.TwoRNNProblem{}, errors.Errorf("experiments: unknown spectral task %q (want random2rnn or addition)", spec.Task)
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
		return nil, errors.Errorf("experiments: unknown spectral method %q (want one of %v)", spec.Method, SpectralMethods)
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
		TrainMSE: Float(res.TrainMSE), TestMSE: Float(test), TestOutputVar: Float(sp.Test.OutputVar()),
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

var _ twornn.Net = (*lstmNet)(nil)

// lstmNet is the paper's baseline: one LSTM layer (tanh, 20 units) read
// at the last step, then a linear output layer (out/W [H, p], out/b [p]).
type lstmNet struct {
	cell    *rnn.LSTM
	p       *params.Params
	in, out int
}

// Sizes implements twornn.Net.
func (n *lstmNet) Sizes() (int, int) { return n.in, n.out }

// Parameters implements twornn.Net.
func (n *lstmNet) Parameters() *params.Params { return n.p }

// Build implements twornn.Net.
func (n *lstmNet) Build(b *graph.Builder, batch, steps int) ([]*G.Node, *G.Node, *G.Node, error) {
	u, err := graph.Unroll(b, n.cell, batch, steps, false)
	if err != nil {
		return nil, nil, nil, err
	}
	pred := b.AddRow(b.Mul(u.Outputs[steps-1], b.Param(n.p, "out/W")), b.Param(n.p, "out/b"))
	target := b.Input("y", batch, n.out)
	return u.Inputs, target, b.Sum(losses.MSE(b, pred, target)), b.Err()
}

// runLSTM trains the LSTM baseline on all training lengths with Adam
// (lr 0.001, batch 100, early stopping on the training loss) and reports
// it like a spectral run (no zero-function rule: the paper applies it to
// the recovery methods).
func runLSTM(spec SpectralSpec, sp spectral.TwoRNNSplits, start time.Time) (*SpectralReport, error) {
	const hidden = 20
	in, out := sp.Train[0].In, sp.Train[0].Out
	p := params.New()
	cell, err := rnn.NewLSTM(p, "lstm", in, hidden)
	if err != nil {
		return nil, err
	}
	if _, err := p.Add("out/W", hidden, out); err != nil {
		return nil, err
	}
	if _, err := p.Add("out/b", out); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 3))
	if err := cell.Init(rng); err != nil {
		return nil, err
	}
	if err := p.InitUniform("out/W", rng, 1/math.Sqrt(hidden)); err != nil {
		return nil, err
	}
	net := &lstmNet{cell: cell, p: p, in: in, out: out}
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
		TrainMSE: Float(trainMSE), TestMSE: Float(test), TestOutputVar: Float(sp.Test.OutputVar()),
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
			strconv.FormatBool(r.ZeroFallback), ftoa(r.Seconds)})
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
	r.TrainMSE, r.TestMSE, r.TestOutputVar = Float(atof(rec[6])), Float(atof(rec[7])), Float(atof(rec[8]))
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
		var series []Series
		var names []string
		for n := range lines[p] {
			names = append(names, n)
		}
		slices.SortFunc(names, func(a, b string) int { return methodOrder(a) - methodOrder(b) })
		for _, n := range names {
			s := Series{Name: n}
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
		file := fmt.Sprintf("%s_%s_noise%s", name, p.task, ftoa(p.noise))
		title := fmt.Sprintf("%s, noise std %s", p.task, ftoa(p.noise))
		if byRank {
			file += "_" + p.meth
			title += ", " + p.meth
		}
		if err := logLogPlot(filepath.Join(dir, file+".png"), title, series); err != nil {
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
		fmt.Fprintf(&b, "| %s | %s | %d |", p.task, ftoa(p.noise), p.n)
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

// logLogPlot writes a PNG of average test MSE against N on log-log axes;
// non-positive values are clamped to 1e-30 so that exact recoveries show.
// decadeTicks labels the powers of ten of a log axis as 1e<k>, every
// decade when the range spans at most 8 and every few decades beyond
// (gonum's LogTicks prints float artefacts such as 1.0000000000000004e-05
// and crowds a range of 30 decades).
type decadeTicks struct{}

// Ticks implements plot.Ticker.
func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	kl, kh := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	step := max(1, (kh-kl+7)/8)
	var ticks []plot.Tick
	for k := kl; k <= kh; k++ {
		v := math.Pow(10, float64(k))
		if v < lo*(1-1e-9) || v > hi*(1+1e-9) { // Pow(10, k) may round below 10^k
			continue
		}
		t := plot.Tick{Value: v}
		if k%step == 0 {
			t.Label = fmt.Sprintf("1e%d", k)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func logLogPlot(path, title string, series []Series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "training examples per length N"
	p.Y.Label.Text = "average test MSE (length 6)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, decadeTicks{}
	p.Legend.Top = true
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i, s := range series {
		pts := make(plotter.XYs, 0, len(s.X))
		for j := range s.X {
			if math.IsNaN(s.Y[j]) || math.IsInf(s.Y[j], 0) || !(s.X[j] > 0) {
				continue
			}
			y := math.Max(s.Y[j], 1e-30)
			pts = append(pts, plotter.XY{X: s.X[j], Y: y})
			xmin, xmax = math.Min(xmin, s.X[j]), math.Max(xmax, s.X[j])
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
		}
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return errors.Wrapf(err, "plot %s", s.Name)
		}
		l.Color, sc.Color = palette[i%len(palette)], palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		p.Add(l, sc)
		p.Legend.Add(s.Name, l, sc)
	}
	if !math.IsInf(xmin, 0) {
		// Explicit positive ranges: gonum widens a degenerate range
		// linearly, which can cross zero on a log axis. The top decade
		// leaves room for the legend.
		p.X.Min, p.X.Max = xmin/1.5, xmax*1.5
		p.Y.Min, p.Y.Max = ymin/2, ymax*1000
	}
	wt, err := p.WriterTo(6*vg.Inch, 4.5*vg.Inch, "png")
	if err != nil {
		return err
	}
	return params.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}

// spectralTrends are the paper's qualitative findings (Section 5), the
// only "paper figures" there are: the results are plots.
var spectralTrends = map[string]string{
	"ls":       "consistent; less sample-efficient than (T)IHT",
	"nuclear":  "consistent; less sample-efficient than (T)IHT",
	"iht":      "more sample-efficient than LS / nuclear",
	"tiht":     "more sample-efficient than LS / nuclear, tends to beat IHT",
	"tiht+sgd": "almost always improves on TIHT (noisy data)",
	"lstm":     "good on addition, struggles on the random 2-RNN",
}

// runSpectralSection runs a grid of the paper's experiments: quick mode
// N in {640, 1280}, noise std 0.1 and 1, 2 seeds, fine-tuning at most 30
// epochs, the LSTM at N = 1280 only (10 epochs); full mode the paper's grid (N from 20 to 20,000, noise 0, 0.1,
// 1, 5 seeds, 100 epochs) and the rank mis-specification runs.
func runSpectralSection(ctx *Context) ([]Row, error) {
	sw := SweepSpec{
		Tasks: []string{"random2rnn", "addition"}, Ns: []int{640, 1280}, Noises: []float64{0.1, 1},
		Methods: []string{"ls", "nuclear", "iht", "tiht", "tiht+sgd"}, Seeds: 2, Seed: ctx.Seed, Epochs: 30, Log: ctx.Log,
	}
	if !ctx.Quick {
		sw.Ns = []int{20, 40, 80, 160, 320, 640, 1280, 2560, 5000, 10000, 20000}
		sw.Noises = []float64{0, 0.1, 1}
		sw.Seeds, sw.Epochs = 5, 100
	}
	reps, err := SpectralSweep(sw)
	if err != nil {
		return nil, err
	}
	// The LSTM baseline costs most: quick mode runs it at N = 1280 only,
	// one seed, at most 10 epochs.
	ls := sw
	ls.Methods = []string{"lstm"}
	if ctx.Quick {
		ls.Ns, ls.Seeds, ls.Epochs = []int{1280}, 1, 10
	}
	lstm, err := SpectralSweep(ls)
	if err != nil {
		return nil, err
	}
	reps = append(reps, lstm...)
	if ctx.Dir != "" {
		if err := WriteSweep(ctx.Dir, "sweep", reps, false); err != nil {
			return nil, err
		}
		if !ctx.Quick {
			rk := sw
			rk.Tasks, rk.Noises, rk.Ranks, rk.Methods = []string{"addition"}, []float64{1}, []int{2, 3, 4, 5}, []string{"tiht"}
			ranks, err := SpectralSweep(rk)
			if err != nil {
				return nil, err
			}
			if err := WriteSweep(ctx.Dir, "ranks", ranks, true); err != nil {
				return nil, err
			}
		}
	}
	const at = 1280
	avg := func(task string, noise float64, method string) float64 {
		var v []float64
		for _, r := range reps {
			if r.Task == task && r.Noise == noise && r.Method == method && r.N == at {
				v = append(v, float64(r.TestMSE))
			}
		}
		return mean(v)
	}
	var rows []Row
	for _, task := range sw.Tasks {
		for _, noise := range sw.Noises {
			if noise == 0 {
				continue
			}
			for _, m := range append(sw.Methods, "lstm") {
				seeds := sw.Seeds
				if m == "lstm" {
					seeds = ls.Seeds
				}
				rows = append(rows, Row{
					Metric: fmt.Sprintf("%s noise %g: %s test MSE, N=%d", task, noise, m, at),
					Paper:  "plot", Measured: avg(task, noise, m),
					Note: fmt.Sprintf("%s; mean of %d seeds", spectralTrends[m], seeds),
				})
			}
			rows = append(rows,
				Row{
					Metric: fmt.Sprintf("%s noise %g: TIHT+SGD / TIHT MSE, N=%d", task, noise, at),
					Paper:  "< 1", Measured: avg(task, noise, "tiht+sgd") / avg(task, noise, "tiht"),
					Note: "fine-tuning with Adam 0.001 helps", Headline: noise == 1,
				},
				Row{
					Metric: fmt.Sprintf("%s noise %g: min(IHT,TIHT) / min(LS,nuclear) MSE, N=%d", task, noise, at),
					Paper:  "< 1",
					Measured: math.Min(avg(task, noise, "iht"), avg(task, noise, "tiht")) /
						math.Min(avg(task, noise, "ls"), avg(task, noise, "nuclear")),
					Note: "low-rank recovery is more sample-efficient", Headline: noise == 1,
				})
		}
	}
	return rows, nil
}
