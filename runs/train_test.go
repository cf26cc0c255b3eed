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
	if rep.Task != "abc.txt" || rep.OptimalLoss != nil || rep.UniformLoss == nil || math.Abs(*rep.UniformLoss-math.Log(3)) > 1e-12 {
		t.Errorf("report %+v", rep)
	}
	for _, f := range []string{"checkpoint.npz", "metrics.jsonl", "model.npz", "result.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}
