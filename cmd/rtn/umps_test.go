package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// A small u-MPS run end to end: train writes a model that sample, prob,
// complete and eval read; bad input gives one-line errors and the right
// exit status.
func TestUMPSCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	out, errs, code := invoke("umps", "train", "-data", "motzkin", "-bond", "3", "-train", "60", "-valid", "20",
		"-epochs", "2", "-out", dir, "-quiet", "-json")
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("train -json: %v in %q", err, out)
	}
	for _, k := range []string{"task", "bond", "valid_nll", "seconds"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("train -json lacks %q", k)
		}
	}
	out, errs, code = invoke("umps", "sample", "-model", dir, "-regex", `\(.{3}\)`, "-n", "4", "-seed", "2")
	lines := strings.Fields(out)
	if code != 0 || len(lines) != 4 {
		t.Fatalf("sample: exit %d, %q, %s", code, out, errs)
	}
	for _, l := range lines {
		if len(l) != 5 || l[0] != '(' || l[4] != ')' {
			t.Errorf("sample %q does not match the regex", l)
		}
	}
	again, _, _ := invoke("umps", "sample", "-model", dir, "-regex", `\(.{3}\)`, "-n", "4", "-seed", "2")
	if again != out {
		t.Error("same seed, different samples")
	}
	if _, errs, code = invoke("umps", "sample", "-model", dir, "-regex", `.*&.*`, "-n", "2", "-method", "alg1"); code != 1 || !strings.Contains(errs, "Algorithm 1") {
		t.Errorf("Algorithm 1 on a per-length model: exit %d, %q", code, errs)
	}
	out, errs, code = invoke("umps", "sample", "-model", dir, "-regex", `.*&.*`, "-n", "3", "-json")
	var smp struct {
		Method  string   `json:"method"`
		Samples []string `json:"samples"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &smp) != nil || len(smp.Samples) != 3 || smp.Method != "exact" {
		t.Errorf("ambiguous regex, -method auto: exit %d, %q, %q", code, out, errs)
	}
	for _, s := range smp.Samples {
		if !strings.Contains(s, "&") {
			t.Errorf("sample %q lacks &", s)
		}
	}
	if out, errs, code = invoke("umps", "sample", "-model", dir, "-regex", "", "-n", "2"); code != 0 || out != "\n\n" {
		t.Errorf("empty regex: exit %d, %q, %q", code, out, errs)
	}
	out, errs, code = invoke("umps", "prob", "-model", dir, "-regex", ".*", "-json")
	var pr map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &pr) != nil || pr["length_model"] != "fitted" || math.Abs(pr["log_prob"].(float64)) > 1e-9 {
		t.Errorf("prob -regex .*: exit %d, %q, %q", code, out, errs)
	}
	if out, errs, code = invoke("umps", "sample", "-model", dir, "-regex", `.{2}&?|.{3}`, "-n", "2", "-exact"); code != 0 || len(strings.Fields(out)) != 2 {
		t.Errorf("exact sampler: exit %d, %q, %q", code, out, errs)
	}
	out, errs, code = invoke("umps", "prob", "-model", dir, "-string", "(&)", "-json")
	if code != 0 || !strings.Contains(out, "log_prob_n") {
		t.Errorf("prob -string: exit %d, %q, %q", code, out, errs)
	}
	out, errs, code = invoke("umps", "complete", "-model", dir, "-prefix", "((", "-suffix", ")", "-json")
	if code != 0 || !strings.Contains(out, `"distribution"`) {
		t.Errorf("complete: exit %d, %q, %q", code, out, errs)
	}
	out, errs, code = invoke("umps", "eval", "-model", dir, "-len", "6", "-samples", "20", "-json")
	var ev map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &ev) != nil {
		t.Fatalf("eval: exit %d, %q, %q", code, out, errs)
	}
	for _, k := range []string{"task", "bond", "len", "samples", "valid_percent", "completion_percent"} {
		if _, ok := ev[k]; !ok {
			t.Errorf("eval -json lacks %q", k)
		}
	}
	bad := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"umps"}, 2, "subcommand"},
		{[]string{"umps", "fly"}, 2, "unknown subcommand"},
		{[]string{"umps", "train", "-bond", "0"}, 2, "-bond"},
		{[]string{"umps", "train", "-norm", "x"}, 2, "-norm"},
		{[]string{"umps", "sample", "-regex", "0"}, 2, "-model"},
		{[]string{"umps", "sample", "-model", dir, "-regex", "(("}, 2, "offset"},
		{[]string{"umps", "sample", "-model", dir, "-regex", "0"}, 2, "not in the alphabet"},
		{[]string{"umps", "prob", "-model", dir}, 2, "exactly one"},
		{[]string{"umps", "complete", "-model", dir, "-prefix", "x"}, 2, "-prefix"},
		{[]string{"umps", "eval", "-model", dir, "-task", "tomita9"}, 2, "-task"},
		{[]string{"umps", "eval", "-model", dir, "-task", "tomita4"}, 2, "alphabet"},
		{[]string{"umps", "eval", "-model", filepath.Join(dir, "metrics.jsonl")}, 1, ""},
	}
	for _, b := range bad {
		_, errs, code := invoke(b.args...)
		if code != b.code || !strings.Contains(errs, b.want) || strings.Count(errs, "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", b.args, code, errs, b.code, b.want)
		}
	}
}
