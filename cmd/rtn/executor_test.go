package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// executorJSON is the executor object of the train and compare JSON.
type executorJSON struct {
	Kind   string `json:"kind"`
	DType  string `json:"dtype"`
	Reason string `json:"reason"`
}

// TestExecutorReported checks that rtn train (its JSON, its metrics
// lines) and rtn compare (its JSON summary) name the executor that ran
// the model's steps.
func TestExecutorReported(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want executorJSON
	}{
		{"train-lstm", []string{"train", "-model", "lstm", "-hidden", "4", "-epochs", "2", "-quiet", "-json", "-out", filepath.Join(dir, "lstm")},
			executorJSON{Kind: "fused", DType: "float64"}},
		{"train-gru-float32", []string{"train", "-model", "gru", "-hidden", "4", "-epochs", "1", "-quiet", "-json", "-dtype", "float32"},
			executorJSON{Kind: "fused", DType: "float32"}},
		{"compare-rnn", []string{"compare", "-model", "rnn", "-hidden", "4", "-optimizers", "adam", "-seeds", "1", "-steps", "2", "-quiet", "-json",
			"-out", filepath.Join(dir, "cmp-rnn")}, executorJSON{Kind: "fused", DType: "float64"}},
		{"compare-hotrnn", []string{"compare", "-model", "hotrnn", "-order", "3", "-hidden", "4", "-optimizers", "adam", "-seeds", "1", "-steps", "2",
			"-quiet", "-json", "-out", filepath.Join(dir, "cmp-hotrnn")}, executorJSON{Kind: "tape", DType: "float64"}},
		{"compare-2rnn", append(append([]string(nil), tinyCompare...), "-json", "-out", filepath.Join(dir, "cmp-2rnn")),
			executorJSON{Kind: "graph", DType: "float64", Reason: "twornn.Regression unrolls each sequence length into one gorgonia graph"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := invoke(tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var out struct{ Executor executorJSON }
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
			}
			if out.Executor != tc.want {
				t.Errorf("executor %+v, want %+v", out.Executor, tc.want)
			}
		})
	}
	f, err := os.Open(filepath.Join(dir, "lstm", "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
		var m struct{ Executor string }
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.Executor != "fused/float64" {
			t.Errorf("metrics line %q: executor %q (%v), want fused/float64", sc.Text(), m.Executor, err)
		}
	}
	if lines != 2 {
		t.Errorf("%d metrics lines, want 2", lines)
	}
	stdout, _, _ := invoke("train", "-model", "rnn", "-hidden", "4", "-epochs", "1", "-quiet")
	if !strings.Contains(stdout, "executor      fused/float64\n") {
		t.Errorf("train table without the executor:\n%s", stdout)
	}
}
