package runs

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rtnlab/rtn/layers/pcnn"
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
	if errors.Is(err, pcnn.ErrNoBzip2) {
		t.Skip("bzip2 is not installed")
	}
	if err != nil || !(rep.ValidBits > 0) {
		t.Fatalf("bzip2: %v, %v", err, rep)
	}
}
