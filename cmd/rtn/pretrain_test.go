package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPretrainUsageErrors checks that bad flags give exit status 2 and a
// one-line message naming the flag.
func TestPretrainUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"-data", "bach"}, "-data"},
		{[]string{"-data", "jsb"}, "-data-dir"},
		{[]string{"-hidden", "0"}, "-hidden"},
		{[]string{"-init", "autoenc,magic"}, "-init"},
		{[]string{"-epochs", "-1"}, "-epochs"},
		{[]string{"-lr", "NaN"}, "-lr"},
		{[]string{"-optimizer", "adam", "-momentum", "0.9"}, "-momentum"},
		{[]string{"-optimizer", "lbfgs"}, "-optimizer"},
		{[]string{"-schedule", "step:0"}, "-schedule"},
	} {
		_, stderr, code := invoke(append([]string{"pretrain"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.flag) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line naming %s", c.args, code, stderr, c.flag)
		}
	}
	// A missing data directory is a run-time failure (exit 1).
	if _, stderr, code := invoke("pretrain", "-data", "jsb", "-data-dir", t.TempDir(), "-epochs", "0"); code != 1 {
		t.Errorf("missing MAT file: exit %d, stderr %q", code, stderr)
	}
}

// TestPretrainSmallRun runs two initialisations on the synthetic set with
// no training and checks the JSON and the combined curves.
func TestPretrainSmallRun(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := invoke("pretrain", "-hidden", "5", "-epochs", "0", "-init", "autoenc,random",
		"-out", dir, "-json", "-quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Runs []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || len(got.Runs) != 2 {
		t.Fatalf("JSON %q: %v", stdout, err)
	}
	for _, f := range []string{"dataset", "hidden", "init", "pretrain_seconds", "train_seconds", "epochs",
		"test_acc", "test_acc_framewise", "test_nll", "valid_acc"} {
		if _, ok := got.Runs[0][f]; !ok {
			t.Errorf("no JSON field %q", f)
		}
	}
	for _, f := range []string{"curves.csv", "curves.png", "autoenc/result.json", "random/curves.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
