package reproduce

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/optim/compare"
)

// TestOptimizersPlans runs the section's two comparisons at toy sizes
// (the 2-RNN from a random start: TIHT takes seconds; TestCompareProblems
// covers the spectral start) and checks the rows: one per setting, the regret of the PCNN rows (bits, at least minus a few: no
// model beats the true one by much on a whole stream), and the files.
func TestOptimizersPlans(t *testing.T) {
	plans := optimizersPlans(true, 1)
	plans[0].spec.Model, plans[0].name = "2rnn", "2rnn"
	plans[0].spec.Size, plans[0].seeds, plans[0].budget, plans[0].grid = 20, 1, compare.Budget{Epochs: 1}, []float64{1e-4}
	plans[1].spec.Size, plans[1].seeds, plans[1].budget, plans[1].grid = 2, 1, compare.Budget{Steps: 3}, []float64{1e-2}
	ctx := &Context{Quick: true, Seed: 1, Dir: t.TempDir()}
	for _, pl := range plans {
		rows, err := runOptimizersPlan(ctx, pl)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(pl.settings) {
			t.Fatalf("%s: %d rows, want %d", pl.name, len(rows), len(pl.settings))
		}
		for _, r := range rows {
			if !strings.HasPrefix(r.Metric, pl.name) || r.Paper == "" {
				t.Errorf("row %+v", r)
			}
			if pl.name == "pcnn-anbn" && r.Measured < -5 {
				t.Errorf("regret %v bits below the true model's", r.Measured)
			}
		}
		if _, err := os.Stat(filepath.Join(ctx.Dir, pl.name, "runs.csv")); err != nil {
			t.Error(err)
		}
	}
}
