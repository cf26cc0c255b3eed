package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/params"
)

// suiteProblem is one problem of a suite: its spec (problem fields,
// budget, batch, curve points, grid) and the shared data it needs.
type suiteProblem struct {
	name string
	spec CompareSpec
	// pautomac is the PAutomaC training file the problem reads from
	// datasets.PAutomaCDir ("" for none); piano says it reads the
	// polyphonic data directory.
	pautomac string
	piano    bool
}

// compareSuites maps a suite's name to its problems. "small" is sized to
// run sgd, adam, adamw, lion and schedulefree with 3 seeds under either
// protocol in well under 20 minutes on 2 cores (docs/compare.md gives the
// measured time): short budgets, 3-rate grids, small models.
var compareSuites = map[string][]suiteProblem{
	"small": {
		{name: "lstm-pfa", spec: CompareSpec{Model: "lstm", Task: "pfa", Hidden: 16, Budget: compare.Budget{Epochs: 3}, Batch: 32,
			EvalEvery: 4, LRGrid: decades(-3, -1)}},
		{name: "rnn-jsb", spec: CompareSpec{Model: "rnn", Task: "jsb", Hidden: 32, Budget: compare.Budget{Steps: 30}, Batch: 16,
			EvalEvery: 5, LRGrid: decades(-3, -1)}, piano: true},
		{name: "2rnn-spectral", spec: CompareSpec{Model: "2rnn-spectral", Task: "random2rnn", Size: 200, Noise: 0.1,
			Budget: compare.Budget{Epochs: 3}, Batch: 50, LRGrid: decades(-5, -3)}},
		{name: "umps-pautomac1", spec: CompareSpec{Model: "umps", Task: "pautomac", Hidden: 4, Size: 300,
			Budget: compare.Budget{Epochs: 3}, Batch: 30, LRGrid: decades(-3, -1)}, pautomac: "1.pautomac.train"},
		{name: "wfa-pautomac1", spec: CompareSpec{Model: "wfa", Task: "pautomac", Size: 1000, Budget: compare.Budget{Epochs: 2},
			Batch: 50, EvalEvery: 5, LRGrid: decades(-6, -4)}, pautomac: "1.pautomac.train"},
		{name: "pcnn-anbn", spec: CompareSpec{Model: "pcnn", Task: "anbn", Size: 6, Budget: compare.Budget{Steps: 20},
			EvalEvery: 2, LRGrid: decades(-3, -1)}},
		{name: "cp2rnn-pfa", spec: CompareSpec{Model: "cp2rnn", Task: "pfa", Hidden: 12, Budget: compare.Budget{Epochs: 3}, Batch: 32,
			EvalEvery: 4, LRGrid: decades(-3, -1)}},
		{name: "mirnn-pfa", spec: CompareSpec{Model: "mirnn", Task: "pfa", Hidden: 12, Budget: compare.Budget{Epochs: 3}, Batch: 32,
			EvalEvery: 4, LRGrid: decades(-3, -1)}},
	},
}

