package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rtnlab/rtn/internal/memlimit"
	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
)

// Bad flags and outputs of the wfa subcommands other than finetune are
// refused before any work, with the status and the one line the docs
// give, and leave no output file behind.
func TestWFABadInputs(t *testing.T) {
	dir := t.TempDir()
	train := writeSample(t, dir, "train", 300, 1)
	model := filepath.Join(dir, "m.json")
	if _, stderr, code := invoke("wfa", "learn", "-train", train, "-rank", "2", "-lrows", "2", "-out", model); code != 0 {
		t.Fatalf("learn: %s", stderr)
	}
	prefixes := writeText(t, dir, "prefixes", "2 3\n1 0\n2 1 2\n")
	shortTargets := writeText(t, dir, "targets", "1 0 0.5\n")
	oneSolution := writeText(t, dir, "solution", "1\n0.5\n")
	empty := writeText(t, dir, "empty", "0 3\n")
	zeros := writeText(t, dir, "zeros", "2\n0\n0\n")
	huge := writeText(t, dir, "huge", "2 100000000\n1 0\n1 1\n")
	// 1000 symbols fit 1 GiB without mixtures (-select nll forms none),
	// not with mixtures of 8 candidates of rank 50.
	wide := writeText(t, dir, "wide", "2 1000\n1 0\n1 1\n")
	named := filepath.Join(dir, "named.json")
	if err := (&wfa.Model{WFA: spectral.WFA{States: 1, Out: 1, Alpha: []float64{1}, Omega: []float64{0.5}, Trans: [][]float64{{0.25}, {0.25}}},
		Alphabet: []string{"a", "b"}}).Save(named); err != nil {
		t.Fatal(err)
	}
	t.Setenv(memlimit.Env, "1G")
	out := filepath.Join(dir, "out")
	for _, tc := range []badCase{
		{[]string{"wfa", "learn", "-train", train, "-out", train}, 2, "-out " + train + " is the input"},
		{[]string{"wfa", "learn", "-train", train, "-out", dir}, 1, "is a directory"},
		{[]string{"wfa", "learn", "-train", train, "-seed", "0"}, 2, "-seed must be >= 1"},
		{[]string{"wfa", "learn", "-train", train, "-lcolumns", "2"}, 2, "-lcolumns must be 0 without -rank"},
		{[]string{"wfa", "learn", "-train", train, "-folds", "5000"}, 2, "-folds must be at most 150: " + train + " holds 300 strings"},
		{[]string{"wfa", "learn", "-train", huge, "-rank", "1"}, 1, "(alphabet 100000000) with -rank 1 needs about"},
		{[]string{"wfa", "learn", "-train", huge}, 1, "with ranks up to 50 and -mixture 8 needs about 240 TiB"},
		{[]string{"wfa", "learn", "-train", wide}, 1, "(alphabet 1000) with ranks up to 50 and -mixture 8 needs about 2.46 GiB"},
		{[]string{"wfa", "learn", "-train", wide, "-select", "nll"}, 1, "2 strings leave no validation strings"},
		{[]string{"wfa", "sweep", "-train", train, "-max-ruled-out", "2"}, 2, "-max-ruled-out must be in [0, 1]"},
		{[]string{"wfa", "sweep", "-train", train, "-max-ruled-out", "NaN"}, 2, "-max-ruled-out must be in [0, 1]"},
		{[]string{"wfa", "sweep", "-train", train, "-test", train}, 2, "-test, -solution must be given together"},
		{[]string{"wfa", "sweep", "-train", train, "-seed", "0"}, 2, "-seed must be >= 1"},
		{[]string{"wfa", "sweep", "-train", train, "-ranks", "1000", "-lrows", "2"}, 2, "-ranks: every rank (smallest 1000) is above the largest the Hankel matrices allow (12)"},
		{[]string{"wfa", "sweep", "-train", huge}, 1, "(alphabet 100000000) with ranks up to 50 needs about"},
		{[]string{"wfa", "learn", "-train", train, "-rank", "2", "-folds", "3", "-select", "nll"}, 2, "-folds must be unset with -rank (a selection setting: a fixed rank selects nothing), got 3"},
		{[]string{"wfa", "learn", "-train", train, "-rank", "2", "-out", "-"}, 2, "-out -: this output is a file, name one"},
		{[]string{"wfa", "minimize", "-model", model, "-out", "-"}, 2, "-out -: this output is a file, name one"},
		{[]string{"wfa", "rank", "-model", model, "-prefixes", prefixes, "-targets", shortTargets, "-out", out}, 1, ": 1 targets for the 2 prefixes of "},
		{[]string{"wfa", "rank", "-model", model, "-prefixes", prefixes, "-json"}, 2, "-json prints the NDCG@5 score: it needs -targets"},
		{[]string{"wfa", "rank", "-model", model, "-prefixes", prefixes, "-targets", shortTargets, "-out", "-"}, 2, "-out must be a file with -targets"},
		{[]string{"spectral", "-data", prefixes, "-out", "-"}, 2, "-out -: this output is a directory or a .npz file"},
		{[]string{"wfa", "sweep", "-train", train, "-ranks", "3,4,3"}, 2, "-ranks must be distinct (3 appears twice)"},
		{[]string{"wfa", "sweep", "-train", train, "-folds", "2", "-valid", "0.3"}, 2, "-valid must be unset with -folds 2 (each of the 2 folds holds out 1/2 of the strings), got 0.3"},
		{[]string{"wfa", "learn", "-train", train, "-folds", "2", "-valid", "0.3"}, 2, "-valid must be unset with -folds 2 (each of the 2 folds holds out 1/2 of the strings), got 0.3"},
		{[]string{"wfa", "learn", "-train", train, "-select", "nll", "-mixture", "3"}, 2, "-mixture must be unset with -select nll (a mixture is formed under zll only), got 3"},
		{[]string{"wfa", "finetune", "-model", model, "-train", train, "-check", "none", "-check-se", "3"}, 2, "-check-se must be unset with -check none (it sets the zll check), got 3"},
		{[]string{"wfa", "score", "-model", model, "-test", prefixes, "-solution", oneSolution}, 1, ": 1 probabilities for the 2 strings of "},
		{[]string{"wfa", "score", "-model", model, "-test", empty}, 1, empty + ": no strings to score"},
		{[]string{"wfa", "score", "-model", model, "-test", prefixes, "-solution", zeros}, 1, zeros + ": the probabilities sum to 0, want a positive finite sum"},
		{[]string{"wfa", "finetune", "-model", model, "-train", prefixes}, 2, "-valid: " + prefixes + ": wfa: 2 strings are too few for a validation share of 0.1"},
		{[]string{"wfa", "learn", "-train", train, "-select", "ZLL", "-mixture", "3"}, 2, "-select: "},
		{[]string{"wfa", "finetune", "-model", model, "-train", prefixes, "-valid", "0.001"}, 2, "-valid: " + prefixes + ": wfa: 2 strings are too few for a validation share of 0.001"},
		{[]string{"wfa", "rank", "-model", model, "-prefixes", prefixes, "-targets", filepath.Join(dir, "none"), "-out", out}, 1, "no such file or directory"},
		{[]string{"wfa", "rank", "-model", model, "-prefixes", prefixes, "-out", prefixes}, 2, "is the input"},
		{[]string{"wfa", "sample", "-model", model, "-n", "1000000000", "-out", out}, 1, "-n 1000000000 -max-len 100 needs about"},
		{[]string{"wfa", "sample", "-model", named, "-out", out}, 2, `-format: pautomac writes symbols as numbers and ` + named + ` has a symbol named "a"`},
		{[]string{"wfa", "sample", "-model", model, "-out", model}, 2, "is the input"},
		{[]string{"wfa", "minimize", "-model", model, "-out", model}, 2, "is the input"},
		{[]string{"wfa", "dot", "-model", model, "-min-weight", "NaN", "-out", out}, 2, "-min-weight must be a finite number >= 0"},
		{[]string{"wfa", "dot", "-model", model, "-min-weight", "-1", "-out", out}, 2, "-min-weight must be a finite number >= 0"},
	} {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			stdout, stderr, code := invoke(tc.args...)
			if code != tc.code || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and one line with %q", code, stdout, stderr, tc.code, tc.msg)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written", out)
				os.Remove(out)
			}
		})
	}
	// The inputs named as outputs are untouched.
	if _, err := wfa.Load(model); err != nil {
		t.Errorf("model after the refused runs: %v", err)
	}
	// An output in directories that do not exist yet is written there.
	nested := filepath.Join(dir, "new", "dir", "m.json")
	if _, stderr, code := invoke("wfa", "minimize", "-model", model, "-out", nested); code != 0 {
		t.Errorf("minimize -out %s: exit %d, %s", nested, code, stderr)
	}
	if _, err := wfa.Load(nested); err != nil {
		t.Errorf("model written to a new directory: %v", err)
	}
}

