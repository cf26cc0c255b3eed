package runs

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/params"
)

// TestCompareProblems checks that every model names its executor and
// that its factory gives the same start for the same seed, a different one
// for another seed (except the spectral starts, the same estimate for
// every seed), and a validation loss.
func TestCompareProblems(t *testing.T) {
	strs := writeStringFile(t)
	for _, m := range CompareModels() {
		t.Run(m, func(t *testing.T) {
			spec := CompareSpec{Model: m, Hidden: 4, Size: 20}
			if CompareCell(m) {
				spec.Size = 0
			}
			switch m {
			case "2rnn", "2rnn-spectral":
				spec.Hidden = 0
			case "wfa":
				spec.Hidden, spec.DataFile = 2, strs
			}
			f, spec, err := CompareProblem(spec)
			if err != nil {
				t.Fatal(err)
			}
			if e := spec.Executor; e.Kind == "" || e.DType != "float64" || (e.Kind == "graph") != (e.Reason != "") {
				t.Errorf("executor %+v: want a kind, float64, and a reason for the graphs only", e)
			}
			params := func(seed uint64) (optim.Problem, *params.Params) {
				p, err := f(seed)
				if err != nil {
					t.Fatal(err)
				}
				return p, p.Params().Clone()
			}
			p1, a := params(1)
			_, b := params(1)
			_, c := params(2)
			if !sameParams(a, b) {
				t.Error("seed 1 gave two different starts")
			}
			if sameParams(a, c) != (m == "2rnn-spectral" || m == "wfa") {
				t.Errorf("seeds 1 and 2: same start %v", sameParams(a, c))
			}
			v, ok := p1.(optim.Validator)
			if !ok {
				t.Fatal("no validation loss")
			}
			if l, err := v.ValidationLoss(); err != nil || math.IsNaN(l) || math.IsInf(l, 0) {
				t.Errorf("validation loss %v, %v", l, err)
			}
		})
	}
}

// The cell sizes (rank, order, lags) reach a registered cell, which
// checks them; the other models refuse them.
func TestCompareCellSizes(t *testing.T) {
	for _, c := range []struct {
		spec CompareSpec
		ok   bool
	}{
		{CompareSpec{Model: "hotrnn", Hidden: 3, Order: 3, Lags: 1, Rank: 2}, true},
		{CompareSpec{Model: "cp2rnn", Hidden: 3, Rank: 2}, true},
		{CompareSpec{Model: "cp2rnn", Hidden: 3, Lags: 2}, false},
		{CompareSpec{Model: "lstm", Rank: 2}, false},
		{CompareSpec{Model: "umps", Order: 2}, false},
		{CompareSpec{Model: "2rnn", Rank: 2}, false},
	} {
		f, spec, err := CompareProblem(c.spec)
		if (err == nil) != c.ok {
			t.Errorf("%+v: error %v, want ok %v", c.spec, err, c.ok)
			continue
		}
		if !c.ok {
			continue
		}
		p, err := f(1)
		if err != nil {
			t.Fatal(err)
		}
		// hotrnn: C1 [D, R] with D = lags*hidden + 1; cp2rnn: F1 [H, R].
		want := map[string][2]int{"hotrnn": {4, 2}, "cp2rnn": {3, 2}}[spec.Model]
		name := map[string]string{"hotrnn": "hotrnn/A/C1", "cp2rnn": "cp2rnn/A/F1"}[spec.Model]
		if sh := p.Params().Shape(name); len(sh) != 2 || sh[0] != want[0] || sh[1] != want[1] {
			t.Errorf("%+v: %s has shape %v, want %v", c.spec, name, sh, want)
		}
	}
}

// writeStringFile writes 400 strings of the cycle language over 3 symbols
// in PAutomaC format and returns the path.
func writeStringFile(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "strings.train")
	writePAutomaC(t, path, cycleStrings(400, 3), 3)
	return path
}

// The wfa model needs its string file, and reads it in the format -task
// names.
func TestCompareWFAData(t *testing.T) {
	if _, _, err := CompareProblem(CompareSpec{Model: "wfa"}); err == nil {
		t.Error("wfa without a string file accepted")
	}
	if _, _, err := CompareProblem(CompareSpec{Model: "wfa", DataFile: writeStringFile(t), Task: "csv"}); err == nil {
		t.Error("wfa with format csv accepted")
	}
}

func sameParams(a, b *params.Params) bool {
	for _, n := range a.Names() {
		x, y := a.Data(n), b.Data(n)
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
	}
	return true
}

// TestComparePlotsDiverged draws a comparison whose every grid point
// diverged (gonum's log axis loops on an empty range): no figure, no
// error.
func TestComparePlotsDiverged(t *testing.T) {
	dir := t.TempDir()
	s := &compare.Summary{Rows: []compare.Row{{GridPoint: compare.GridPoint{Setting: "a"}, Grid: 2}},
		Grid: []compare.GridPoint{{Setting: "a", LR: 1, Diverged: 1}, {Setting: "a", LR: 2, Diverged: 1}}}
	for i := range s.Grid {
		g := &s.Grid[i]
		g.FinalMean, g.FinalSD, g.TrainMean, g.TrainSD = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	if err := ComparePlots(dir, s, "x"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"loss_vs_epoch.png", "loss_vs_lr.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s drawn without a finite point", f)
		}
	}
}