// CompareSuites lists the suites of CompareSpec.Suite.
func CompareSuites() []string {
	var n []string
	for k := range compareSuites {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

// SuiteProblem is one problem of a suite run.
type SuiteProblem struct {
	// Name is the problem's name and subdirectory of Out.
	Name string
	// Skipped says why the problem was not run (its data are absent);
	// "" when it ran.
	Skipped string
	// Spec is its comparison with defaults, Summary its table (nil when
	// skipped).
	Spec    CompareSpec
	Summary *compare.Summary
}

// SuiteReport is a suite's problems, table and performance profiles.
type SuiteReport struct {
	Suite    string
	Problems []SuiteProblem
	// Steps and Seconds are the profiles of the steps and seconds to
	// each problem's target (the fastest grid point's median over seeds,
	// compare.Row.FastestSteps), over the problems with a target.
	Steps, Seconds compare.Profile
}

// runSuite runs each problem of s.Suite whose data are present with s's
// optimizers, seeds and protocol (s's Budget, Batch, EvalEvery and LRGrid
// replace a problem's when set), each in Out/<problem>, then writes the
// suite's table and profiles into Out.
func runSuite(s CompareSpec) (*CompareReport, error) {
	rep := &SuiteReport{Suite: s.Suite}
	for _, sp := range compareSuites[s.Suite] {
		ps, skip := suiteSpec(s, sp)
		if skip != "" {
			rep.Problems = append(rep.Problems, SuiteProblem{Name: sp.name, Skipped: skip})
			if s.Progress != nil {
				fmt.Fprintf(s.Progress, "compare: suite %s: %s skipped: %s\n", s.Suite, sp.name, skip)
			}
			continue
		}
		r, err := RunCompare(ps)
		var np *NoProgressError
		if errors.As(err, &np) {
			rep.Problems = append(rep.Problems, SuiteProblem{Name: sp.name, Skipped: err.Error()})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("suite %s, problem %s: %w", s.Suite, sp.name, err)
		}
		rep.Problems = append(rep.Problems, SuiteProblem{Name: sp.name, Spec: r.Spec, Summary: r.Summary})
	}
	rep.profiles()
	if s.Out != "" {
		if err := rep.write(s.Out); err != nil {
			return nil, err
		}
	}
	return &CompareReport{Spec: s, Suite: rep}, nil
}

// suiteSpec is the spec of problem sp under the suite run s, or why it is
// skipped.
func suiteSpec(s CompareSpec, sp suiteProblem) (CompareSpec, string) {
	ps := sp.spec
	ps.Settings, ps.Seeds, ps.Protocol, ps.Rerun, ps.ExtendGrid = s.Settings, s.Seeds, s.Protocol, s.Rerun, s.ExtendGrid
	ps.DivergeFactor, ps.Jobs, ps.Progress, ps.Log = s.DivergeFactor, s.Jobs, s.Progress, s.Log
	if s.Budget != (compare.Budget{}) {
		ps.Budget = s.Budget
	}
	if s.Batch != 0 {
		ps.Batch = s.Batch
	}
	if s.EvalEvery != 0 {
		ps.EvalEvery = s.EvalEvery
	}
	if s.LRGrid != nil {
		ps.LRGrid = s.LRGrid
	}
	if s.Out != "" {
		ps.Out = filepath.Join(s.Out, sp.name)
	}
	if sp.pautomac != "" {
		dir := datasets.PAutomaCDir()
		path := filepath.Join(dir, sp.pautomac)
		if _, err := os.Stat(path); dir == "" || err != nil {
			return ps, "no PAutomaC data (set RTN_PAUTOMAC_DIR)"
		}
		ps.DataFile = path
	}
	if sp.piano && datasets.PolyphonicDir() == "" {
		return ps, "no polyphonic data (set RTN_POLYPHONIC_DIR)"
	}
	return ps, ""
}

// profiles fills the steps and seconds profiles from the problems run.
func (r *SuiteReport) profiles() {
	var settings, problems []string
	var done []SuiteProblem
	for _, p := range r.Problems {
		if p.Summary != nil && p.Summary.Target > 0 {
			problems, done = append(problems, p.Name), append(done, p)
		}
	}
	if len(done) > 0 {
		for _, row := range done[0].Summary.Rows {
			settings = append(settings, row.Setting)
		}
	}
	steps, secs := make([][]float64, len(settings)), make([][]float64, len(settings))
	for i, name := range settings {
		for _, p := range done {
			st, sec := math.NaN(), math.NaN()
			for _, row := range p.Summary.Rows {
				if row.Setting == name {
					st, sec = row.FastestSteps, row.FastestSeconds
				}
			}
			steps[i], secs[i] = append(steps[i], st), append(secs[i], sec)
		}
	}
	r.Steps = compare.NewProfile(settings, problems, steps)
	r.Seconds = compare.NewProfile(settings, problems, secs)
}

// write writes the suite's table (table.txt, table.tex), time-to-target
// table (time_to_target.txt, .csv), profiles (profile_steps and
// profile_seconds as PNG, SVG and PDF) and suite.json into dir.
func (r *SuiteReport) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]func(io.Writer) error{
		"table.txt": r.WriteTable, "table.tex": r.WriteLaTeX, "time_to_target.txt": r.WriteTimeToTarget,
	}
	for name, fn := range files {
		if err := params.WriteFileAtomic(filepath.Join(dir, name), fn); err != nil {
			return err
		}
	}
	var rows [][]string
	for _, p := range r.Problems {
		if p.Summary == nil {
			continue
		}
		for _, row := range p.Summary.Rows {
			rows = append(rows, []string{p.Name, row.Setting, report.Ftoa(p.Summary.Target), report.Ftoa(row.FastestLR),
				report.Ftoa(row.FastestSteps), report.Ftoa(row.FastestSeconds)})
		}
	}
	err := report.WriteCSV(filepath.Join(dir, "time_to_target.csv"), []string{"problem", "setting", "target", "lr", "steps", "seconds"}, rows)
	if err != nil {
		return err
	}
	for _, pr := range []struct {
		name, unit string
		p          compare.Profile
	}{{"profile_steps", "steps", r.Steps}, {"profile_seconds", "seconds", r.Seconds}} {
		f := report.Figure{Title: fmt.Sprintf("suite %s: performance profile (%s to target)", r.Suite, pr.unit),
			XLabel: "ratio τ to the fastest setting", YLabel: "fraction of problems within τ", Steps: true, LinearY: true, YMin: 0, YMax: 1.45}
		for i, name := range pr.p.Settings {
			tau, rho := pr.p.Curve(i, compare.ProfileTauMax)
			f.Lines = append(f.Lines, report.Series{Name: fmt.Sprintf("%s (score %.3f)", name, pr.p.Scores[i]), X: tau, Y: rho})
		}
		if err := f.Save(filepath.Join(dir, pr.name)); err != nil {
			return err
		}
	}
	return report.WriteJSON(filepath.Join(dir, "suite.json"), r)
}

