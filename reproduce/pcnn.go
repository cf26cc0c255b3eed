package reproduce

import (
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/layers/pcnn"
	"github.com/rtnlab/rtn/runs"
)

// pcnnMethod is one row of Table 1.
type pcnnMethod struct {
	model, writing, transition string
	// paper holds Table 1's regrets (bits) for alphabet, music, anbn.
	paper [3]string
}

// pcnnTable1 lists the network rows of Table 1 of the Riemannian paper.
var pcnnTable1 = []pcnnMethod{
	{"rnn", "dh", "fb", [3]string{"7616.8", "2898.9", "122.4"}},
	{"cnn", "dh", "fb", [3]string{"4059.0", "2688.7", "132.0"}},
	{"pcnn", "dh", "fb", [3]string{"5883.9", "3616.4", "74.4"}},
	{"rnn", "qdh", "qdrutsd", [3]string{"3372.8", "1349.5", "89.5"}},
	{"rnn", "qdh", "qdrbpm", [3]string{"3623.9", "1224.3", "106.0"}},
	{"cnn", "qdh", "rutsd", [3]string{"1759.0", "1148.3", "71.6"}},
	{"cnn", "qdh", "rbpm", [3]string{"2166.0", "1596.0", "115.4"}},
	{"pcnn", "qdh", "rutsd", [3]string{"1011.9", "1055.9", "29.7"}},
	{"pcnn", "qdh", "rbpm", [3]string{"644.2", "1055.9", "30.0"}},
}

// pcnnBaselinePaper is Table 1's sanity checks (alphabet, music, anbn).
var pcnnBaselinePaper = map[string][3]string{
	"bzip2": {"27206.1", "6035.7", "244.0"},
	"ctw":   {"18272.1", "3611.0", "143.5"},
	"hmm":   {"10212.0", "4818.1", "125.7"},
}

var pcnnTasks = []string{"alphabet", "music", "anbn"}

// budgetText describes a plan's budget per run.
func (p pcnnPlan) budgetText() string {
	if p.passes > 0 {
		return fmt.Sprintf("%d passes", p.passes)
	}
	return p.budget.String()
}

// pcnnPlan is what a reproduce run trains: per task, the task size, the
// network sizes and the budget per run, in passes (reproducible bit for
// bit) or in time (the paper's comparison, machine-dependent).
type pcnnPlan struct {
	task    string
	size    int
	units   []int
	passes  int
	budget  time.Duration
	methods []pcnnMethod
	// hmmStates and hmmIters set the HMM baseline.
	hmmStates, hmmIters int
}

// pcnnPlans: quick mode runs a^n b^n (350 passes per network, about 30 s
// here) and a 100-line alphabet with insertions (400 passes, about 20 s),
// PCNN QDH+RBPM against RNN DH+FB under the same pass budget (both take
// about the same time per pass), with CTW, bzip2 and a 16-state HMM (20
// Baum-Welch iterations); pass budgets make the quick numbers the same on
// every run. Full mode runs every Table 1 row on the three tasks at the
// paper's sizes with networks of 8 and 23 units (d = 3), 2 minutes per
// run (the paper: 4 to 512 units, sparse and semi-sparse, 10 to 30
// minutes per run), and a 32-state HMM with 100 iterations (about two
// hours here), then the distant-XOR success rate (paperXOR: eight runs
// of about 50 minutes).
func pcnnPlans(quick bool) []pcnnPlan {
	if quick {
		pair := []pcnnMethod{pcnnTable1[0], pcnnTable1[8]}
		return []pcnnPlan{
			{task: "anbn", units: []int{16}, passes: 350, methods: pair, hmmStates: 16, hmmIters: 20},
			{task: "alphabet", size: 100, units: []int{16}, passes: 400, methods: pair, hmmStates: 16, hmmIters: 20},
		}
	}
	var plans []pcnnPlan
	for _, t := range pcnnTasks {
		plans = append(plans, pcnnPlan{task: t, units: []int{8, 23}, budget: 2 * time.Minute, methods: pcnnTable1,
			hmmStates: 32, hmmIters: 100})
	}
	return plans
}

func taskIndex(task string) int {
	for i, t := range pcnnTasks {
		if t == task {
			return i
		}
	}
	return -1
}

