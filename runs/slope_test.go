package runs

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/spectral"
)

// TestSlopeSchedule trains a LeakyReLU 2-RNN for 3 epochs with the slope
// moving from 1 to 0.1 over 2 epochs and checks the slope after each.
func TestSlopeSchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	prob := spectral.AdditionProblem()
	var sets []datasets.TwoRNNData
	for _, l := range []int{2, 4, 5} {
		s, err := prob.Sample(40, l, 0.1, rng)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, s)
	}
	m, err := twornn.NewModel("m", 3, 2, 1, activation.LeakyReLU)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Init(rng); err != nil {
		t.Fatal(err)
	}
	hook, err := SlopeSchedule(m.Cell, 1, 0.1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if m.Cell.Slope() != 1 {
		t.Fatalf("initial slope %v, want 1", m.Cell.Slope())
	}
	var seen []float64
	record := optim.Hook{Name: "record", EveryEpoch: true, Fn: func(*optim.State) error {
		seen = append(seen, m.Cell.Slope())
		return nil
	}}
	reg, err := twornn.NewRegression(m, sets)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := optim.New("adam", optim.Config{LR: 0.001})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := optim.NewTrainer(reg, opt, optim.TrainConfig{Epochs: 3, BatchSize: 20, Seed: 1, Hooks: []optim.Hook{hook, record}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(); err != nil {
		t.Fatal(err)
	}
	want := []float64{0.55, 0.1, 0.1}
	if len(seen) != len(want) {
		t.Fatalf("slopes %v, want %v", seen, want)
	}
	for i := range want {
		if math.Abs(seen[i]-want[i]) > 1e-12 {
			t.Errorf("slope after epoch %d: %v, want %v", i+1, seen[i], want[i])
		}
	}
	lin, err := twornn.NewModel("l", 3, 2, 1, activation.Identity)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SlopeSchedule(lin.Cell, 1, 0.1, 2); err == nil {
		t.Error("a slope schedule on a linear cell was accepted")
	}
}
