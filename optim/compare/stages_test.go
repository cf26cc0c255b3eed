package compare

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
)

// lowGrid tunes sgd on rates far below its best (about 0.5 on linReg):
// the tuned rate is the grid's top.
func lowGrid() Config {
	c := smallConfig()
	c.Settings = []Setting{{Optimizer: "sgd"}, {Name: "sgd-ar", Optimizer: "sgd", AcceptReject: true}}
	c.LRGrid = []float64{1e-4, 1e-3}
	c.Target = 0
	return c
}

func rowOf(t *testing.T, s *Summary, name string) Row {
	t.Helper()
	for _, r := range s.Rows {
		if r.Setting == name {
			return r
		}
	}
	t.Fatalf("no row %s", name)
	return Row{}
}

func TestEdgeFlagged(t *testing.T) {
	s := mustRun(t, lowGrid()).Summary()
	if r := rowOf(t, s, "sgd"); r.LR != 1e-3 || r.Edge != "high" {
		t.Fatalf("sgd tuned to %v, edge %q; want 0.001 at the high edge", r.LR, r.Edge)
	}
	if r := rowOf(t, s, "sgd-ar"); r.Edge != "" {
		t.Errorf("a self-tuned setting (one rate) flagged at edge %q", r.Edge)
	}
	var tab strings.Builder
	if err := s.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tab.String(), "0.001 (of 2) high edge") || !strings.Contains(tab.String(), "note: tuned at the edge of the grid: sgd (high)") {
		t.Errorf("table does not flag the edge:\n%s", tab.String())
	}
	j, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j), `"grid_edge":"high"`) || !strings.Contains(string(j), `"grid_edge":null`) {
		t.Errorf("summary.json lacks grid_edge high and null: %.600s", j)
	}
}

func TestExtendGrid(t *testing.T) {
	const extend = 4
	c := lowGrid()
	c.ExtendGrid = extend
	res := mustRun(t, c)
	s := res.Summary()
	r := rowOf(t, s, "sgd")
	// 1e-3 -> 1e-2, 0.1, 1 (interior once 10 diverges or loses).
	if r.Edge != "" || r.Grid <= 2 || r.Grid > 2+extend {
		t.Fatalf("sgd after extension: lr %v of %d, edge %q; want an interior rate of at most %d", r.LR, r.Grid, r.Edge, 2+extend)
	}
	var lrs []float64
	for _, g := range s.Grid {
		if g.Setting == "sgd" {
			lrs = append(lrs, g.LR)
		}
	}
	want := []float64{1e-4, 1e-3, 1e-2, 0.1, 1, 10}[:r.Grid]
	if !slices.Equal(lrs, want) {
		t.Errorf("sgd's rates %v, want %v", lrs, want)
	}
	// A bound of 1 stops after one rate, still at the edge.
	c.ExtendGrid = 1
	if r := rowOf(t, mustRun(t, c).Summary(), "sgd"); r.Grid != 3 || r.Edge != "high" || r.LR != 0.01 {
		t.Errorf("ExtendGrid 1: lr %v of %d, edge %q; want 0.01 of 3 at the high edge", r.LR, r.Grid, r.Edge)
	}
}

func TestRerun(t *testing.T) {
	c := smallConfig()
	c.Seeds, c.Rerun = []uint64{1}, 4
	s := mustRun(t, c).Summary()
	for _, g := range s.Grid {
		if g.Runs != 1 {
			t.Errorf("grid point %s %v has %d runs, want the tuning seed only", g.Setting, g.LR, g.Runs)
		}
	}
	for _, r := range s.Rows {
		if r.Runs != 4 || !(r.ValidMin <= r.ValidMean && r.ValidMean <= r.ValidMax) {
			t.Errorf("%s: %d seeds at the tuned rate, range %v..%v around %v; want 4 seeds", r.Setting, r.Runs, r.ValidMin, r.ValidMax, r.ValidMean)
		}
	}
}