// WriteTable prints one line per (problem, setting): the tuned rate
// (with its edge), the best validation loss (mean ± sd over seeds), the
// divergences, and with a target the fastest point's steps and seconds to
// it; then the profiles' scores and the problems skipped.
func (r *SuiteReport) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "problem\tsetting\ttuned lr\tseeds\tbest valid\ttarget\tsteps to target\tseconds to target\tdivergences\tstatus")
	for _, p := range r.Problems {
		if p.Summary == nil {
			continue
		}
		for _, row := range p.Summary.Rows {
			lr := fmt.Sprintf("%g (of %d)", row.LR, row.Grid)
			if row.Edge != "" {
				lr += " " + row.Edge + " edge"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%d/%d\t%s\n", p.Name, row.Setting, lr, row.Runs, pmText(row.ValidMean, row.ValidSD),
				gText(p.Summary.Target), gText(row.FastestSteps), secText(row.FastestSeconds), row.GridDiverged, row.GridRuns, rowStatus(row))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Steps.Settings) > 0 {
		fmt.Fprintf(w, "\nperformance profile scores (area under rho over [1, %d]; steps / seconds):", compare.ProfileTauMax)
		for i, name := range r.Steps.Settings {
			fmt.Fprintf(w, " %s %.3f / %.3f;", name, r.Steps.Scores[i], r.Seconds.Scores[i])
		}
		fmt.Fprintln(w)
	}
	for _, p := range r.Problems {
		if p.Skipped != "" {
			fmt.Fprintf(w, "skipped %s: %s\n", p.Name, p.Skipped)
		}
	}
	return nil
}

// WriteTimeToTarget prints the steps to each problem's target per
// setting, one column per problem, and the profile's score.
func (r *SuiteReport) WriteTimeToTarget(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "setting\t%s\tscore (steps)\tscore (seconds)\n", strings.Join(r.Steps.Problems, "\t"))
	for i, name := range r.Steps.Settings {
		var cells []string
		for j, prob := range r.Steps.Problems {
			cell := "-"
			if p := r.problem(prob); p != nil {
				row := p.Summary.Rows[i]
				if !math.IsNaN(row.FastestSteps) {
					cell = fmt.Sprintf("%s (%.1fs, x%.2f)", gText(row.FastestSteps), row.FastestSeconds, r.Steps.Ratios[i][j])
				}
			}
			cells = append(cells, cell)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\n", name, strings.Join(cells, "\t"), r.Steps.Scores[i], r.Seconds.Scores[i])
	}
	return tw.Flush()
}