// runPCNNSection trains the planned networks and baselines and reports
// the best regret per method and task (Table 1's "best value found over
// the hyperparameters").
func runPCNNSection(ctx *Context) ([]Row, error) {
	var rows []Row
	var csv [][]string
	for _, plan := range pcnnPlans(ctx.Quick) {
		ti := taskIndex(plan.task)
		sizeNote := "paper's size"
		if plan.size > 0 {
			sizeNote = fmt.Sprintf("%d lines (paper: 1000)", plan.size)
		}
		var curves []report.Series
		var trueBits float64
		for _, m := range plan.methods {
			best := math.Inf(1)
			var bestRep *runs.PCNNReport
			for _, n := range plan.units {
				spec := runs.PCNNSpec{Task: plan.task, Size: plan.size, Model: m.model, Writing: m.writing,
					Transition: m.transition, Units: n, Degree: 3, Passes: plan.passes, Budget: plan.budget, Seed: ctx.Seed, Log: ctx.Log}
				rep, err := runs.RunPCNN(spec)
				if err != nil {
					return nil, errors.Wrapf(err, "%s %s %s+%s", plan.task, m.model, m.writing, m.transition)
				}
				trueBits = rep.TrueBits
				csv = append(csv, []string{plan.task, m.model, rep.Method, fmt.Sprint(n), "3", fmt.Sprint(rep.Passes),
					report.Ftoa(rep.Seconds), report.Ftoa(rep.ValidBits), report.Ftoa(rep.TrueBits), report.Ftoa(rep.RegretBits)})
				if rep.RegretBits < best {
					best, bestRep = rep.RegretBits, rep
				}
			}
			s := report.Series{Name: fmt.Sprintf("%s %s (N=%d)", m.model, bestRep.Method, bestRep.Units)}
			s.X, s.Y = bestRep.RegretCurve()
			curves = append(curves, s)
			paper := m.paper[ti]
			if plan.size > 0 {
				paper = "n/a"
			}
			rows = append(rows, Row{Metric: fmt.Sprintf("%s %s %s regret (bits)", plan.task, m.model, bestRep.Method),
				Paper: paper, Measured: best, Headline: plan.task == "anbn",
				Note: fmt.Sprintf("best of N in %v, d=3, %s each; %s", plan.units, plan.budgetText(), sizeNote)})
		}
		for _, b := range []string{"ctw", "bzip2", "hmm"} {
			spec := runs.PCNNBaselineSpec{Baseline: b, Task: plan.task, Size: plan.size, Seed: ctx.Seed}
			if b == "hmm" {
				spec.States, spec.Iterations = plan.hmmStates, plan.hmmIters
			}
			rep, err := runs.RunPCNNBaseline(spec)
			if errors.Is(err, pcnn.ErrNoBzip2) {
				fmt.Fprintf(ctx.Log, "bzip2 is not installed: its row is skipped\n")
				continue
			}
			if err != nil {
				return nil, err
			}
			paper := pcnnBaselinePaper[b][ti]
			if plan.size > 0 {
				paper = "n/a"
			}
			rows = append(rows, Row{Metric: fmt.Sprintf("%s %s regret (bits)", plan.task, b), Paper: paper,
				Measured: rep.RegretBits, Note: rep.Method + "; " + sizeNote, Headline: plan.task == "anbn" && b == "ctw"})
			csv = append(csv, []string{plan.task, b, rep.Method, "", "", "", report.Ftoa(rep.Seconds), report.Ftoa(rep.ValidBits), report.Ftoa(rep.TrueBits), report.Ftoa(rep.RegretBits)})
		}
		truePaper := map[string]string{"alphabet": "88482", "music": "n/a", "anbn": "100"}[plan.task]
		if plan.size > 0 {
			truePaper = "n/a"
		}
		rows = append(rows, Row{Metric: plan.task + " true model (bits)", Paper: truePaper,
			Measured: trueBits, Note: "exact code length of the validation stream; " + sizeNote})
		if ctx.Dir != "" {
			if err := report.LinePlot(filepath.Join(ctx.Dir, plan.task+".png"), plan.task+": validation regret", "seconds",
				"regret (bits)", curves, nil); err != nil {
				return nil, err
			}
		}
	}
	if !ctx.Quick {
		row, err := pcnnXORSuccess(ctx, paperXOR, &csv)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	if ctx.Dir != "" {
		if err := report.WriteCSV(filepath.Join(ctx.Dir, "runs.csv"), []string{"task", "model", "method", "units", "degree",
			"passes", "seconds", "valid_bits", "true_bits", "regret_bits"}, csv); err != nil {
			return nil, err
		}
	}
	for i := range rows {
		rows[i].Section = "pcnn"
	}
	return rows, nil
}

// xorPlan is the distant-XOR success-rate experiment: runs instances of
// size lines each (0: the paper's 10,000, T = 100), a fully connected
// PCNN of units units trained by QDH+RBPM for passes passes; a run
// succeeds when its validation error is below 1%.
type xorPlan struct{ runs, size, units, passes int }

// paperXOR is section 4's setting: eight runs of 1,500 passes, N = 10.
var paperXOR = xorPlan{runs: 8, units: 10, passes: 1500}

// pcnnXORSuccess trains plan's runs (seeds ctx.Seed, ctx.Seed+1, ...,
// each its own training and validation sequence), appends them to csv
// and returns the success-rate row.
func pcnnXORSuccess(ctx *Context, plan xorPlan, csv *[][]string) (Row, error) {
	wins := 0
	for i := range plan.runs {
		rep, err := runs.RunPCNN(runs.PCNNSpec{Task: "xor", Size: plan.size, Model: "pcnn", Writing: "qdh", Transition: "rbpm",
			Units: plan.units, Degree: runs.Full, Passes: plan.passes, Seed: ctx.Seed + uint64(i), Log: ctx.Log})
		if err != nil {
			return Row{}, errors.Wrapf(err, "xor run %d", i+1)
		}
		if rep.ErrorPercent != nil && *rep.ErrorPercent < 1 {
			wins++
		}
		*csv = append(*csv, []string{"xor", "pcnn", rep.Method, fmt.Sprint(plan.units), "full", fmt.Sprint(rep.Passes),
			report.Ftoa(rep.Seconds), report.Ftoa(rep.ValidBits), report.Ftoa(rep.TrueBits), report.Ftoa(rep.RegretBits)})
	}
	lines := "10,000 lines"
	if plan.size > 0 {
		lines = fmt.Sprintf("%d lines", plan.size)
	}
	return Row{Metric: "xor success rate (runs with error < 1%)", Paper: "0.5 (4 of 8)",
		Measured: float64(wins) / float64(plan.runs),
		Note: fmt.Sprintf("%d of %d runs; pcnn qdh+rbpm, N=%d fully connected, %d passes, %s", wins, plan.runs,
			plan.units, plan.passes, lines)}, nil
}
