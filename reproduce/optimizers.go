package reproduce

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/runs"
)

// optimizersPlan is one comparison of the section.
type optimizersPlan struct {
	name     string
	spec     runs.CompareSpec
	settings []compare.Setting
	grid     []float64
	seeds    int
	budget   compare.Budget
	batch    int
	metric   string            // what the rows report
	paper    map[string]string // the paper's figure per setting
	headline map[string]bool   // settings shown in the README's headline table
}

// optimizersPlans returns the section's comparisons: the 2-RNN of the
// spectral paper (random target, N examples per length, noise 0.1)
// fine-tuned from its TIHT estimate, as the paper does with Adamax 0.001,
// batch 100; and the PCNN of the Riemannian paper on a^n b^n, trained by
// the Riemannian scheme (its own rate control) or by Adam and SGD on the
// BPTT gradient.
func optimizersPlans(quick bool, seed uint64) []optimizersPlan {
	twoRNN := optimizersPlan{
		name: "2rnn-spectral",
		spec: runs.CompareSpec{Model: "2rnn-spectral", Task: "random2rnn", Size: 1280, Noise: 0.1, DataSeed: seed},
		settings: []compare.Setting{{Optimizer: "adamax"}, {Optimizer: "adam"}, {Optimizer: "rmsprop"},
			{Name: "momentum", Optimizer: "sgd", Config: optim.Config{Momentum: 0.9}}, {Optimizer: "sgd"}},
		grid: []float64{1e-6, 1e-5, 1e-4, 1e-3, 1e-2}, seeds: 5, budget: compare.Budget{Epochs: 100}, batch: 100,
		metric:   "test MSE (length 6)",
		paper:    map[string]string{"adamax": "plot (Adamax, lr 0.001)"},
		headline: map[string]bool{"adamax": true, "sgd": true},
	}
	pcnnPlan := optimizersPlan{
		name:     "pcnn-anbn",
		spec:     runs.CompareSpec{Model: "pcnn", Task: "anbn", Size: 10, DataSeed: seed},
		settings: []compare.Setting{{Optimizer: compare.Riemann}, {Optimizer: "adam"}, {Optimizer: "sgd"}},
		grid:     []float64{1e-3, 1e-2, 1e-1}, seeds: 5, budget: compare.Budget{Steps: 350},
		metric:   "regret (bits)",
		paper:    map[string]string{compare.Riemann: "30.0 (pcnn qdh+rbpm)", "adam": "74.4 (pcnn dh+fb)", "sgd": "74.4 (pcnn dh+fb)"},
		headline: map[string]bool{compare.Riemann: true, "adam": true},
	}
	if quick {
		twoRNN.spec.Size, twoRNN.seeds, twoRNN.budget = 640, 2, compare.Budget{Epochs: 10}
		pcnnPlan.seeds, pcnnPlan.budget = 2, compare.Budget{Steps: 100}
	}
	return []optimizersPlan{twoRNN, pcnnPlan}
}

func runOptimizersSection(ctx *Context) ([]Row, error) {
	var rows []Row
	for _, pl := range optimizersPlans(ctx.Quick, ctx.Seed) {
		r, err := runOptimizersPlan(ctx, pl)
		if err != nil {
			return nil, errors.Wrap(err, pl.name)
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

func runOptimizersPlan(ctx *Context, pl optimizersPlan) ([]Row, error) {
	factory, spec, err := runs.CompareProblem(pl.spec)
	if err != nil {
		return nil, err
	}
	seeds := make([]uint64, pl.seeds)
	for i := range seeds {
		seeds[i] = ctx.Seed + uint64(i)
	}
	res, err := compare.Run(compare.Config{Problem: factory, Meta: spec, Executor: spec.Executor, References: spec.References, Settings: pl.settings, Seeds: seeds,
		LRGrid: pl.grid, Budget: pl.budget, BatchSize: pl.batch, Jobs: runtime.NumCPU()})
	if err != nil {
		return nil, err
	}
	sum := res.Summary()
	if ctx.Dir != "" {
		dir := filepath.Join(ctx.Dir, pl.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := sum.WriteFiles(dir); err != nil {
			return nil, err
		}
		if err := runs.ComparePlots(dir, sum, ""); err != nil {
			return nil, err
		}
	}
	budget := fmt.Sprintf("%d epochs", pl.budget.Epochs)
	if pl.budget.Steps > 0 {
		budget = fmt.Sprintf("%d passes", pl.budget.Steps)
	}
	var rows []Row
	if pl.spec.Model == "2rnn-spectral" {
		start, err := startTestLoss(factory, seeds[0])
		if err != nil {
			return nil, err
		}
		rows = append(rows, Row{Metric: pl.name + " TIHT estimate " + pl.metric, Paper: "n/a", Measured: start, Headline: true,
			Note: fmt.Sprintf("the start every run fine-tunes; N=%d per length, noise %g", spec.Size, spec.Noise)})
	}
	// PCNN: the validation loss in nats per predicted symbol as the
	// paper's regret, bits over the validation stream above the true
	// model's.
	bits, trueBits := 1.0, 0.0
	if pl.spec.Model == "pcnn" {
		_, valid, err := runs.PCNNStreams(spec.Task, spec.Size, spec.DataSeed)
		if err != nil {
			return nil, err
		}
		n := 0
		for t := range valid.X {
			if valid.Mask == nil || valid.Mask[t] {
				n++
			}
		}
		bits, trueBits = float64(n)/math.Ln2, valid.TrueBits()
	}
	for _, r := range sum.Rows {
		m, sd, lr := r.TestMean, r.TestSD, fmt.Sprintf("tuned lr %g of %d", r.LR, r.Grid)
		if pl.spec.Model == "pcnn" {
			m, sd = r.ValidMean*bits-trueBits, r.ValidSD*bits
		}
		if r.Grid == 1 {
			lr = "own rate control"
		}
		paper := pl.paper[r.Setting]
		if paper == "" {
			paper = "n/a"
		}
		rows = append(rows, Row{Metric: fmt.Sprintf("%s %s %s", pl.name, r.Setting, pl.metric), Paper: paper, Measured: m,
			Headline: pl.headline[r.Setting],
			Note: fmt.Sprintf("%s, %s, mean of %d seeds (sd %.2g), %d/%d grid runs diverged", lr, budget, r.Runs, sd,
				r.GridDiverged, r.GridRuns)})
	}
	return rows, nil
}

// startTestLoss is the test loss of the factory's start for seed.
func startTestLoss(f compare.Factory, seed uint64) (float64, error) {
	p, err := f(seed)
	if err != nil {
		return 0, err
	}
	t, ok := p.(compare.Tester)
	if !ok {
		return 0, errors.New("the problem has no test set")
	}
	return t.TestLoss()
}
