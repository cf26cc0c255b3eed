package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/spectral"
)

// spectralJSON runs rtn spectral with -json and decodes the report.
func spectralJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	stdout, stderr, code := invoke(append(append([]string{"spectral"}, args...), "-json")...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v in %q", err, stdout)
	}
	return rep
}

// The check: rtn spectral -data on the file written by
// -save-data gives the built-in run's test_mse (and train_mse), for both
// file forms.
func TestSpectralSaveDataSameMSE(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range []string{".npz", ".csv"} {
		file := filepath.Join(dir, "data"+ext)
		built := spectralJSON(t, "-task", "random2rnn", "-method", "ls", "-n", "60", "-seed", "4", "-save-data", file)
		// The built-in run's rank is the target's, 5; from a file the rank
		// is chosen from the data unless given.
		fromFile := spectralJSON(t, "-data", file, "-method", "ls", "-seed", "4", "-rank", "5")
		for _, k := range []string{"test_mse", "train_mse", "test_output_var", "rank"} {
			if built[k] != fromFile[k] || built[k] == nil {
				t.Errorf("%s: %s %v built in, %v from the file", ext, k, built[k], fromFile[k])
			}
		}
		if fromFile["basis"] != "prefixes {2} x suffixes {2}" || fromFile["n_test"] != 1000.0 {
			t.Errorf("%s: %v", ext, fromFile)
		}
	}
}

// A saved model loads back bit for bit, and predict's output file holds
// exactly the model's predictions, whose MSE on the test part is the
// run's test_mse.
func TestSpectralModelPredictRoundTrip(t *testing.T) {
	dir := t.TempDir()
	data, model, pred := filepath.Join(dir, "d.npz"), filepath.Join(dir, "m"), filepath.Join(dir, "pred.csv")
	rep := spectralJSON(t, "-method", "ls", "-n", "60", "-seed", "5", "-save-data", data, "-out", model)
	m, info, err := spectral.LoadModel(filepath.Join(model, "model.npz"))
	if err != nil || info.Method != "ls" || info.TrainMSE != rep["train_mse"] {
		t.Fatalf("%+v %v", info, err)
	}
	_, stderr, code := invoke("spectral", "predict", "-model", filepath.Join(model, "model.npz"), "-data", data, "-out", pred, "-json")
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	orig, err := datasets.ReadIOData(data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := datasets.ReadIOData(pred)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.PredictIO(orig)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Y, want) || !slices.Equal(got.Split, orig.Split) {
		t.Fatal("the predictions file differs from the model's predictions")
	}
	ss, n := 0.0, 0
	for i, p := range got.Split {
		if p == datasets.PartTest {
			for o := range got.Out {
				e := got.Y[i*got.Out+o] - orig.Y[i*got.Out+o]
				ss += e * e
				n++
			}
		}
	}
	if mse := ss / float64(n); mse != rep["test_mse"] {
		t.Fatalf("test MSE of the predictions %v, the run's %v", mse, rep["test_mse"])
	}
}

