package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// spectralFiles writes, with small built-in runs, a sequence-data file in
// each form (split into train and test by the run) and a saved model
// (m.npz and m.json) into dir.
func spectralFiles(t *testing.T, dir string) (dataNPZ, dataCSV, model string) {
	t.Helper()
	dataNPZ, dataCSV, model = filepath.Join(dir, "d.npz"), filepath.Join(dir, "d.csv"), filepath.Join(dir, "m.npz")
	for _, args := range [][]string{
		{"spectral", "-method", "ls", "-n", "60", "-seed", "5", "-save-data", dataNPZ, "-out", model},
		{"spectral", "-method", "ls", "-n", "60", "-seed", "5", "-save-data", dataCSV},
	} {
		if _, stderr, code := invoke(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	return dataNPZ, dataCSV, model
}

// spectralRefused runs a command line that must fail before any work:
// the exit status, one line on stderr holding want, nothing on stdout.
func spectralRefused(t *testing.T, args []string, code int, want string) {
	t.Helper()
	stdout, stderr, got := invoke(args...)
	if got != code || !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || stdout != "" {
		t.Errorf("%v: exit %d, stderr %q, stdout %q; want status %d, one line containing %q and no output", args, got, stderr, stdout, code, want)
	}
}

// Every output of the spectral commands is checked before the work:
// a -out whose parent is a file, an output named like a file of the
// wrong kind, an output that is one of the inputs or another output.
// Where the data or model named does not exist, the output check must
// come first to be seen.
func TestSpectralOutputsChecked(t *testing.T) {
	dir := t.TempDir()
	dataNPZ, dataCSV, model := spectralFiles(t, dir)
	file := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(file, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	existingCSV := filepath.Join(dir, "existing.csv")
	if err := os.WriteFile(existingCSV, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no-such.npz")
	ft := filepath.Join(dir, "ft")
	if err := os.Mkdir(ft, 0o755); err != nil {
		t.Fatal(err)
	}
	ftModel := filepath.Join(ft, "model.npz")
	orig, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ftModel, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	tiny := []string{"-ns", "20", "-noises", "0", "-methods", "ls", "-ranks", "2", "-seeds", "1", "-quiet"}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		// -data checks -out up front, as the built-in tasks do.
		{[]string{"spectral", "-data", missing, "-out", file + "/m.npz"}, 1, "-out " + file + "/m.npz: " + file + " is not a directory"},
		// A model is DIR or FILE.npz (with FILE.json).
		{[]string{"spectral", "-data", missing, "-out", filepath.Join(dir, "m.txt")}, 2, "-out must be a directory or a .npz file"},
		{[]string{"spectral", "-data", dataNPZ, "-method", "ls", "-out", existingCSV}, 2, "-out must be a directory or a .npz file"},
		{[]string{"spectral", "-method", "ls", "-n", "60", "-out", filepath.Join(dir, "x.json")}, 2, "-out must be a directory or a .npz file"},
		// predict writes .npz or .csv.
		{[]string{"spectral", "predict", "-model", missing, "-data", dataNPZ, "-out", filepath.Join(dir, "p.txt")}, 2, "-out must be a .npz or .csv file"},
		// Outputs over inputs.
		{[]string{"spectral", "-data", dataNPZ, "-method", "ls", "-out", dataNPZ}, 2, "-out " + dataNPZ + " is the input"},
		{[]string{"spectral", "predict", "-model", model, "-data", dataCSV, "-out", dataCSV}, 2, "-out " + dataCSV + " is the input"},
		{[]string{"spectral", "predict", "-model", model, "-data", dataCSV, "-out", model}, 2, "-out " + model + " is the input"},
		{[]string{"spectral", "finetune", "-model", ftModel, "-data", dataCSV, "-epochs", "1", "-out", ft}, 2, "-out " + ftModel + " is the input"},
		{[]string{"spectral", "finetune", "-model", ftModel, "-data", dataCSV, "-epochs", "1", "-resume", ft}, 2, "-resume " + ftModel + " is the input"},
		{[]string{"spectral", "-method", "ls", "-n", "60", "-save-data", filepath.Join(dir, "a.npz"), "-out", filepath.Join(dir, "a.npz")}, 2, "-save-data " + filepath.Join(dir, "a.npz") + " is also the model file of -out"},
		// Directories named like files.
		{[]string{"spectral", "finetune", "-model", model, "-data", dataCSV, "-epochs", "1", "-out", filepath.Join(dir, "tuned.npz")}, 2, "-out must name a directory"},
		{append([]string{"spectral", "-sweep", "-out", filepath.Join(dir, "res.csv")}, tiny...), 2, "-out must name a directory"},
	} {
		spectralRefused(t, c.args, c.code, c.want)
	}
	for _, f := range []string{"m.txt", "x.json", "p.txt", "a.npz", "tuned.npz", "res.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s was created", f)
		}
	}
	if now, err := os.ReadFile(ftModel); err != nil || !bytes.Equal(now, orig) {
		t.Errorf("the input model %s was changed (%v)", ftModel, err)
	}
	if _, err := os.Stat(filepath.Join(ft, "checkpoint.npz")); err == nil {
		t.Error("finetune ran over its input model")
	}
}

// A flag with no effect in the mode chosen (one built-in run, -sweep,
// -data) or with the method chosen is a usage error naming it and where
// it applies. Each sweep case would run the tiny grid, and each other
// case a small run, if the flag were ignored.
func TestSpectralFlagModes(t *testing.T) {
	dir := t.TempDir()
	dataNPZ, _, _ := spectralFiles(t, dir)
	out := filepath.Join(dir, "sweep")
	sweep := func(extra ...string) []string {
		return append([]string{"spectral", "-sweep", "-ns", "20", "-noises", "0", "-ranks", "2", "-seeds", "1", "-quiet", "-out", out}, extra...)
	}
	single := func(extra ...string) []string {
		return append([]string{"spectral", "-n", "60"}, extra...)
	}
	data := func(extra ...string) []string {
		return append([]string{"spectral", "-data", dataNPZ, "-method", "ls"}, extra...)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{single("-method", "ls", "-methods", "ls"), "-methods must be unset with a single built-in run: it applies to -sweep only (did you mean -method?)"},
		{single("-method", "ls", "-ns", "60"), "-ns must be unset with a single built-in run: it applies to -sweep only"},
		{single("-method", "ls", "-seeds", "2"), "(did you mean -seed?)"},
		{single("-method", "ls", "-resume"), "-resume must be unset with a single built-in run: it applies to -sweep only"},
		{single("-method", "ls", "-valid-frac", "0.2"), "-valid-frac must be unset with a single built-in run: it applies to -data only"},
		{single("-method", "ls", "-epochs", "5"), "-epochs must be unset with -method ls (only tiht+sgd and lstm train for epochs), got 5"},
		{data("-resume", "-ranks", "2,3"), "-ranks, -resume must be unset with -data: they apply to -sweep only"},
		{data("-noise", "0.1"), "-noise must be unset with -data: the data file replaces the built-in task"},
		{data("-epochs", "5"), "-epochs must be unset with -method ls (only tiht+sgd and lstm train for epochs), got 5"},
		{data("-valid-frac", "0.2"), "-valid-frac must be unset with " + dataNPZ + ": the file has a split of its own (its split column or array)"},
		{sweep("-methods", "ls", "-method", "ls"), "-method must be unset with -sweep: it applies to single runs (built-in task or -data) only (did you mean -methods?)"},
		{sweep("-methods", "ls", "-task", "addition", "-L", "3"), "-L, -task must be unset with -sweep: they apply to a single built-in run only"},
		{sweep("-methods", "ls", "-n", "20"), "(did you mean -ns?)"},
		{sweep("-methods", "ls", "-rank", "2"), "(did you mean -ranks?)"},
		{sweep("-methods", "ls", "-test-frac", "0.2"), "-test-frac must be unset with -sweep: it applies to -data only"},
		{sweep("-methods", "ls,tiht", "-epochs", "5"), "-epochs must be unset with -methods ls,tiht (only tiht+sgd and lstm train for epochs), got 5"},
	} {
		spectralRefused(t, c.args, 2, c.want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused sweep wrote its directory")
	}
	// The documented combinations still run.
	run1 := filepath.Join(dir, "run.1")
	if err := os.Mkdir(run1, 0o755); err != nil {
		t.Fatal(err)
	}
	addition := filepath.Join(dir, "addition.npz")
	for _, args := range [][]string{
		data("-rank", "5", "-seed", "2", "-out", run1),
		{"spectral", "-data", "testdata/spectral-mixed.csv", "-method", "ls", "-valid-frac", "0.2", "-test-frac", "0.2"},
		{"spectral", "-task", "addition", "-method", "tiht+sgd", "-epochs", "1", "-n", "300", "-save-data", addition, "-out", filepath.Join(dir, "M.NPZ")},
		{"spectral", "-data", addition, "-method", "tiht+sgd", "-epochs", "1", "-rank", "2"},
	} {
		if _, stderr, code := invoke(args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	for _, f := range []string{filepath.Join(run1, "model.npz"), filepath.Join(run1, "model.json"), filepath.Join(dir, "M.json")} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
}

// The JSON of a run on data has every documented field, n_valid and
// n_test even when 0 (the saved file has no validation part).
func TestSpectralDataJSONFields(t *testing.T) {
	dataNPZ, _, _ := spectralFiles(t, t.TempDir())
	stdout, stderr, code := invoke("spectral", "-data", dataNPZ, "-method", "ls", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v in %q", err, stdout)
	}
	for _, k := range []string{"task", "method", "n", "rank", "seed", "train_mse", "test_mse", "test_output_var",
		"zero_fallback", "iterations", "seconds", "data", "basis", "n_valid", "n_test", "valid_mse"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("no %q in %s", k, stdout)
		}
	}
	if rep["n_valid"] != 0.0 || rep["valid_mse"] != nil || rep["n_test"] != 1000.0 {
		t.Errorf("n_valid %v, valid_mse %v, n_test %v", rep["n_valid"], rep["valid_mse"], rep["n_test"])
	}
}

// -sweep checks the size of its largest grid point before the grid
// starts, as a single run does, and creates nothing.
func TestSpectralSweepSize(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sweep")
	_, stderr, code := invoke("spectral", "-sweep", "-ns", "20,1000000", "-methods", "tiht,ls", "-out", out)
	if code != 2 || !strings.Contains(stderr, "-ns must be at most 276168 with -methods tiht: its N x d^(2L+1) design matrix is too large") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s created (%v)", out, err)
	}
}
