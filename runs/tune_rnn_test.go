package runs

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/spectral"
)

// ioSample draws count sequences of lengths 1 to 5 with Gaussian inputs
// and the target's outputs plus Gaussian noise of std noise.
func ioSample(t *testing.T, rng *rand.Rand, target spectral.RNN, count int, noise float64) datasets.IOData {
	t.Helper()
	s := datasets.IOData{In: target.In, Out: target.Out}
	for range count {
		x := make([]float64, (1+rng.IntN(5))*target.In)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		s.X = append(s.X, x)
		s.Y = append(s.Y, make([]float64, target.Out)...)
	}
	y, err := target.PredictIO(s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		s.Y[i] = y[i] + noise*rng.NormFloat64()
	}
	return s
}

// TuneRNN from a perturbed target lowers the validation MSE, returns the
// parameters of its best validation loss, gives the same bits twice, and
// refuses sequences of another input size.
func TestTuneRNN(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	target, err := spectral.RandomTwoRNN(spectral.RandomTwoRNNConfig{States: 3, In: 2, Out: 1}, rng)
	if err != nil {
		t.Fatal(err)
	}
	train, valid := ioSample(t, rng, target, 400, 0.01), ioSample(t, rng, target, 100, 0.01)
	start := target
	start.A = slices.Clone(target.A)
	for i := range start.A {
		start.A[i] *= 1 + 0.1*rng.NormFloat64()
	}
	before, err := start.MSEIO(valid)
	if err != nil {
		t.Fatal(err)
	}
	cfg := SpectralTuneSpec{Optim: optim.Config{LR: 1e-3}, Epochs: 5, Batch: 20, Patience: Off}
	tuned, res, err := TuneRNN(start, train, valid, cfg)
	if err != nil {
		t.Fatal(err)
	}
	after, err := tuned.MSEIO(valid)
	if err != nil {
		t.Fatal(err)
	}
	const rel = 1e-12 // the validation MSE recomputed from the returned RNN
	if !(after < before/2) || res.BestEpoch < 1 || math.Abs(after-res.BestValid) > rel*after {
		t.Errorf("validation MSE %g -> %g, best epoch %d with %g", before, after, res.BestEpoch, res.BestValid)
	}
	again, _, err := TuneRNN(start, train, valid, cfg)
	if err != nil || !slices.Equal(again.A, tuned.A) || !slices.Equal(again.Alpha, tuned.Alpha) || !slices.Equal(again.Omega, tuned.Omega) {
		t.Errorf("a second run differs (%v)", err)
	}
	wide := ioSample(t, rng, spectral.RNN{States: 1, In: 3, Out: 1, Alpha: []float64{1}, A: []float64{1, 1, 1}, Omega: []float64{1}}, 10, 0)
	if _, _, err := TuneRNN(start, train, wide, cfg); err == nil || !strings.Contains(err.Error(), "validation sequences have d = 3") {
		t.Errorf("validation sequences of another d: %v", err)
	}
}
