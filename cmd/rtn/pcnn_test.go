package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPCNNBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"pcnn", "-task", "tetris", "-passes", "1"}, "-task"},
		{[]string{"pcnn", "-model", "lstm", "-passes", "1"}, "-model"},
		{[]string{"pcnn", "-transition", "adam", "-passes", "1"}, "-transition"},
		{[]string{"pcnn", "-model", "rnn", "-transition", "rbpm", "-passes", "1"}, "qdrbpm"},
		{[]string{"pcnn", "-units", "4", "-degree", "5", "-passes", "1"}, "-degree"},
		{[]string{"pcnn", "-degree", "many", "-passes", "1"}, "-degree"},
		{[]string{"pcnn"}, "-minutes or -passes"},
		{[]string{"pcnn", "-minutes", "NaN"}, "-minutes"},
		{[]string{"pcnn", "-restarts", "-1", "-passes", "1"}, "-restarts"},
		{[]string{"pcnn", "-baseline", "gzip"}, "-baseline"},
		{[]string{"pcnn", "-baseline", "ctw", "-ctw-depth", "-1"}, "-ctw-depth"},
		{[]string{"pcnn", "-baseline", "hmm", "-ctw-depth", "4"}, "-ctw-depth must be unset without -baseline ctw"},
	} {
		_, stderr, code := invoke(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line naming %s", tc.args, code, stderr, tc.want)
		}
	}
}

func TestPCNNJSON(t *testing.T) {
	stdout, stderr, code := invoke("pcnn", "-task", "anbn", "-size", "2", "-units", "4", "-passes", "4", "-quiet", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"task", "model", "method", "units", "degree", "passes", "seconds", "valid_bits", "true_bits", "regret_bits"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	stdout, _, code = invoke("pcnn", "-task", "xor", "-size", "3", "-units", "3", "-degree", "full", "-passes", "2", "-quiet", "-json")
	if code != 0 || !strings.Contains(stdout, `"error_percent"`) {
		t.Fatalf("xor run: exit %d, %s", code, stdout)
	}
}
