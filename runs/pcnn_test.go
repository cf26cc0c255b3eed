package experiments

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunPCNNSmall(t *testing.T) {
	dir := t.TempDir()
	rep, err := RunPCNN(PCNNSpec{Task: "anbn", Size: 2, Units: 4, Degree: 3, Passes: 20, Checks: 2, Seed: 1,
		Generate: 30, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	// anbn probes 4 starts by default: 2 passes each of the 20.
	if rep.Passes != 20 || len(rep.Curve) != 3 || len(rep.Sample) != 30 || rep.Restarts != 4 {
		t.Fatalf("passes %d, curve points %d, sample %q, restarts %d; want 20, 3, 30 symbols, 4",
			rep.Passes, len(rep.Curve), rep.Sample, rep.Restarts)
	}
	if !(rep.RegretBits < rep.Curve[0].RegretBits) || math.Abs(rep.TrueBits-2*math.Log2(1025)) > 1e-9 {
		t.Fatalf("regret %v did not improve on the start %v (true bits %v)", rep.RegretBits, rep.Curve[0].RegretBits, rep.TrueBits)
	}
	for _, f := range []string{"report.json", "curve.csv", "curve.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	again, _ := RunPCNN(PCNNSpec{Task: "anbn", Size: 2, Units: 4, Degree: 3, Passes: 20, Checks: 2, Seed: 1})
	if again.ValidBits != rep.ValidBits {
		t.Fatalf("same seed and passes, different result: %v and %v", again.ValidBits, rep.ValidBits)
	}
}

func TestRunPCNNErrors(t *testing.T) {
	for name, spec := range map[string]PCNNSpec{
		"task":     {Task: "nope", Passes: 1},
		"budget":   {Task: "anbn"},
		"degree":   {Task: "anbn", Units: 4, Degree: 5, Passes: 1},
		"metric":   {Task: "anbn", Transition: "nope", Passes: 1},
		"rnnfull":  {Task: "anbn", Model: "rnn", Transition: "rbpm", Passes: 1, Size: 1},
		"restarts": {Task: "anbn", Restarts: -1, Passes: 1},
	} {
		if _, err := RunPCNN(spec); err == nil {
			t.Errorf("%s: bad spec accepted", name)
		}
	}
}

func TestPCNNBaselines(t *testing.T) {
	rep, err := RunPCNNBaseline(PCNNBaselineSpec{Baseline: "ctw", Task: "anbn", Size: 2, Depth: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !(rep.RegretBits > 0) {
		t.Fatalf("ctw regret %v: it cannot beat the true model on a^n b^n", rep.RegretBits)
	}
	rep, err = RunPCNNBaseline(PCNNBaselineSpec{Baseline: "hmm", Task: "anbn", Size: 2, States: 4, Iterations: 3, Seed: 1})
	if err != nil || !(rep.RegretBits > 0) {
		t.Fatalf("hmm: %v, regret %v", err, rep)
	}
	rep, err = RunPCNNBaseline(PCNNBaselineSpec{Baseline: "bzip2", Task: "anbn", Size: 2, Seed: 1})
	if errors.Is(err, ErrNoBzip2) {
		t.Skip("bzip2 is not installed")
	}
	if err != nil || !(rep.ValidBits > 0) {
		t.Fatalf("bzip2: %v, %v", err, rep)
	}
}

// TestPCNNXORSuccess runs a tiny version of full mode's distant-XOR
// experiment: one row whose rate counts the runs under 1% error, and one
// CSV line per run.
func TestPCNNXORSuccess(t *testing.T) {
	var csv [][]string
	row, err := pcnnXORSuccess(&Context{Seed: 3, Log: io.Discard}, xorPlan{runs: 2, size: 20, units: 3, passes: 2}, &csv)
	if err != nil {
		t.Fatal(err)
	}
	if len(csv) != 2 || csv[0][0] != "xor" || csv[1][5] != "2" {
		t.Fatalf("csv %v: want two xor runs of 2 passes", csv)
	}
	if !(row.Measured == 0 || row.Measured == 0.5 || row.Measured == 1) || !strings.Contains(row.Note, "of 2 runs") {
		t.Fatalf("row %+v: want a rate in {0, 1/2, 1} over 2 runs", row)
	}
}
