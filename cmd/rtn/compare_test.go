package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMain lets a test run the program in a separate process: the test
// binary re-executed with RTN_TEST_MAIN=1 is rtn itself.
func TestMain(m *testing.M) {
	if os.Getenv("RTN_TEST_MAIN") == "1" {
		os.Exit(report(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
	}
	os.Exit(m.Run())
}

// tinyCompare is a comparison small enough for a test: the 2-RNN
// regression, 2 optimizers x 2 rates x 2 seeds, one epoch.
var tinyCompare = []string{"compare", "-model", "2rnn", "-size", "20", "-epochs", "1", "-batch", "10", "-quiet",
	"-optimizers", "sgd,adam", "-lr-grid", "0.01,0.1", "-seeds", "2", "-jobs", "2"}

// readNoWallTime returns a file of dir with runs.csv's last column (seconds)
// cut off.
func readNoWallTime(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if name != "runs.csv" {
		return string(b)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if i := strings.LastIndexByte(l, ','); i >= 0 {
			l = l[:i]
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestCompareShardsMerge runs the three shards of a grid as separate
// processes and checks that their merge equals the unsharded run.
func TestCompareShardsMerge(t *testing.T) {
	tmp := t.TempDir()
	whole := filepath.Join(tmp, "whole")
	if _, stderr, code := invoke(append(tinyCompare, "-out", whole)...); code != 0 {
		t.Fatalf("unsharded run: exit %d: %s", code, stderr)
	}
	var dirs []string
	for i := 1; i <= 3; i++ {
		dir := filepath.Join(tmp, "shard"+string(rune('0'+i)))
		cmd := exec.Command(os.Args[0], append(tinyCompare, "-out", dir, "-shard", string(rune('0'+i))+"/3")...)
		cmd.Env = append(os.Environ(), "RTN_TEST_MAIN=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("shard %d/3: %v: %s", i, err, out)
		}
		dirs = append(dirs, dir)
	}
	merged := filepath.Join(tmp, "merged")
	stdout, stderr, code := invoke(append([]string{"compare", "merge", "-out", merged}, dirs...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "tuned lr") {
		t.Errorf("merge printed no table:\n%s", stdout)
	}
	for _, f := range []string{"table.txt", "runs.csv", "grid.csv"} {
		if a, b := readNoWallTime(t, whole, f), readNoWallTime(t, merged, f); a != b {
			t.Errorf("%s of the merged shards differs from the unsharded run:\n%s\nvs\n%s", f, b, a)
		}
	}
	for _, f := range []string{"summary.json", "loss_vs_epoch.png", "loss_vs_seconds.png", "loss_vs_lr.png"} {
		if _, err := os.Stat(filepath.Join(merged, f)); err != nil {
			t.Error(err)
		}
	}
	if _, stderr, code := invoke("compare", "merge", dirs[0], dirs[1]); code != 1 || !strings.Contains(stderr, "missing") {
		t.Errorf("merging 2 of 3 shards: exit %d, %s", code, stderr)
	}
}

// TestCompareDivergence checks that a diverging setting is a row of the
// table and the others finish.
func TestCompareDivergence(t *testing.T) {
	args := []string{"compare", "-model", "2rnn", "-size", "20", "-epochs", "2", "-batch", "10", "-quiet",
		"-optimizers", "sgd:lr=1000:as=sgd-big,adam", "-lr-grid", "own", "-seeds", "1", "-out", t.TempDir()}
	stdout, stderr, code := invoke(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var big, adam string
	for _, l := range strings.Split(stdout, "\n") {
		switch {
		case strings.HasPrefix(l, "sgd-big "):
			big = l
		case strings.HasPrefix(l, "adam "):
			adam = l
		}
	}
	if !strings.Contains(big, "diverged at step ") || !strings.HasSuffix(strings.TrimSpace(adam), "ok") {
		t.Errorf("want sgd-big diverged and adam ok:\n%s", stdout)
	}
}

func TestCompareUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-optimizers", "sgd,lbfgs"}, "unknown optimizer \"lbfgs\" (known: adagrad, adam, adamax, adamw, lion, momentum, nadam, nesterov, radam, riemann, rmsprop, schedulefree, sgd, shampoo)"},
		{[]string{"-optimizers", "adam,adam"}, "as=LABEL"},
		{[]string{"-optimizers", "adam:beta9=1"}, "unknown key"},
		{[]string{"-optimizers", "shampoo:grafting=sgd"}, "grafting must be adam or none"},
		{[]string{"-optimizers", "shampoo:block=2.5"}, "block must be an integer >= 0"},
		{[]string{"-optimizers", "adamw:dwd=-1"}, "dwd must be a finite number >= 0"},
		{[]string{"-optimizers", "adam:schedule=warmup:2+step:3"}, `"step:3" does not fit`},
		{[]string{"-lr-grid", "1:0.1:3"}, "-lr-grid"},
		{[]string{"-seeds", "0"}, "-seeds"},
		{[]string{"-shard", "4/3"}, "-shard"},
		{[]string{"-model", "transformer"}, "-model"},
		{[]string{"-jobs", "-1"}, "-jobs"},
		{[]string{"-target", "NaN"}, "-target"},
		{[]string{"-optimizers", "riemann"}, "riemann needs a model with a metric"},
		{[]string{"-model", "wfa"}, "-data: model wfa needs a string file"},
		{[]string{"-model", "wfa", "-data", "strings.train", "-task", "csv"}, "-task"},
		{[]string{"-model", "umps", "-rank", "3"}, "-rank: applies to the registered cells only, not model umps"},
		{[]string{"-model", "cp2rnn", "-lags", "2"}, "-lags: layers: cell cp2rnn has no lags to set"},
		{[]string{"-model", "hotrnn", "-order", "-1"}, "-order: "},
		{[]string{"-model", "2rnn-spectral", "-data", "mine.csv"}, "-data: model 2rnn-spectral draws its data from the task"},
		{[]string{"-model", "pcnn", "-data", "mine.csv"}, "-data: model pcnn"},
		{[]string{"-protocol", "mlperf"}, "-protocol must be deepobs or algoperf"},
		{[]string{"-suite", "huge"}, "-suite: \"huge\" is unknown"},
		{[]string{"-suite", "small", "-model", "lstm"}, "-model: cannot be set with a suite"},
		{[]string{"-lr-grid", "0.1", "-extend-grid", "2"}, "-extend-grid: needs a grid of at least 2 rates"},
	} {
		_, stderr, code := invoke(append([]string{"compare", "-out", t.TempDir()}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, stderr, code := invoke("compare", "merge", t.TempDir()); code != 1 || !strings.Contains(stderr, "plan.json") {
		t.Errorf("merge of an empty directory: exit %d, %q", code, stderr)
	}
}

// rtn compare -model wfa fine-tunes the spectral WFA of a string file
// with each optimizer.
func TestCompareWFA(t *testing.T) {
	dir := t.TempDir()
	train := writeSample(t, dir, "train", 300, 7)
	stdout, stderr, code := invoke("compare", "-model", "wfa", "-data", train, "-hidden", "2", "-optimizers", "adam,sgd",
		"-seeds", "1", "-epochs", "1", "-quiet", "-json", "-out", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum struct {
		Rows []struct {
			Setting string   `json:"setting"`
			OK      int      `json:"ok"`
			Valid   *float64 `json:"valid_mean"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil || len(sum.Rows) != 2 {
		t.Fatalf("summary %q (%v)", stdout, err)
	}
	for _, r := range sum.Rows {
		if r.Setting == "adam" && (r.OK != 1 || r.Valid == nil || !(*r.Valid > 0)) {
			t.Errorf("adam: %d runs ok, validation loss %v", r.OK, r.Valid)
		}
	}
}

// rtn compare -model wfa refuses a bad label and flags without effect
// before any work, names a missing merge directory with exit 1, and
// refuses to resume a comparison whose data file changed.
func TestCompareWFAInputs(t *testing.T) {
	dir := t.TempDir()
	data := writeSample(t, dir, "train", 300, 1)
	file := writeText(t, dir, "file", "x\n")
	base := []string{"compare", "-model", "wfa", "-data", data, "-hidden", "2", "-optimizers", "adam", "-lr-grid", "1e-5", "-seeds", "1", "-epochs", "1", "-quiet"}
	out := filepath.Join(dir, "cmp")
	for _, tc := range []badCase{
		{append(slices.Clone(base[:9]), "-optimizers", "adam:as=x/y"), 2, `-optimizers: adam:as=x/y: as must be letters, digits and -_.+, got "x/y"`},
		{append(slices.Clone(base[:9]), "-optimizers", "adam:as="), 2, `as must be letters, digits and -_.+, got ""`},
		{append(slices.Clone(base), "-chunk", "5", "-out", out), 2, "-chunk: has no effect with model wfa"},
		{append(slices.Clone(base), "-out", file), 1, "-out " + file},
		{[]string{"compare", "merge", filepath.Join(dir, "none")}, 1, "holds no plan.json"},
	} {
		_, stderr, code := invoke(tc.args...)
		if code != tc.code || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args[1:], code, stderr, tc.code, tc.msg)
		}
	}
	if _, stderr, code := invoke(append(slices.Clone(base), "-out", out)...); code != 0 {
		t.Fatalf("compare: %s", stderr)
	}
	writeSample(t, dir, "train", 300, 2) // the same path, other strings
	if _, stderr, code := invoke(append(slices.Clone(base), "-out", out)...); code != 1 || !strings.Contains(stderr, "describes another comparison") {
		t.Errorf("resume after the data changed: exit %d, %q", code, stderr)
	}
}