// WriteLaTeX writes the time-to-target table as a booktabs tabular: one
// row per setting, the steps to each problem's target, the profile score.
func (r *SuiteReport) WriteLaTeX(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\\begin{tabular}{l%sr}\n\\toprule\nSetting", strings.Repeat("r", len(r.Steps.Problems)))
	for _, p := range r.Steps.Problems {
		fmt.Fprintf(&b, " & %s", strings.ReplaceAll(p, "_", `\_`))
	}
	b.WriteString(" & Score \\\\\n\\midrule\n")
	for i, name := range r.Steps.Settings {
		b.WriteString(strings.ReplaceAll(name, "_", `\_`))
		for j := range r.Steps.Problems {
			cell := "--"
			if p := r.problem(r.Steps.Problems[j]); p != nil && !math.IsNaN(p.Summary.Rows[i].FastestSteps) {
				cell = gText(p.Summary.Rows[i].FastestSteps)
				if r.Steps.Ratios[i][j] == 1 {
					cell = `\textbf{` + cell + `}`
				}
			}
			b.WriteString(" & " + cell)
		}
		fmt.Fprintf(&b, " & %.3f \\\\\n", r.Steps.Scores[i])
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *SuiteReport) problem(name string) *SuiteProblem {
	for i := range r.Problems {
		if r.Problems[i].Name == name && r.Problems[i].Summary != nil {
			return &r.Problems[i]
		}
	}
	return nil
}

// MarshalJSON writes {"suite", "problems": [{"name", "skipped", "target",
// "target_from", "rows"}], "profile_steps", "profile_seconds"}, each
// profile {"settings", "problems", "ratios", "scores"} with null for a
// ratio that is not finite.
func (r *SuiteReport) MarshalJSON() ([]byte, error) {
	type prof struct {
		Settings []string         `json:"settings"`
		Problems []string         `json:"problems"`
		Ratios   [][]report.Float `json:"ratios"`
		Scores   []float64        `json:"scores"`
	}
	conv := func(p compare.Profile) prof {
		out := prof{Settings: p.Settings, Problems: p.Problems, Scores: p.Scores}
		for _, rs := range p.Ratios {
			var row []report.Float
			for _, v := range rs {
				row = append(row, report.Float(v))
			}
			out.Ratios = append(out.Ratios, row)
		}
		return out
	}
	type problem struct {
		Name       string           `json:"name"`
		Skipped    string           `json:"skipped,omitempty"`
		Target     report.Float     `json:"target,omitempty"`
		TargetFrom string           `json:"target_from,omitempty"`
		Summary    *compare.Summary `json:"summary,omitempty"`
	}
	out := struct {
		Suite    string    `json:"suite"`
		Problems []problem `json:"problems"`
		Steps    prof      `json:"profile_steps"`
		Seconds  prof      `json:"profile_seconds"`
	}{Suite: r.Suite, Steps: conv(r.Steps), Seconds: conv(r.Seconds)}
	for _, p := range r.Problems {
		q := problem{Name: p.Name, Skipped: p.Skipped, Summary: p.Summary, TargetFrom: p.Spec.TargetFrom}
		if p.Summary != nil {
			q.Target = report.Float(p.Summary.Target)
		}
		out.Problems = append(out.Problems, q)
	}
	return json.Marshal(out)
}

func pmText(m, sd float64) string {
	if math.IsNaN(m) {
		return "-"
	}
	return fmt.Sprintf("%.4g ± %.2g", m, sd)
}

func gText(v float64) string {
	if math.IsNaN(v) || v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.4g", v)
}

func secText(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

// rowStatus is "ok", "diverged" or "failed" for the tuned point of row.
func rowStatus(row compare.Row) string {
	switch {
	case row.Diverged > 0:
		return fmt.Sprintf("diverged (%d/%d seeds)", row.Diverged, row.Runs)
	case row.Failed > 0:
		return fmt.Sprintf("failed (%d/%d seeds)", row.Failed, row.Runs)
	}
	return "ok"
}
