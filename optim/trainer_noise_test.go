package optim

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/rtnlab/rtn/params"
)

// trNoisy records the noise seed of every training batch.
type trNoisy struct {
	*trProblem
	seeds []uint64
	cur   uint64
}

func (q *trNoisy) SetNoiseSeed(seed uint64) { q.cur = seed }

func (q *trNoisy) LossGrad(b []int, g *params.Params) (float64, error) {
	q.seeds = append(q.seeds, q.cur)
	return q.trProblem.LossGrad(b, g)
}

// TestTrainerNoiseSeeds checks that a Noisy problem gets a new seed before
// every training batch, a function of the run's seed and the step only: a
// run resumed after its first epoch draws the seeds the whole run does.
func TestTrainerNoiseSeeds(t *testing.T) {
	cfg := TrainConfig{Epochs: 2, BatchSize: 16, Seed: 9}
	whole := &trNoisy{trProblem: newTrProblem(t, 64, 1)}
	if _, err := mustTrainer(t, whole, &testSGD{lr: 0.1}, cfg).Run(); err != nil {
		t.Fatal(err)
	}
	if n := len(whole.seeds); n != 8 || len(slices.Compact(slices.Sorted(slices.Values(whole.seeds)))) != n {
		t.Fatalf("seeds %v: want 8 different ones", whole.seeds)
	}
	for step, s := range whole.seeds {
		if s != noiseSeed(9, step) {
			t.Fatalf("step %d: seed %d, want noiseSeed(9, %d)", step, s, step)
		}
	}

	ck := filepath.Join(t.TempDir(), "ck.npz")
	first := &trNoisy{trProblem: newTrProblem(t, 64, 1)}
	c1 := cfg
	c1.Epochs, c1.CheckpointPath = 1, ck
	if _, err := mustTrainer(t, first, &testSGD{lr: 0.1}, c1).Run(); err != nil {
		t.Fatal(err)
	}
	rest := &trNoisy{trProblem: newTrProblem(t, 64, 1)}
	tr := mustTrainer(t, rest, &testSGD{lr: 0.1}, cfg)
	if err := tr.Resume(ck); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	if got := append(first.seeds, rest.seeds...); !slices.Equal(got, whole.seeds) {
		t.Fatalf("resumed seeds %v, whole run %v", got, whole.seeds)
	}
}