// wfa sweep reads -test with the training strings' alphabet: a lines test
// file without the first symbol scores as its PAutomaC twin does, and
// without -test the table has no test column.
func TestWFASweepTestAlphabet(t *testing.T) {
	dir := t.TempDir()
	train := writeSample(t, dir, "train", 400, 1)
	var counted, lines strings.Builder
	counted.WriteString("3 3\n")
	for _, x := range [][]string{{"1", "2"}, {"2"}, {"1", "1", "2"}} {
		counted.WriteString(strings.Join(append([]string{string(rune('0' + len(x)))}, x...), " ") + "\n")
		lines.WriteString(strings.Join(x, " ") + "\n")
	}
	trainLines := filepath.Join(dir, "train.lines")
	raw, err := os.ReadFile(train)
	if err != nil {
		t.Fatal(err)
	}
	var tl strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n")[1:] {
		tl.WriteString(strings.Join(strings.Fields(l)[1:], " ") + "\n")
	}
	files := map[string]string{"test": counted.String(), "test.lines": lines.String(), "train.lines": tl.String(), "solution": "3\n0.5\n0.3\n0.2\n"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []float64
	for _, tc := range [][]string{
		{"-train", train, "-test", filepath.Join(dir, "test")},
		{"-format", "lines", "-train", trainLines, "-test", filepath.Join(dir, "test.lines")},
	} {
		args := append([]string{"wfa", "sweep", "-hankel", "factor", "-lrows", "2", "-ranks", "3", "-solution", filepath.Join(dir, "solution"), "-json"}, tc...)
		stdout, stderr, code := invoke(args...)
		var res struct {
			Candidates []struct {
				Test float64 `json:"test_perplexity"`
			} `json:"candidates"`
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || len(res.Candidates) != 1 {
			t.Fatalf("%v: exit %d, %q, %s", args, code, stdout, stderr)
		}
		got = append(got, res.Candidates[0].Test)
	}
	if !(got[0] > 1) || math.Abs(got[0]-got[1]) > 1e-12*got[0] {
		t.Errorf("test perplexity %v in PAutomaC format, %v in lines format: want equal", got[0], got[1])
	}
	stdout, stderr, code := invoke("wfa", "sweep", "-train", train, "-hankel", "factor", "-lrows", "2", "-ranks", "3")
	if code != 0 || !strings.Contains(stdout, "valid zll") || strings.Contains(stdout, "test") {
		t.Errorf("sweep without -test: exit %d, %q, %s", code, stdout, stderr)
	}
}

// wfa score and wfa sample say on stderr when the model has no mass to
// normalise by.
func TestWFAScoreSampleNormaliserNote(t *testing.T) {
	dir := t.TempDir()
	test := writeSample(t, dir, "test", 20, 2)
	model := filepath.Join(dir, "m.json")
	if err := (&wfa.Model{WFA: spectral.WFA{States: 1, Out: 1, Alpha: []float64{1}, Omega: []float64{0.5}, Trans: [][]float64{{0.7}, {0.7}, {0.7}}},
		Alphabet: []string{"0", "1", "2"}}).Save(model); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := invoke("wfa", "score", "-model", model, "-test", test, "-json")
	if code != 0 || !strings.Contains(stdout, `"normaliser":"sample"`) || !strings.Contains(stderr, "has no usable mass") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	huge := filepath.Join(dir, "huge.json")
	if err := (&wfa.Model{WFA: spectral.WFA{States: 1, Out: 1, Alpha: []float64{1e300}, Omega: []float64{1e300}, Trans: [][]float64{{0.1}, {0.1}, {0.1}}},
		Alphabet: []string{"0", "1", "2"}}).Save(huge); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = invoke("wfa", "score", "-model", huge, "-test", test, "-json")
	if code != 0 || !strings.Contains(stdout, `"log_loss_nats_per_symbol":null`) {
		t.Errorf("a model of overflowing values: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, stderr, code = invoke("wfa", "sample", "-model", model, "-n", "3", "-max-len", "5")
	if code != 0 || strings.Count(stdout, "\n") != 4 || !strings.Contains(stderr, "has no usable mass") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("sample: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// rtn wfa -h lists the subcommands and exits 0; wfa learn reads a
// PAutomaC file from a pipe, which can be read once only.
func TestWFAHelpAndPipe(t *testing.T) {
	stdout, stderr, code := invoke("wfa", "-h")
	if code != 0 || !strings.Contains(stdout, "learn") || !strings.Contains(stdout, "finetune") || stderr != "" {
		t.Errorf("wfa -h: exit %d, %q, %q", code, stdout, stderr)
	}
	dir := t.TempDir()
	raw, err := os.ReadFile(writeSample(t, dir, "train", 300, 1))
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(raw)
		f.Close()
	}()
	stdout, stderr, code = invoke("wfa", "learn", "-train", fifo, "-rank", "2", "-lrows", "2", "-json")
	if code != 0 || !strings.Contains(stdout, `"rank":2`) {
		t.Errorf("learn from a pipe: exit %d, %q, %q", code, stdout, stderr)
	}
}
