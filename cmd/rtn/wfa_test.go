package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/spectral"
)

// writeSample writes count strings drawn from a 2-state automaton over 3
// symbols in PAutomaC format and returns the path.
func writeSample(t *testing.T, dir, name string, count int, seed uint64) string {
	t.Helper()
	w := spectral.WFA{States: 2, Out: 1, Alpha: []float64{1, 0}, Omega: []float64{0.3, 0.4},
		Trans: [][]float64{{0.2, 0.2, 0, 0.3}, {0.1, 0.1, 0.1, 0.1}, {0.2, 0, 0.05, 0.05}}}
	rng := rand.New(rand.NewPCG(seed, 0))
	s := datasets.Symbols{Alphabet: []string{"0", "1", "2"}}
	for range count {
		x, err := w.Sample(rng, 40)
		if err != nil {
			t.Fatal(err)
		}
		s.Seqs = append(s.Seqs, x)
	}
	var b bytes.Buffer
	if err := datasets.WriteStrings(&b, s, datasets.PAutomaC); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// learn, score, finetune and the model tools through the command line; the
// model file round-trips bit for bit.
func TestWFACommands(t *testing.T) {
	dir := t.TempDir()
	train := writeSample(t, dir, "train", 2000, 1)
	test := writeSample(t, dir, "test", 50, 2)
	model := filepath.Join(dir, "m.json")
	stdout, stderr, code := invoke("wfa", "learn", "-train", train, "-lrows", "3", "-out", model, "-json")
	if code != 0 {
		t.Fatalf("learn: exit %d: %s", code, stderr)
	}
	type learnOut struct {
		Rank       int     `json:"rank"`
		States     int     `json:"states"`
		Radius     float64 `json:"spectral_radius"`
		Components []struct {
			Rank   int     `json:"rank"`
			Weight float64 `json:"weight"`
		} `json:"components"`
	}
	var lr learnOut
	if err := json.Unmarshal([]byte(stdout), &lr); err != nil || lr.Rank < 1 || !(lr.Radius < 1) {
		t.Fatalf("learn output %q (%v)", stdout, err)
	}
	states, weights := 0, 0.0
	for _, c := range lr.Components {
		states, weights = states+c.Rank, weights+c.Weight
	}
	if len(lr.Components) > 0 && (states != lr.States || math.Abs(weights-1) > 1e-12) {
		t.Fatalf("mixture of %d states with components %+v", lr.States, lr.Components)
	}
	// -mixture-se 0 keeps any gain, as a negative gate does.
	var anyGain [2]learnOut
	for i, se := range []string{"0", "-1"} {
		stdout, stderr, code = invoke("wfa", "learn", "-train", train, "-lrows", "3", "-mixture-se", se, "-json")
		if err := json.Unmarshal([]byte(stdout), &anyGain[i]); code != 0 || err != nil {
			t.Fatalf("learn -mixture-se %s: exit %d, %q, %s", se, code, stdout, stderr)
		}
	}
	if len(anyGain[0].Components) < 2 || fmt.Sprint(anyGain[0]) != fmt.Sprint(anyGain[1]) {
		t.Fatalf("learn -mixture-se 0: %+v, -mixture-se -1: %+v, want the same mixture", anyGain[0], anyGain[1])
	}
	stdout, stderr, code = invoke("wfa", "learn", "-train", train, "-lrows", "3", "-mixture", "1", "-json")
	var single learnOut
	if err := json.Unmarshal([]byte(stdout), &single); code != 0 || err != nil || single.Components != nil || single.States != single.Rank {
		t.Fatalf("learn -mixture 1: exit %d, %q, %s", code, stdout, stderr)
	}
	// A solution file: the test strings' values under the learned model
	// give perplexity = the optimum, here checked only for being finite.
	sol := filepath.Join(dir, "sol")
	lines := []string{"50"}
	for range 50 {
		lines = append(lines, "0.02")
	}
	if err := os.WriteFile(sol, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = invoke("wfa", "score", "-model", model, "-test", test, "-solution", sol, "-json")
	var sc map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &sc) != nil || sc["perplexity"] == nil || sc["log_loss_nats_per_symbol"] == nil {
		t.Fatalf("score: exit %d, %q, %s", code, stdout, stderr)
	}
	round := filepath.Join(dir, "again.json")
	if _, stderr, code = invoke("wfa", "minimize", "-model", model, "-out", round); code != 0 {
		t.Fatalf("minimize: %s", stderr)
	}
	a, _ := os.ReadFile(model)
	m2 := filepath.Join(dir, "copy.json")
	if _, stderr, code = invoke("wfa", "finetune", "-model", model, "-train", train, "-epochs", "1", "-out", m2, "-json"); code != 0 {
		t.Fatalf("finetune: %s", stderr)
	}
	for _, args := range [][]string{
		{"dot", "-model", model},
		{"sample", "-model", model, "-n", "3"},
		{"rank", "-model", model, "-prefixes", test},
		{"sweep", "-train", train, "-lrows", "2", "-ranks", "1,2,3"},
	} {
		if stdout, stderr, code = invoke(append([]string{"wfa"}, args...)...); code != 0 || stdout == "" {
			t.Fatalf("%v: exit %d, %s", args, code, stderr)
		}
	}
	b, _ := os.ReadFile(model)
	if !bytes.Equal(a, b) {
		t.Fatal("model file changed")
	}
}

// Malformed files exit 1 naming the line; a rank above the Hankel
// matrix's exits 2 naming -rank; bad flags exit 2.
func TestWFAErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("2 3\n1 0\n2 0 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	train := writeSample(t, dir, "train", 300, 3)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"learn", "-train", bad}, 1, "bad:3:"},
		{[]string{"learn", "-train", train, "-rank", "100000", "-lrows", "1"}, 2, "-rank"},
		{[]string{"learn", "-train", train, "-hankel", "diagonal"}, 2, "-hankel"},
		{[]string{"learn", "-train", train, "-format", "csv"}, 2, "-format"},
		{[]string{"learn"}, 2, "-train"},
		{[]string{"learn", "-train", train, "-mixture", "-1"}, 2, "-mixture"},
		{[]string{"learn", "-train", train, "-mixture-se", "NaN"}, 2, "-mixture-se"},
		{[]string{"learn", "-train", train, "-mixture-se", "-Inf"}, 2, "-mixture-se"},
		{[]string{"finetune", "-model", filepath.Join(dir, "none.json"), "-train", train, "-check", "loo"}, 2, "-check"},
		{[]string{"finetune", "-model", filepath.Join(dir, "none.json"), "-train", train, "-check-se", "NaN"}, 2, "-check-se"},
		{[]string{"score", "-model", filepath.Join(dir, "none.json"), "-test", train}, 1, "none.json"},
		{[]string{"frobnicate"}, 2, "frobnicate"},
	} {
		_, stderr, code := invoke(append([]string{"wfa"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q, want %d and one line mentioning %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// wfa sweep -json writes every candidate, a rejected candidate's
// infinite figures as null.
func TestWFASweepJSON(t *testing.T) {
	train := writeSample(t, t.TempDir(), "train", 300, 4)
	stdout, stderr, code := invoke("wfa", "sweep", "-train", train, "-lrows", "2", "-ranks", "1,2,3,4,5,6,8,10", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		Candidates []struct {
			Rank     int      `json:"rank"`
			ZLL      *float64 `json:"valid_zll"`
			NLL      *float64 `json:"valid_nll"`
			Rejected string   `json:"rejected"`
		} `json:"candidates"`
		Chosen string `json:"chosen"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || out.Chosen == "" {
		t.Fatalf("output %q (%v)", stdout, err)
	}
	nulls := 0
	for _, c := range out.Candidates {
		if c.ZLL == nil || c.NLL == nil {
			nulls++
			if c.Rejected == "" {
				t.Errorf("rank %d: a null figure on a candidate not rejected", c.Rank)
			}
		}
	}
	if nulls == 0 {
		t.Fatal("no candidate with an infinite figure: the test needs one")
	}
}
