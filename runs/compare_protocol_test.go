package runs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/optim/compare"
)

// tinyCompare is a comparison of two optimizers on a small PFA LSTM
// with a one-epoch budget.
func tinyCompare(dir string) CompareSpec {
	return CompareSpec{Model: "rnn", Hidden: 4, Settings: []compare.Setting{{Optimizer: "sgd"}, {Optimizer: "adam"}},
		LRGrid: []float64{0.01, 0.1}, Seeds: []uint64{1, 2}, Budget: compare.Budget{Steps: 6}, Batch: 64, Jobs: 2, Out: dir}
}

// TestCompareSpecErrors checks that every refusal names its field.
func TestCompareSpecErrors(t *testing.T) {
	data := filepath.Join(t.TempDir(), "mine.csv")
	if err := os.WriteFile(data, []byte("1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		spec  CompareSpec
		field string
	}{
		{CompareSpec{Model: "2rnn-spectral", DataFile: data}, "DataFile"},
		{CompareSpec{Model: "pcnn", DataFile: data}, "DataFile"},
		{CompareSpec{Model: "wfa"}, "DataFile"},
		{CompareSpec{Model: "lstm", Size: 10}, "Size"},
		{CompareSpec{Model: "lstm", Protocol: "mlcommons"}, "Protocol"},
		{CompareSpec{Model: "lstm", Seeds: []uint64{1, 1}}, "Seeds"},
		{CompareSpec{Model: "lstm", LRGrid: []float64{0.1}, ExtendGrid: 2}, "ExtendGrid"},
		{CompareSpec{Model: "lstm", LRGrid: []float64{0.1}, OwnRates: true}, "LRGrid"},
		{CompareSpec{Model: "lstm", Settings: []compare.Setting{{Optimizer: "riemann"}}}, "Settings"},
		{CompareSpec{Suite: "small", Model: "lstm"}, "Model"},
		{CompareSpec{Suite: "huge"}, "Suite"},
		{CompareSpec{Model: "nope"}, "Model"},
		{CompareSpec{Model: "umps", Layers: 2}, "Layers"},
	} {
		err := c.spec.WithDefaults().Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.HasPrefix(err.Error(), c.field) {
			t.Errorf("%+v: error %v, want a FieldError of field %s", c.spec, err, c.field)
		}
	}
	s := CompareSpec{Model: "2rnn-spectral"}.WithDefaults()
	if err := s.Validate(); err != nil || len(s.LRGrid) != 5 || s.LRGrid[0] != 1e-6 || s.Budget.Epochs != 3 || s.Batch != 32 || len(s.Seeds) != 3 {
		t.Errorf("2rnn-spectral defaults: grid %v, budget %+v, batch %d, seeds %v, %v", s.LRGrid, s.Budget, s.Batch, s.Seeds, err)
	}
	if s := (CompareSpec{Protocol: ProtocolDeepOBS}).WithDefaults(); s.Validate() != nil || s.Rerun != 10 || len(s.Seeds) != 1 {
		t.Errorf("deepobs defaults: rerun %d, seeds %v", s.Rerun, s.Seeds)
	}
	// A zero left after WithDefaults is refused like any other value.
	if err := (CompareSpec{Model: "lstm"}).Validate(); err == nil {
		t.Error("a spec without its defaults validated")
	}
}

// TestCompareDeepOBS tunes on one seed and reruns the tuned rate with
// 3 seeds in all; the table reports the range.
func TestCompareDeepOBS(t *testing.T) {
	spec := tinyCompare(t.TempDir())
	spec.Protocol, spec.Seeds, spec.Rerun = ProtocolDeepOBS, nil, 3
	rep, err := RunCompare(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Summary.Rows {
		if r.Runs != 3 || r.Grid != 2 {
			t.Errorf("%s: %d seeds at the tuned rate of %d, want 3 of 2", r.Setting, r.Runs, r.Grid)
		}
	}
	b, err := os.ReadFile(filepath.Join(spec.Out, "table.txt"))
	if err != nil || !strings.Contains(string(b), "best valid range") {
		t.Errorf("table.txt lacks the range: %s %v", b, err)
	}
}

// TestCompareAlgoPerf takes the target from the reference run, stores it
// with the comparison, and reports the fastest point to it.
func TestCompareAlgoPerf(t *testing.T) {
	spec := tinyCompare(t.TempDir())
	spec.Protocol, spec.EvalEvery, spec.Seeds = ProtocolAlgoPerf, 2, []uint64{1}
	rep, err := RunCompare(spec)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Target <= 0 || !strings.Contains(rep.Spec.TargetFrom, "adam on the grid") {
		t.Fatalf("target %v from %q", rep.Summary.Target, rep.Spec.TargetFrom)
	}
	adam := rep.Summary.Rows[1]
	if adam.Setting != "adam" || adam.FastestSteps > 6 || !(adam.FastestSteps > 0) {
		t.Errorf("adam, whose run with seed 1 is the reference: fastest %v steps at lr %v", adam.FastestSteps, adam.FastestLR)
	}
	for _, f := range []string{"target.json", "reference/plan.json", "table.tex", "loss_vs_epoch.svg", "loss_vs_lr.pdf"} {
		if _, err := os.Stat(filepath.Join(spec.Out, f)); err != nil {
			t.Error(err)
		}
	}
	plan, err := os.ReadFile(filepath.Join(spec.Out, "plan.json"))
	if err != nil || !strings.Contains(string(plan), `"target_from"`) || !strings.Contains(string(plan), `"target"`) {
		t.Errorf("plan.json does not store the target: %.300s %v", plan, err)
	}
}

// TestCompareSuite runs a two-problem suite and checks its table, time
// to target and profile files.
func TestCompareSuite(t *testing.T) {
	compareSuites["test-tiny"] = []suiteProblem{
		{name: "rnn-pfa", spec: CompareSpec{Model: "rnn", Task: "pfa", Hidden: 4, Budget: compare.Budget{Steps: 4}, Batch: 64, EvalEvery: 2,
			LRGrid: []float64{0.01, 0.1}}},
		{name: "gru-pfa", spec: CompareSpec{Model: "gru", Task: "pfa", Hidden: 3, Budget: compare.Budget{Steps: 4}, Batch: 64, EvalEvery: 2,
			LRGrid: []float64{0.03, 0.3}}},
		// A 2-RNN whose reference makes no progress in one epoch at these
		// rates: skipped, without a target.
		{name: "2rnn", spec: CompareSpec{Model: "2rnn", Size: 20, Budget: compare.Budget{Epochs: 1}, Batch: 10, LRGrid: []float64{1e-3, 1e-2}}},
		{name: "needs-data", spec: CompareSpec{Model: "wfa"}, pautomac: "no-such-file.train"},
	}
	defer delete(compareSuites, "test-tiny")
	dir := t.TempDir()
	rep, err := RunCompare(CompareSpec{Suite: "test-tiny", Protocol: ProtocolAlgoPerf, Settings: []compare.Setting{{Optimizer: "sgd"}, {Optimizer: "adam"}},
		Seeds: []uint64{1}, Jobs: 2, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Suite
	if len(s.Problems) != 4 || !strings.Contains(s.Problems[2].Skipped, "did not lower the loss") || s.Problems[3].Skipped == "" ||
		len(s.Steps.Problems) != 2 || len(s.Steps.Settings) != 2 {
		t.Fatalf("suite: %d problems (skipped: %q, %q), profile over %v and %v", len(s.Problems), s.Problems[2].Skipped, s.Problems[3].Skipped,
			s.Steps.Problems, s.Steps.Settings)
	}
	for _, f := range []string{"table.txt", "table.tex", "time_to_target.txt", "time_to_target.csv", "suite.json", "profile_steps.png",
		"profile_steps.svg", "profile_steps.pdf", "profile_seconds.pdf", "rnn-pfa/table.txt", "gru-pfa/loss_vs_lr.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "table.txt"))
	if !strings.Contains(string(b), "performance profile scores") || !strings.Contains(string(b), "skipped needs-data") {
		t.Errorf("suite table:\n%s", b)
	}
	j, _ := os.ReadFile(filepath.Join(dir, "suite.json"))
	if strings.Contains(string(j), "NaN") || !strings.Contains(string(j), `"profile_steps"`) {
		t.Errorf("suite.json: %.300s", j)
	}
}

// TestCompareAlgoPerfShards runs an AlgoPerf comparison as 2 shards in
// their own directories: each finds the same target, and their merge
// writes the grid of the unsharded run byte for byte.
func TestCompareAlgoPerfShards(t *testing.T) {
	spec := tinyCompare(t.TempDir())
	spec.Protocol, spec.EvalEvery = ProtocolAlgoPerf, 2
	if _, err := RunCompare(spec); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := 1; i <= 2; i++ {
		sh := spec
		sh.Out, sh.Shard = filepath.Join(t.TempDir(), "s"), compare.Shard{Index: i, Count: 2}
		if _, err := RunCompare(sh); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, sh.Out)
	}
	out := t.TempDir()
	if _, err := MergeCompare(out, dirs...); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"grid.csv", "table.tex"} {
		a, err1 := os.ReadFile(filepath.Join(spec.Out, f))
		b, err2 := os.ReadFile(filepath.Join(out, f))
		if err1 != nil || err2 != nil || string(a) != string(b) {
			t.Errorf("%s of the merged shards differs from the unsharded run's (%v, %v)", f, err1, err2)
		}
	}
}
