package runs

import (
	"strings"
	"testing"
)

// A resume whose -epochs the checkpoint already reached is refused with
// both counts rather than doing nothing silently.
func TestTrainResumeNothingToDo(t *testing.T) {
	dir := t.TempDir()
	spec := TrainSpec{Model: "rnn", Activation: "tanh", Hidden: 4, Task: "pfa", Optimizer: "adam", Epochs: 2, Batch: 32, Chunk: 20, Seed: 1, Out: dir}
	if _, err := Train(spec); err != nil {
		t.Fatal(err)
	}
	spec.Resume, spec.Epochs = dir, 1
	_, err := Train(spec)
	if err == nil || !strings.Contains(err.Error(), "already has 2 epochs and -epochs is 1") {
		t.Fatalf("got %v", err)
	}
}