// Fine-tuning through the trainer: 2 epochs then a resume to 4 give the
// model of 4 epochs straight, bit for bit, with any optimizer.
func TestSpectralFinetuneResume(t *testing.T) {
	dir := t.TempDir()
	data, model := filepath.Join(dir, "d.csv"), filepath.Join(dir, "m.npz")
	spectralJSON(t, "-method", "ls", "-n", "60", "-seed", "6", "-noise", "0.1", "-save-data", data, "-out", model)
	tune := func(out string, extra ...string) map[string]any {
		args := append([]string{"spectral", "finetune", "-model", model, "-data", data, "-optimizer", "rmsprop", "-lr", "0.001", "-batch", "50", "-json"}, extra...)
		stdout, stderr, code := invoke(append(args, "-out", out)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	straight := tune(a, "-epochs", "4")
	tune(b, "-epochs", "2")
	resumed := tune(b, "-epochs", "4", "-resume", b)
	if straight["test_mse"] != resumed["test_mse"] || resumed["epochs"] != 4.0 {
		t.Fatalf("straight %v, resumed %v", straight, resumed)
	}
	if !(straight["train_mse"].(float64) < straight["initial_train_mse"].(float64)) {
		t.Fatalf("fine-tuning did not lower the training MSE: %v", straight)
	}
	ma, _, err := spectral.LoadModel(filepath.Join(a, "model.npz"))
	if err != nil {
		t.Fatal(err)
	}
	mb, _, err := spectral.LoadModel(filepath.Join(b, "model.npz"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ma.A, mb.A) || !slices.Equal(ma.Alpha, mb.Alpha) || !slices.Equal(ma.Omega, mb.Omega) {
		t.Fatal("the resumed run's model differs")
	}
	_, stderr, code := invoke("spectral", "finetune", "-model", model, "-data", data, "-optimizer", "adam", "-lr", "0.001", "-batch", "50", "-epochs", "6", "-resume", b)
	if code != 1 || !strings.Contains(stderr, "optimizer") {
		t.Fatalf("resume with another optimizer: exit %d, %q", code, stderr)
	}
}

func TestSpectralDataErrors(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.npz")
	spectralJSON(t, "-method", "ls", "-n", "30", "-save-data", data)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"spectral", "-data", "testdata/spectral-ragged.csv"}, 1, "testdata/spectral-ragged.csv:4: 4 fields"},
		{[]string{"spectral", "-data", "testdata/spectral-nan.csv"}, 1, "testdata/spectral-nan.csv:3: output y1 is NaN"},
		{[]string{"spectral", "-data", "testdata/spectral-header.csv"}, 1, "testdata/spectral-header.csv:1: header"},
		{[]string{"spectral", "-data", "no-such-file.npz"}, 1, "no-such-file.npz"},
		{[]string{"spectral", "-data", data, "-rank", "10"}, 2, "-rank must be at most"},
		{[]string{"spectral", "-data", data, "-n", "5"}, 2, "-n must be unset with -data: the data file replaces the built-in task"},
		{[]string{"spectral", "-data", data, "-method", "lstm"}, 2, "-method"},
		{[]string{"spectral", "-data", data, "-test-frac", "1"}, 2, "-test-frac"},
		{[]string{"spectral", "-sweep", "-save-data", data}, 2, "-save-data"},
		{[]string{"spectral", "-save-data", "d.txt"}, 2, "-save-data must be a .npz or .csv file"},
		{[]string{"spectral", "-method", "lstm", "-out", "m"}, 2, "-method lstm"},
		{[]string{"spectral", "predict", "-data", data}, 2, "-model"},
		{[]string{"spectral", "predict", "-model", data, "-data", data}, 1, "not a linear 2-RNN model file"},
		{[]string{"spectral", "finetune", "-model", "m.npz", "-data", data, "-optimizer", "lbfgs"}, 2, "-optimizer"},
		{[]string{"spectral", "finetune", "-model", "m.npz", "-data", data, "-epochs", "0"}, 2, "-epochs"},
	} {
		_, stderr, code := invoke(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q, want status %d and one line containing %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// Golden output of a run on a small committed CSV of mixed lengths.
func TestSpectralDataGolden(t *testing.T) {
	stdout, stderr, code := invoke("spectral", "-data", "testdata/spectral-mixed.csv", "-method", "ls", "-test-frac", "0.25", "-valid-frac", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "spectral-data-mixed.stdout", roundingZero(dropSeconds(stdout)))
	golden(t, "spectral-data-mixed.stderr", stderr)
}

// roundingZero writes the errors of a table that are at rounding level
// (below 1e-20: an exact fit) as "< 1e-20", so that the golden output does
// not depend on the matrix-product kernel's rounding (-tags openblas).
func roundingZero(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) == 3 && f[1] == "MSE" {
			if v, err := strconv.ParseFloat(f[2], 64); err == nil && math.Abs(v) < 1e-20 {
				lines[i] = strings.Replace(l, f[2], "< 1e-20", 1)
			}
		}
	}
	return strings.Join(lines, "")
}

// dropSeconds removes the timing line of a table.
func dropSeconds(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "seconds") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}
