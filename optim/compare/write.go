package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rtnlab/rtn/internal/report"
)

// WriteTable prints one row per setting: its tuned learning rate (with
// "edge" when it is the grid's lowest or highest), the best (kept) and
// final validation loss and the test loss as mean ± sd over seeds (with
// the range of the best validation loss after a Config.Rerun), the steps
// and seconds to the target and the fastest grid point to it, and the
// divergences ("diverged at step k" when the tuned point diverged). A
// note under the table names the settings tuned at an edge.
func (s *Summary) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "setting\toptimizer\ttuned lr\tseeds\tbest valid"
	if s.Rerun > 0 {
		head += "\tbest valid range"
	}
	head += "\tfinal valid\ttest"
	if s.Target > 0 {
		t := fmtG(s.Target)
		head += "\tsteps to " + t + "\tseconds to " + t + "\tfastest to " + t
	}
	fmt.Fprintln(tw, head+"\tdivergences\tstatus")
	for _, r := range s.Rows {
		lr := fmtLR(r.LR)
		if r.Grid > 1 {
			lr += fmt.Sprintf(" (of %d)", r.Grid)
		}
		if r.Edge != "" {
			lr += " " + r.Edge + " edge"
		}
		line := fmt.Sprintf("%s\t%s\t%s\t%d\t%s", r.Setting, r.Optimizer, lr, r.Runs, pm(r.ValidMean, r.ValidSD))
		if s.Rerun > 0 {
			line += fmt.Sprintf("\t%s .. %s", fmtG(r.ValidMin), fmtG(r.ValidMax))
		}
		line += fmt.Sprintf("\t%s\t%s", pm(r.FinalMean, r.FinalSD), pm(r.TestMean, r.TestSD))
		if s.Target > 0 {
			line += fmt.Sprintf("\t%s (%d/%d)\t%s\t%s", fmtG(r.StepsToTarget), r.Reached, r.Runs, fmtSec(r.SecondsToTarget), r.fastest())
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\n", line, r.GridDiverged, r.GridRuns, r.status())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if note := s.edgeNote(); note != "" {
		_, err := fmt.Fprintln(w, note)
		return err
	}
	return nil
}

// fastest is "N steps at lr R" for the grid point fastest to the target,
// "-" when none reached it.
func (r Row) fastest() string {
	if math.IsNaN(r.FastestSteps) {
		return "-"
	}
	return fmt.Sprintf("%s steps at lr %s", fmtG(r.FastestSteps), fmtLR(r.FastestLR))
}

