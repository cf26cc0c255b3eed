package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// finetuneStart writes a sample of 2000 strings to dir and learns a
// rank-2 model from it; it returns the sample's and the model's paths.
func finetuneStart(t *testing.T, dir string) (train, model string) {
	t.Helper()
	train = writeSample(t, dir, "train", 2000, 1)
	model = filepath.Join(dir, "m.json")
	if _, stderr, code := invoke("wfa", "learn", "-train", train, "-rank", "2", "-lrows", "2", "-out", model); code != 0 {
		t.Fatalf("learn: exit %d: %s", code, stderr)
	}
	return train, model
}

// finetuneJSON runs wfa finetune with -json and returns its report.
func finetuneJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	stdout, stderr, code := invoke(append([]string{"wfa", "finetune", "-quiet", "-json"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v: %q: %v", args, stdout, err)
	}
	return rep
}

// finetunedMark reads the "finetuned" field of a model file.
func finetunedMark(t *testing.T, path string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Finetuned bool `json:"finetuned"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Finetuned
}

// A run that diverges before any epoch improved exits 1 with one line
// naming the divergence and -lr, and writes no model; the model file is
// marked fine-tuned only when it holds the fine-tuned parameters, and the
// report says which it holds.
func TestWFAFinetuneResult(t *testing.T) {
	dir := t.TempDir()
	train, model := finetuneStart(t, dir)
	out := filepath.Join(dir, "f.json")
	stdout, stderr, code := invoke("wfa", "finetune", "-model", model, "-train", train, "-lr", "1", "-quiet", "-out", out)
	if code != 1 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") > 0 ||
		!strings.Contains(stderr, "diverged before any epoch improved") || !strings.Contains(stderr, "try a -lr below 1") {
		t.Fatalf("diverged run: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("diverged run wrote %s (%v)", out, err)
	}
	for _, c := range []struct {
		args   []string
		result string
	}{
		{[]string{"-lr", "1e-300", "-epochs", "2"}, "start"},
		{[]string{"-lr", "1e-3", "-epochs", "2", "-check", "none"}, "fine-tuned"},
	} {
		rep := finetuneJSON(t, append([]string{"-model", model, "-train", train, "-out", out}, c.args...)...)
		if rep["result"] != c.result || rep["diverged"] != false || finetunedMark(t, out) != (c.result == "fine-tuned") {
			t.Errorf("%v: result %v, diverged %v, model marked fine-tuned %v", c.args, rep["result"], rep["diverged"], finetunedMark(t, out))
		}
	}
	stdout, stderr, code = invoke("wfa", "finetune", "-model", model, "-train", train, "-lr", "1e-300", "-epochs", "1", "-quiet")
	if code != 0 || !strings.Contains(stdout, "result: the start (no epoch improved") {
		t.Fatalf("text report: exit %d, %q, %s", code, stdout, stderr)
	}
}

// One epoch then -resume to two writes the model of two epochs straight,
// byte for byte; a checkpoint of another model, other strings or other
// settings is refused, naming the difference.
func TestWFAFinetuneResume(t *testing.T) {
	dir := t.TempDir()
	train, model := finetuneStart(t, dir)
	p := func(name string) string { return filepath.Join(dir, name) }
	base := []string{"-model", model, "-train", train, "-lr", "1e-3", "-check", "none"}
	finetuneJSON(t, append(base, "-epochs", "2", "-out", p("a.json"))...)
	finetuneJSON(t, append(base, "-epochs", "1", "-checkpoint", p("b.npz"), "-metrics", p("b.jsonl"), "-out", p("b1.json"))...)
	rep := finetuneJSON(t, append(base, "-epochs", "2", "-resume", p("b.npz"), "-metrics", p("b.jsonl"), "-out", p("b.json"))...)
	a, _ := os.ReadFile(p("a.json"))
	b, _ := os.ReadFile(p("b.json"))
	if len(a) == 0 || !bytes.Equal(a, b) || rep["epochs"] != 2.0 || rep["result"] != "fine-tuned" {
		t.Fatalf("2 epochs and 1 epoch then -resume to 2 wrote different models (resumed run: %v epochs, result %v)", rep["epochs"], rep["result"])
	}
	if m, _ := os.ReadFile(p("b.jsonl")); strings.Count(string(m), "\n") != 2 {
		t.Fatalf("metrics after the resume:\n%s", m)
	}
	other := writeSample(t, dir, "other", 2000, 2)
	otherModel := p("m3.json")
	if _, stderr, code := invoke("wfa", "learn", "-train", train, "-rank", "3", "-lrows", "2", "-out", otherModel); code != 0 {
		t.Fatalf("learn: %s", stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-model", otherModel, "-train", train}, "start_model_sha256"},
		{[]string{"-model", model, "-train", other}, "strings_sha256"},
		{[]string{"-model", model, "-train", train, "-seed", "2"}, "meta.seed is 1 in the checkpoint, 2 in this run"},
		{[]string{"-model", model, "-train", train, "-lr", "2e-3"}, "meta.optim.lr"},
	} {
		args := append([]string{"wfa", "finetune", "-check", "none", "-epochs", "3", "-resume", p("b.npz"), "-quiet"}, c.args...)
		if !slices.Contains(c.args, "-lr") {
			args = append(args, "-lr", "1e-3")
		}
		_, stderr, code := invoke(args...)
		if code != 1 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, %q, want 1 and one line naming %q", c.args, code, stderr, c.want)
		}
	}
}

// Every bad value of a numeric or named flag exits 2 naming the flag, and
// bad outputs fail, before the model or the strings are read (they do
// not exist here); an output that is an input or another output is
// refused.
func TestWFAFinetuneBadFlags(t *testing.T) {
	dir := t.TempDir()
	none, train := filepath.Join(dir, "none.json"), filepath.Join(dir, "none.train")
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-lr", "NaN"}, 2, "-lr must be"},
		{[]string{"-lr", "+Inf"}, 2, "-lr must be"},
		{[]string{"-lr", "0"}, 2, "-lr must be"},
		{[]string{"-lr", "-1e-3"}, 2, "-lr must be"},
		{[]string{"-clip", "-1"}, 2, "-clip must be"},
		{[]string{"-clip", "NaN"}, 2, "-clip must be"},
		{[]string{"-clip", "Inf"}, 2, "-clip must be"},
		{[]string{"-epochs", "0"}, 2, "-epochs must be >= 1, got 0"},
		{[]string{"-batch", "0"}, 2, "-batch must be >= 1, got 0"},
		{[]string{"-batch", "-3"}, 2, "-batch must be >= 1, got -3"},
		{[]string{"-patience", "-1"}, 2, "-patience must be >= 1, got -1"},
		{[]string{"-patience", "0"}, 2, "-patience must be >= 1, got 0"},
		{[]string{"-valid", "0"}, 2, "-valid must be in (0, 1)"},
		{[]string{"-valid", "1"}, 2, "-valid must be in (0, 1)"},
		{[]string{"-valid", "NaN"}, 2, "-valid must be in (0, 1)"},
		{[]string{"-valid", "-0.1"}, 2, "-valid must be in (0, 1)"},
		{[]string{"-seed", "0"}, 2, "-seed must be >= 1"},
		{[]string{"-check-se", "Inf"}, 2, "-check-se"},
		{[]string{"-optimizer", "lbfgs"}, 2, `-optimizer must be a registered optimizer (`},
		{[]string{"-out", dir}, 1, "-out " + dir + ": is a directory"},
		{[]string{"-checkpoint", dir}, 1, "-checkpoint " + dir + ": is a directory"},
		{[]string{"-metrics", filepath.Join(file, "m.jsonl")}, 1, "is not a directory"},
		{[]string{"-out", filepath.Join(dir, "x"), "-checkpoint", dir + "/./x"}, 2, "-out and -checkpoint name the same file"},
		{[]string{"-checkpoint", filepath.Join(dir, "c"), "-metrics", filepath.Join(dir, "c")}, 2, "-checkpoint and -metrics name the same file"},
		{[]string{"-resume", filepath.Join(dir, "c.npz")}, 1, "-resume " + filepath.Join(dir, "c.npz") + ": no such file"},
		{[]string{"-resume", dir}, 1, "is a directory, want a checkpoint file"},
	} {
		args := append([]string{"wfa", "finetune", "-model", none, "-train", train}, c.args...)
		_, stderr, code := invoke(args...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, %q, want %d and one line with %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if _, stderr, code := invoke("wfa", "finetune", "-model", none); code != 2 || !strings.Contains(stderr, "-train must be a string file (required)") {
		t.Errorf("no -train: exit %d, %q", code, stderr)
	}
	// Outputs that are inputs, checked against existing files.
	model, sample := filepath.Join(dir, "m.json"), filepath.Join(dir, "s.train")
	for _, f := range []string{model, sample} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range [][]string{
		{"-out", model}, {"-out", sample}, {"-checkpoint", model}, {"-metrics", sample}, {"-out", file, "-resume", file},
	} {
		args := append([]string{"wfa", "finetune", "-model", model, "-train", sample}, c...)
		_, stderr, code := invoke(args...)
		if code != 2 || !strings.Contains(stderr, c[0]+" ") || !strings.Contains(stderr, "is the input") {
			t.Errorf("%v: exit %d, %q, want 2 naming %s as an input", c, code, stderr, c[0])
		}
	}
}
