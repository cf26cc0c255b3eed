package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/runs"
)

// The acceptance check through the command line: noiseless least
// squares with N = 2 d^(2L+1) = 486 recovers the random 2-RNN.
func TestSpectralJSON(t *testing.T) {
	stdout, stderr, code := invoke("spectral", "-n", "486", "-method", "ls", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Method        string  `json:"method"`
		N             int     `json:"n"`
		Rank          int     `json:"rank"`
		TestMSE       float64 `json:"test_mse"`
		TestOutputVar float64 `json:"test_output_var"`
		ZeroFallback  bool    `json:"zero_fallback"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v in %q", err, stdout)
	}
	if rep.Method != "ls" || rep.N != 486 || rep.Rank != 5 || rep.ZeroFallback {
		t.Fatalf("report %+v", rep)
	}
	if rep.TestMSE > 1e-10*rep.TestOutputVar {
		t.Fatalf("test MSE %g, output variance %g", rep.TestMSE, rep.TestOutputVar)
	}
}

func TestSpectralBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-method", "svd"}, "-method"},
		{[]string{"-task", "xor"}, "-task"},
		{[]string{"-n", "0"}, "-n"},
		{[]string{"-noise", "-1"}, "-noise"},
		{[]string{"-rank", "10"}, "-rank must be at most"},
		{[]string{"-task", "addition", "-d", "4"}, "random2rnn only"},
		{[]string{"-d", "10", "-L", "3", "-n", "20000"}, "tt-als"},
		{[]string{"-sweep", "-ns", "0"}, "-ns"},
		{[]string{"-sweep", "-methods", "lstm2"}, "-methods"},
		{[]string{"-sweep", "-ranks", "0"}, "-ranks"},
	} {
		_, stderr, code := invoke(append([]string{"spectral"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q, want status 2 and one line mentioning %q", c.args, code, stderr, c.want)
		}
	}
}

// A tiny sweep writes the CSV files and the log-log plots.
func TestSpectralSweepFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small grid")
	}
	dir := t.TempDir()
	_, stderr, code := invoke("spectral", "-sweep", "-ns", "300", "-noises", "0.1", "-methods", "ls,tiht", "-ranks", "2", "-seeds", "1", "-quiet", "-out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"sweep.csv", "ranks.csv", "sweep_random2rnn_noise0.1.png", "sweep_addition_noise0.1.png", "ranks_addition_noise1_tiht.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// -resume keeps every earlier run (the tiht rows lie outside the new
	// grid, the ls rows inside it) and runs only the missing points.
	first, err := runs.ReadSweep(filepath.Join(dir, "sweep.csv"))
	if err != nil || len(first) != 4 {
		t.Fatalf("sweep.csv: %d runs, %v", len(first), err)
	}
	_, stderr, code = invoke("spectral", "-sweep", "-resume", "-ns", "300", "-noises", "0.1", "-methods", "ls,iht", "-ranks", "2", "-seeds", "1", "-out", dir)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, " ls seed") || strings.Contains(stderr, " tiht seed") || strings.Count(stderr, " iht seed") != 2 {
		t.Errorf("resume ran:\n%s", stderr)
	}
	second, err := runs.ReadSweep(filepath.Join(dir, "sweep.csv"))
	if err != nil || len(second) != 6 {
		t.Fatalf("resumed sweep.csv: %d runs, %v", len(second), err)
	}
	for _, r := range first {
		if !slices.Contains(second, r) {
			t.Errorf("run %+v lost or changed by -resume", r)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "sweep.csv"), []byte("task,method\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = invoke("spectral", "-sweep", "-resume", "-ns", "300", "-noises", "0.1", "-methods", "ls", "-seeds", "1", "-quiet", "-out", dir)
	if code != 1 || !strings.Contains(stderr, "sweep.csv") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("corrupt CSV: exit %d, %q", code, stderr)
	}
}
