package runs

import (
	"path/filepath"
	"strings"
	"testing"
)

// SweepSummary averages over seeds and divides the TIHT+SGD mean by the
// TIHT mean; the CSV round trip is exact.
func TestSweepSummaryAndCSV(t *testing.T) {
	reps := []SpectralReport{
		{Task: "addition", Method: "tiht", N: 640, Noise: 1, Rank: 2, Seed: 1, TestMSE: 0.5},
		{Task: "addition", Method: "tiht", N: 640, Noise: 1, Rank: 2, Seed: 2, TestMSE: 1.5},
		{Task: "addition", Method: "tiht+sgd", N: 640, Noise: 1, Rank: 2, Seed: 1, TestMSE: 0.25},
		{Task: "addition", Method: "tiht+sgd", N: 640, Noise: 1, Rank: 2, Seed: 2, TestMSE: 0.75},
		{Task: "random2rnn", Method: "ls", N: 20, Noise: 0.1, Rank: 5, Seed: 1, TestMSE: 1.0 / 3, ZeroFallback: true, Seconds: 2},
	}
	var b strings.Builder
	if err := SweepSummary(&b, reps); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		"| task | noise | N | ls | tiht | tiht+sgd | tiht+sgd / tiht |",
		"|---|---|---|---|---|---|---|",
		"| random2rnn | 0.1 | 20 | 0.333 (1) | | | |",
		"| addition | 1 | 640 | | 1 (2) | 0.5 (2) | 0.500 |",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("summary:\n%s\nwant:\n%s", b.String(), strings.Join(want, "\n"))
	}
	path := filepath.Join(t.TempDir(), "s.csv")
	if err := WriteSweepCSV(path, reps); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSweep(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(reps) {
		t.Fatalf("read %d runs, wrote %d", len(back), len(reps))
	}
	for i := range reps {
		if back[i] != reps[i] {
			t.Errorf("run %d: read %+v, wrote %+v", i, back[i], reps[i])
		}
	}
	if got, err := ReadSweep(filepath.Join(t.TempDir(), "missing.csv")); err != nil || got != nil {
		t.Errorf("missing file: %v, %v", got, err)
	}
}