// edgeNote names the settings tuned at an edge of their grid ("" for
// none).
func (s *Summary) edgeNote() string {
	var names []string
	for _, r := range s.Rows {
		if r.Edge != "" {
			names = append(names, r.Setting+" ("+r.Edge+")")
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "note: tuned at the edge of the grid: " + strings.Join(names, ", ") +
		"; the best rate may lie beyond it: widen the grid (-lr-grid) or let it grow (-extend-grid N)"
}

// status is "ok", "diverged at step k" (with the share of seeds when not
// all diverged) or the number of failed runs.
func (r Row) status() string {
	switch {
	case r.Diverged > 0 && r.Diverged == r.Runs:
		return fmt.Sprintf("diverged at step %d", r.FirstDiverged)
	case r.Diverged > 0:
		return fmt.Sprintf("diverged at step %d (%d/%d seeds)", r.FirstDiverged, r.Diverged, r.Runs)
	case r.Failed > 0:
		return fmt.Sprintf("failed (%d/%d seeds)", r.Failed, r.Runs)
	}
	return "ok"
}

func pm(m, sd float64) string {
	if math.IsNaN(m) {
		return "-"
	}
	return fmt.Sprintf("%.4g ± %.2g", m, sd)
}

func fmtG(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func fmtSec(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

// ftoa formats v so that it reads back bit for bit.
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// WriteFiles writes, atomically, into dir (which must exist):
//   - runs.csv: every curve point of every run (columns setting,
//     optimizer, lr, seed, status, diverged_step, epoch, step, train_loss,
//     valid_loss, seconds; seconds is the only wall-time column);
//   - grid.csv: every grid point (columns setting, lr, runs, ok,
//     diverged, failed, first_diverged, valid_mean, valid_sd, final_mean,
//     final_sd, test_mean, test_sd, train_mean, train_sd);
//   - summary.json: the executor, the rows, the grid and every run's
//     outcome (without its curve), non-finite numbers as null.
func (s *Summary) WriteFiles(dir string) error {
	var rows [][]string
	for _, o := range s.Runs {
		for _, p := range o.Curve {
			rows = append(rows, []string{o.Setting, o.Optimizer, ftoa(o.LR), strconv.FormatUint(o.Seed, 10), o.Status.String(),
				strconv.Itoa(o.DivergedStep), ftoa(p.Epoch), strconv.Itoa(p.Step), ftoa(p.TrainLoss), ftoa(p.ValidLoss), ftoa(p.Seconds)})
		}
	}
	err := report.WriteCSV(filepath.Join(dir, "runs.csv"), []string{"setting", "optimizer", "lr", "seed", "status", "diverged_step",
		"epoch", "step", "train_loss", "valid_loss", "seconds"}, rows)
	if err != nil {
		return err
	}
	rows = rows[:0]
	for _, g := range s.Grid {
		rows = append(rows, []string{g.Setting, ftoa(g.LR), strconv.Itoa(g.Runs), strconv.Itoa(g.OK), strconv.Itoa(g.Diverged),
			strconv.Itoa(g.Failed), strconv.Itoa(g.FirstDiverged), ftoa(g.ValidMean), ftoa(g.ValidSD), ftoa(g.FinalMean),
			ftoa(g.FinalSD), ftoa(g.TestMean), ftoa(g.TestSD), ftoa(g.TrainMean), ftoa(g.TrainSD)})
	}
	err = report.WriteCSV(filepath.Join(dir, "grid.csv"), []string{"setting", "lr", "runs", "ok", "diverged", "failed", "first_diverged",
		"valid_mean", "valid_sd", "final_mean", "final_sd", "test_mean", "test_sd", "train_mean", "train_sd"}, rows)
	if err != nil {
		return err
	}
	return report.WriteJSON(filepath.Join(dir, "summary.json"), s)
}

// jnum encodes a non-finite float64 as null (JSON has no NaN).
type jnum float64

func (v jnum) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(v))
}

type gridJSON struct {
	Setting       string `json:"setting"`
	LR            jnum   `json:"lr"`
	Runs          int    `json:"runs"`
	OK            int    `json:"ok"`
	Diverged      int    `json:"diverged"`
	Failed        int    `json:"failed"`
	FirstDiverged int    `json:"first_diverged_step,omitempty"`
	ValidMean     jnum   `json:"valid_mean"`
	ValidSD       jnum   `json:"valid_sd"`
	FinalMean     jnum   `json:"final_valid_mean"`
	FinalSD       jnum   `json:"final_valid_sd"`
	TestMean      jnum   `json:"test_mean"`
	TestSD        jnum   `json:"test_sd"`
	TrainMean     jnum   `json:"final_train_mean"`
	TrainSD       jnum   `json:"final_train_sd"`
	ValidMin      jnum   `json:"valid_min"`
	ValidMax      jnum   `json:"valid_max"`
	TargetSteps   jnum   `json:"median_steps_to_target"`
	TargetSeconds jnum   `json:"median_seconds_to_target"`
}

func (g GridPoint) json() gridJSON {
	return gridJSON{g.Setting, jnum(g.LR), g.Runs, g.OK, g.Diverged, g.Failed, g.FirstDiverged, jnum(g.ValidMean), jnum(g.ValidSD),
		jnum(g.FinalMean), jnum(g.FinalSD), jnum(g.TestMean), jnum(g.TestSD), jnum(g.TrainMean), jnum(g.TrainSD),
		jnum(g.ValidMin), jnum(g.ValidMax), jnum(g.TargetSteps), jnum(g.TargetSeconds)}
}

type rowJSON struct {
	gridJSON
	Optimizer       string  `json:"optimizer"`
	Status          string  `json:"status"`
	Grid            int     `json:"grid_points"`
	Edge            *string `json:"grid_edge"`
	GridRuns        int     `json:"grid_runs"`
	GridDiverged    int     `json:"grid_diverged"`
	Reached         int     `json:"reached_target"`
	StepsToTarget   jnum    `json:"steps_to_target"`
	SecondsToTarget jnum    `json:"seconds_to_target"`
	FastestLR       jnum    `json:"fastest_lr"`
	FastestSteps    jnum    `json:"fastest_steps"`
	FastestSeconds  jnum    `json:"fastest_seconds"`
}

type runJSON struct {
	Setting      string `json:"setting"`
	Optimizer    string `json:"optimizer"`
	LR           jnum   `json:"lr"`
	Seed         uint64 `json:"seed"`
	Status       Status `json:"status"`
	DivergedStep int    `json:"diverged_step,omitempty"`
	Reason       string `json:"reason,omitempty"`
	Epochs       int    `json:"epochs"`
	Steps        int    `json:"steps"`
	Seconds      jnum   `json:"seconds"`
	ValidLoss    jnum   `json:"valid_loss"`
	FinalValid   jnum   `json:"final_valid_loss"`
	TestLoss     jnum   `json:"test_loss"`
}

// MarshalJSON writes the summary with snake_case keys and non-finite
// numbers as null: {"target", "references", "rerun", "executor", "rows",
// "grid", "runs"}; a row's "grid_edge" is "low", "high" or null.
func (s *Summary) MarshalJSON() ([]byte, error) {
	out := struct {
		Target     jnum        `json:"target,omitempty"`
		References []Reference `json:"references,omitempty"`
		Rerun      int         `json:"rerun,omitempty"`
		Executor   Executor    `json:"executor,omitzero"`
		Rows       []rowJSON   `json:"rows"`
		Grid       []gridJSON  `json:"grid"`
		Runs       []runJSON   `json:"runs"`
	}{Target: jnum(s.Target), References: s.References, Rerun: s.Rerun, Executor: s.Executor}
	for _, r := range s.Rows {
		var edge *string
		if r.Edge != "" {
			edge = &r.Edge
		}
		out.Rows = append(out.Rows, rowJSON{r.json(), r.Optimizer, r.status(), r.Grid, edge, r.GridRuns, r.GridDiverged,
			r.Reached, jnum(r.StepsToTarget), jnum(r.SecondsToTarget), jnum(r.FastestLR), jnum(r.FastestSteps), jnum(r.FastestSeconds)})
	}
	for _, g := range s.Grid {
		out.Grid = append(out.Grid, g.json())
	}
	for _, o := range s.Runs {
		out.Runs = append(out.Runs, runJSON{o.Setting, o.Optimizer, jnum(o.LR), o.Seed, o.Status, o.DivergedStep, o.Reason,
			o.Epochs, o.Steps, jnum(o.Seconds), jnum(o.ValidLoss), jnum(o.FinalValid()), jnum(o.TestLoss)})
	}
	return json.Marshal(out)
}
