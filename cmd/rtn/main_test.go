package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// invoke runs the command line as main does and returns stdout, stderr
// and the exit status.
func invoke(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := report(run(args, &out, &errb), &errb)
	return out.String(), errb.String(), code
}

// TestGolden compares stdout and stderr of small runs with the files in
// testdata (go test ./cmd/rtn -update rewrites them). The name of the BLAS,
// which depends on the build and the processor, reads BACKEND there.
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"version", []string{"version"}, 0},
		{"help", []string{"help"}, 0},
		{"no-command", nil, 2},
		{"unknown-command", []string{"fly"}, 2},
		{"train-bad-epochs", []string{"train", "-epochs", "0"}, 2},
		{"train-bad-optimizer", []string{"train", "-optimizer", "lbfgs"}, 2},
		{"train-bad-flag", []string{"train", "-hiden", "3"}, 2},
		{"train-bad-activation", []string{"train", "-model", "rnn", "-activation", "relu"}, 2},
		{"train-bad-schedule", []string{"train", "-schedule", "poly:2"}, 2},
		{"train-huge-hidden", []string{"train", "-hidden", "100000000"}, 2},
		{"train-nan-lr", []string{"train", "-lr", "NaN"}, 2},
		{"train-momentum-adam", []string{"train", "-momentum", "0.9"}, 2},
		{"train-bad-momentum", []string{"train", "-optimizer", "sgd", "-momentum", "1.5"}, 2},
		{"train-help", []string{"train", "-h"}, 0},
		{"train-missing-data", []string{"train", "-data", "no-such-file.txt"}, 1},
		{"reproduce-bad-only", []string{"reproduce", "-only", "nope"}, 2},
		{"reproduce-bad-markdown", []string{"reproduce", "-markdown", "/proc/no-such-dir/results.md"}, 1},
		{"bench-bad-only", []string{"bench", "-only", "nope"}, 2},
		{"bench-bad-reps", []string{"bench", "-reps", "0"}, 2},
		{"train-rnn-small", []string{"train", "-model", "rnn", "-hidden", "8", "-epochs", "2", "-quiet"}, 0},
		{"train-gru-small", []string{"train", "-model", "gru", "-hidden", "8", "-epochs", "2", "-quiet"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := invoke(tc.args...)
			stdout = strings.ReplaceAll(stdout, "BLAS "+graph.BLASBackend(), "BLAS BACKEND")
			if code != tc.code {
				t.Errorf("exit status %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			golden(t, tc.name+".stdout", stdout)
			golden(t, tc.name+".stderr", stderr)
		})
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/rtn -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestTrainLSTMJSON is the acceptance run of rtn train: three epochs of
// an LSTM with Adam print one JSON object whose validation loss is below
// the uniform predictor's.
func TestTrainLSTMJSON(t *testing.T) {
	stdout, stderr, code := invoke("train", "-model", "lstm", "-optimizer", "adam", "-epochs", "3", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
	}
	for _, k := range []string{"train_loss", "valid_loss", "epochs", "seconds", "best_epoch", "optimal_loss"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	valid, _ := rep["valid_loss"].(float64)
	uniform := math.Log(4) // the built-in task has 4 symbols
	if !(valid < uniform) {
		t.Errorf("valid_loss %v is not below the uniform loss %v", valid, uniform)
	}
	if opt, _ := rep["optimal_loss"].(float64); !(opt < valid) {
		t.Errorf("optimal_loss %v is not below valid_loss %v", opt, valid)
	}
}

// TestResumeBitExact trains 4 epochs in one run, and 2 + 2 epochs with
// -resume, and compares the parameters bit for bit.
func TestResumeBitExact(t *testing.T) {
	dir := t.TempDir()
	one, two := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	common := []string{"train", "-model", "lstm", "-hidden", "8", "-quiet", "-schedule", "exp:0.9"}
	mustRun(t, append(common, "-epochs", "4", "-out", one)...)
	mustRun(t, append(common, "-epochs", "2", "-out", two)...)
	mustRun(t, append(common, "-epochs", "4", "-resume", two)...)
	for _, file := range []string{"model.npz", "checkpoint.npz"} {
		a, err := params.LoadNPZ(filepath.Join(one, file), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := params.LoadNPZ(filepath.Join(two, file), nil)
		if err != nil {
			t.Fatal(err)
		}
		for set, pa := range a {
			if set == "trainer" {
				continue // holds wall-clock times
			}
			pb := b[set]
			if pb == nil {
				t.Fatalf("%s: set %q missing after resume", file, set)
			}
			for _, n := range pa.Names() {
				x, y := pa.Data(n), pb.Data(n)
				for i := range x {
					if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
						t.Fatalf("%s %s/%s[%d]: %v in one run, %v after resume", file, set, n, i, x[i], y[i])
					}
				}
			}
		}
	}
}

// TestNaNKeepsCheckpoint: a run whose learning rate grows a hundredfold
// per epoch diverges in epoch 2. The divergence guard stops it with exit
// status 1 and a one-line message naming the step, and the checkpoint it wrote after
// epoch 1 is intact: it loads, and equals the checkpoint of a run stopped
// after epoch 1 bit for bit.
func TestNaNKeepsCheckpoint(t *testing.T) {
	dir := t.TempDir()
	diverging := []string{"train", "-model", "rnn", "-activation", "identity", "-hidden", "8",
		"-optimizer", "sgd", "-lr", "0.05", "-schedule", "exp:100", "-quiet"}
	failed, one := filepath.Join(dir, "failed"), filepath.Join(dir, "one")
	_, stderr, code := invoke(append(diverging, "-epochs", "5", "-out", failed)...)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (stderr %q)", code, stderr)
	}
	if !strings.Contains(stderr, "diverged at step") || !strings.Contains(stderr, "(epoch 2)") {
		t.Errorf("stderr %q does not name the step of the divergence", stderr)
	}
	if strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("the error is not one line: %q", stderr)
	}
	mustRun(t, append(diverging, "-epochs", "1", "-out", one)...)
	a, err := params.LoadNPZ(filepath.Join(failed, "checkpoint.npz"), nil)
	if err != nil {
		t.Fatalf("the checkpoint of the failed run does not load: %v", err)
	}
	b, err := params.LoadNPZ(filepath.Join(one, "checkpoint.npz"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) || a["params"] == nil || a["best"] == nil {
		t.Fatalf("checkpoint sets differ: %d versus %d", len(a), len(b))
	}
	for set := range a {
		if set == "trainer" {
			continue // holds wall-clock times
		}
		if b[set] == nil {
			t.Fatalf("set %q missing", set)
		}
		for _, n := range a[set].Names() {
			x, y := a[set].Data(n), b[set].Data(n)
			for i := range x {
				if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
					t.Fatalf("%s/%s[%d]: %v after the failed run, %v after one epoch", set, n, i, x[i], y[i])
				}
			}
		}
	}
	// A resume into a different model is refused with one line.
	_, stderr, code = invoke("train", "-model", "lstm", "-hidden", "8", "-epochs", "2", "-quiet", "-resume", one)
	if code != 1 || !strings.HasPrefix(stderr, "rtn: ") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("resume into another model: exit %d, stderr %q", code, stderr)
	}
	// So is a resume with another seed (different data).
	_, stderr, code = invoke(append(diverging, "-epochs", "2", "-seed", "2", "-resume", one)...)
	if code != 1 || !strings.Contains(stderr, "seed") {
		t.Errorf("resume with another seed: exit %d, stderr %q", code, stderr)
	}
}

func mustRun(t *testing.T, args ...string) {
	t.Helper()
	if _, stderr, code := invoke(args...); code != 0 {
		t.Fatalf("rtn %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
}