// TestStagesShardAndResume runs a comparison with extensions and reruns
// as 2 shards in a shared directory, each run twice (the second pass
// trains the stages the first could not list), and checks that it equals
// the unsharded run and that Merge gives the same.
func TestStagesShardAndResume(t *testing.T) {
	base := lowGrid()
	base.ExtendGrid, base.Rerun, base.Seeds = 3, 3, []uint64{1, 2}
	want := fingerprint(mustRun(t, base))
	dir := t.TempDir()
	for pass := range 4 {
		for i := 1; i <= 2; i++ {
			c := base
			c.Dir, c.Shard = dir, Shard{Index: i, Count: 2}
			r := mustRun(t, c)
			if pass == 0 && i == 1 && r.Waiting == 0 {
				t.Fatal("shard 1/2 alone completed a comparison whose stages need shard 2")
			}
		}
	}
	m, err := Merge(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := fingerprint(m); got != want {
		t.Fatalf("merged staged shards differ:\n%s\nvs\n%s", got, want)
	}
	// Resumed from the directory: nothing is trained again, same numbers.
	c := base
	c.Dir = dir
	c.Problem = func(seed uint64) (optim.Problem, error) {
		p, err := newLinReg(seed)
		return p, err
	}
	if got := fingerprint(mustRun(t, c)); got != want {
		t.Fatalf("resumed staged run differs:\n%s\nvs\n%s", got, want)
	}
}

func TestRunFilesHoldNoNaN(t *testing.T) {
	dir := t.TempDir()
	c := smallConfig()
	c.Dir = dir
	want := fingerprint(mustRun(t, c))
	files, err := filepath.Glob(filepath.Join(dir, "runs", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	nulls := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "NaN") || strings.Contains(string(b), "Inf") {
			t.Fatalf("%s holds a non-JSON number:\n%.300s", f, b)
		}
		nulls += strings.Count(string(b), "null")
	}
	if nulls == 0 {
		t.Error("no null in the run files: the start's training loss is NaN")
	}
	// Every run loaded back: the same numbers bit for bit.
	if got := fingerprint(mustRun(t, c)); got != want {
		t.Fatalf("loaded runs differ:\n%s\nvs\n%s", got, want)
	}
}

// nearOpt is linReg without noise started at w* plus a tiny offset: its
// start's loss is nearly zero.
type nearOpt struct{ *linReg }

func newNearOpt(seed uint64) (optim.Problem, error) {
	p, err := newLinReg(seed)
	if err != nil {
		return nil, err
	}
	l := p.(*linReg)
	for _, set := range [][][4]float64{l.train, l.valid, l.te} {
		for i := range set {
			set[i][3] = set[i][0] - 2*set[i][1] + 0.5*set[i][2]
		}
	}
	copy(l.p.Data("w"), []float64{1 + 1e-6, -2, 0.5})
	return nearOpt{l}, nil
}

func (n nearOpt) Params() *params.Params { return n.p }

// TestDivergenceNearOptimum: Adam moves every weight by about its rate
// whatever the gradient, so from a start whose loss is about 1e-12 its
// first step at lr 1e-3 raises the loss a million times, yet far below
// the trivial loss (2.6, the zero output's): with the trivial reference
// the run is not diverged; without it, it is.
func TestDivergenceNearOptimum(t *testing.T) {
	c := Config{Problem: newNearOpt, Settings: []Setting{{Optimizer: "adam"}}, Seeds: []uint64{1}, LRGrid: []float64{1e-3},
		Budget: Budget{Epochs: 2}, BatchSize: 5}
	o := mustRun(t, c).Runs[0]
	if o.Status != Diverged {
		t.Fatalf("without a trivial loss: %v (%s), want diverged against the start's tiny loss", o.Status, o.Reason)
	}
	c.References = []Reference{{Kind: Trivial, Label: "zero output", Loss: 2.6}}
	if o := mustRun(t, c).Runs[0]; o.Status != OK {
		t.Fatalf("with the trivial loss: %v at step %d (%s), want OK", o.Status, o.DivergedStep, o.Reason)
	}
	// A real blow-up still diverges.
	c.Settings, c.LRGrid = []Setting{{Optimizer: "sgd"}}, []float64{10}
	if o := mustRun(t, c).Runs[0]; o.Status != Diverged || math.IsNaN(float64(o.DivergedStep)) {
		t.Fatalf("lr 10: %v, want diverged", o.Status)
	}
}

func TestWriteLaTeX(t *testing.T) {
	s := mustRun(t, lowGrid()).Summary()
	var b strings.Builder
	if err := s.WriteLaTeX(&b); err != nil {
		t.Fatal(err)
	}
	tex := b.String()
	for _, want := range []string{`\toprule`, `\midrule`, `\bottomrule`, `sgd-ar`, `$0.001$$^\dagger$`, `\pm`, `\mathbf{`} {
		if !strings.Contains(tex, want) {
			t.Errorf("LaTeX table lacks %q:\n%s", want, tex)
		}
	}
}
