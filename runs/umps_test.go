package runs

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/rtnlab/rtn/layers/umps"
)

// With a length-balanced start, TrainUMPS keeps whichever of the two runs
// of an initialisation validates better, so it never ends worse than the
// paper's protocol alone; it is reproducible bit for bit and refused
// under P_*.
func TestTrainUMPSBalance(t *testing.T) {
	spec := UMPSSpec{Data: "tomita5", Bond: 2, NTrain: 60, NValid: 20, Epochs: 2, Seed: 3, BalanceEpochs: Off}
	paper, err := TrainUMPS(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.BalanceEpochs = 2
	a, err := TrainUMPS(spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := TrainUMPS(spec)
	if err != nil {
		t.Fatal(err)
	}
	if a.ValidNLL > paper.ValidNLL {
		t.Errorf("valid NLL %v with the balanced start, %v without", a.ValidNLL, paper.ValidNLL)
	}
	if (a.BalanceEpochs != 0 && a.BalanceEpochs != 2) || (a.BalanceEpochs == 2 && a.Epochs < 3) {
		t.Errorf("kept model: %d balanced of %d epochs", a.BalanceEpochs, a.Epochs)
	}
	if a.ValidNLL != b.ValidNLL || a.TrainNLL != b.TrainNLL || a.BalanceEpochs != b.BalanceEpochs {
		t.Errorf("same spec, different results: %+v, %+v", a, b)
	}
	spec.Norm = new(umps.AllLengths)
	star, err := TrainUMPS(spec)
	if err != nil {
		t.Fatalf("P_* with the length-balanced start: %v", err)
	}
	if math.IsNaN(star.ValidNLL) || math.IsInf(star.ValidNLL, 0) || star.LengthModel != "star" {
		t.Errorf("P_* run: valid NLL %v, length model %q", star.ValidNLL, star.LengthModel)
	}
}

// A model file written before length models existed loads and says it has
// none; a per-length run's file has the fitted one.
func TestUMPSLengthModelFile(t *testing.T) {
	dir := t.TempDir()
	p, err := umps.NewParams(2, 2, umps.NearIdentity, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old.npz")
	if err := umps.SaveModel(old, umps.ModelMeta{Kind: "umps", Data: "tomita1", Alphabet: []string{"0", "1"}, Bond: 2, Norm: "n"}, p); err != nil {
		t.Fatal(err)
	}
	_, meta, err := umps.LoadModel(old)
	if err != nil {
		t.Fatal(err)
	}
	if got := meta.LengthModelName(); got != "none" || meta.Lengths != nil {
		t.Errorf("old file: length model %q", got)
	}
	run := filepath.Join(dir, "run")
	if _, err := TrainUMPS(UMPSSpec{Data: "tomita1", Bond: 2, NTrain: 30, NValid: 10, Epochs: 1, Out: run}); err != nil {
		t.Fatal(err)
	}
	_, meta, err = umps.LoadModel(run)
	if err != nil {
		t.Fatal(err)
	}
	if meta.LengthModelName() != "fitted" || meta.Lengths.Validate() != nil {
		t.Errorf("new file: length model %q %+v", meta.LengthModelName(), meta.Lengths)
	}
}

// ClipNorm reaches Adam: the same run with the minibatch gradients clipped
// to a tiny norm ends elsewhere, and the clipped run is reproducible.
func TestTrainUMPSClipNorm(t *testing.T) {
	spec := UMPSSpec{Data: "tomita5", Bond: 2, NTrain: 60, NValid: 20, Epochs: 2, Seed: 3, Norm: new(umps.AllLengths), BatchSize: 10, LR: 0.03, InitNoise: 0.1, BalanceEpochs: Off}
	free, err := TrainUMPS(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.ClipNorm = 1e-3
	a, err := TrainUMPS(spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := TrainUMPS(spec)
	if err != nil {
		t.Fatal(err)
	}
	if a.ValidNLL == free.ValidNLL {
		t.Errorf("valid NLL %v with and without clipping (best epochs %d, %d)", a.ValidNLL, a.BestEpoch, free.BestEpoch)
	}
	if a.ValidNLL != b.ValidNLL || a.TrainNLL != b.TrainNLL {
		t.Errorf("same spec, different results: %+v, %+v", a, b)
	}
}
