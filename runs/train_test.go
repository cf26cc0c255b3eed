package runs

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTrainSpecErrors(t *testing.T) {
	for _, spec := range []TrainSpec{
		{Model: "transformer"},
		{Hidden: -1},
		{Task: "nope"},
		{Optimizer: "nope"},
		{Schedule: "nope"},
		{DType: "float16"},
	} {
		if _, err := Train(spec); err == nil {
			t.Errorf("Train(%+v) succeeded", spec)
		}
	}
}

// TestTrainTextFile trains briefly on a text file and checks the output
// directory.
func TestTrainTextFile(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "abc.txt")
	var lines []string
	for i := 0; i < 40; i++ {
		lines = append(lines, strings.Repeat("ab", 3+i%5)+"c")
	}
	if err := os.WriteFile(data, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	rep, err := Train(TrainSpec{Model: "rnn", Hidden: 8, DataFile: data, Epochs: 2, Batch: 8, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Task != "abc.txt" || rep.Executor.String() != "fused/float64" || rep.OptimalLoss != nil || rep.UniformLoss == nil || math.Abs(*rep.UniformLoss-math.Log(3)) > 1e-12 {
		t.Errorf("report %+v", rep)
	}
	for _, f := range []string{"checkpoint.npz", "metrics.jsonl", "model.npz", "result.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestTrainFloat32 trains each model briefly in float32 and in float64 from
// the same seed: the losses agree to float32 precision over a short run,
// the float32 run is repeatable to the bit, and its checkpoint is not
// resumed as a float64 run.
func TestTrainFloat32(t *testing.T) {
	for _, m := range []string{"rnn", "lstm", "gru"} {
		t.Run(m, func(t *testing.T) {
			spec := TrainSpec{Model: m, Hidden: 8, Epochs: 2, Batch: 16, Seed: 3}
			want, err := Train(spec)
			if err != nil {
				t.Fatal(err)
			}
			spec.DType = "float32"
			out := t.TempDir()
			spec.Out = out
			got, err := Train(spec)
			if err != nil {
				t.Fatal(err)
			}
			spec.Out = ""
			again, err := Train(spec)
			if err != nil {
				t.Fatal(err)
			}
			if again.TestLoss != got.TestLoss {
				t.Errorf("float32 rerun: test loss %v, was %v", again.TestLoss, got.TestLoss)
			}
			if d := math.Abs(float64(got.TestLoss) - float64(want.TestLoss)); d > 1e-3*float64(want.TestLoss) || got.TestLoss == want.TestLoss {
				t.Errorf("float32 test loss %v, float64 %v", got.TestLoss, want.TestLoss)
			}
			_, err = Train(TrainSpec{Model: m, Hidden: 8, Epochs: 3, Batch: 16, Seed: 3, Resume: out})
			if err == nil || !strings.Contains(err.Error(), "dtype") {
				t.Errorf("a float32 checkpoint resumed as float64: error %v, want one naming dtype", err)
			}
		})
	}
}
