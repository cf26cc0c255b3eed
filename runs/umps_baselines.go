package runs

import (
	"io"
	"math/rand/v2"

	"github.com/rtnlab/rtn/layers/baseline"
	"github.com/rtnlab/rtn/optim"
)

// UMPSBaselineSpec trains one of the u-MPS paper's LSTM baselines on
// strings over Symbols symbols (TrainLSTMLM, TrainBiLSTM), as the paper
// trains them and its u-MPS: Adam at 1e-2, batches of 50, warm-up 5,
// patience 5, three drops by 10 with the optimizer re-initialised at
// each, best parameters by validation loss.
type UMPSBaselineSpec struct {
	// Train and Valid are the strings (symbol ids in [0, Symbols)); for
	// TrainBiLSTM they all have one length.
	Train, Valid [][]int
	Symbols      int
	// Hidden is the LSTM's width. If 0, it will be defaulted to 20.
	Hidden int
	// Epochs is the most epochs. If 0, it will be defaulted to 100.
	Epochs int
	// Seed draws the initial weights and the batches. If 0, it will be
	// defaulted to 1.
	Seed uint64
	// Progress receives a progress bar (nil: none).
	Progress io.Writer
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s UMPSBaselineSpec) WithDefaults() UMPSBaselineSpec {
	if s.Hidden == 0 {
		s.Hidden = 20
	}
	if s.Epochs == 0 {
		s.Epochs = 100
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	return s
}

// Validate checks the spec's values (a *FieldError); the strings'
// symbols are checked by the model's problem.
func (s UMPSBaselineSpec) Validate() error {
	if len(s.Train) == 0 {
		return fieldErr("Train", nil, "strings to train on (none given)")
	}
	return firstErr(checkMin("Symbols", s.Symbols, 1), checkRange("Hidden", s.Hidden, 1, MaxUnits), checkMin("Epochs", s.Epochs, 1), checkSeed("Seed", s.Seed))
}

// TrainLSTMLM trains the u-MPS paper's LSTM language model baseline.
func TrainLSTMLM(spec UMPSBaselineSpec) (*baseline.LSTMLM, *optim.Result, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, nil, err
	}
	m, err := baseline.NewLSTMLM(spec.Symbols, spec.Hidden, rand.New(rand.NewPCG(spec.Seed, 0x6c73746d)))
	if err != nil {
		return nil, nil, err
	}
	prob, err := m.Problem(spec.Train, spec.Valid)
	if err != nil {
		return nil, nil, err
	}
	res, err := trainUMPSBaseline(prob, spec)
	return m, res, err
}

// TrainBiLSTM trains the u-MPS paper's completion baseline, a
// bidirectional LSTM, on strings that all have the same length (the
// Motzkin training sets).
func TrainBiLSTM(spec UMPSBaselineSpec) (*baseline.BiLSTM, *optim.Result, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, nil, err
	}
	bl, err := baseline.NewBiLSTM(spec.Symbols, spec.Hidden, rand.New(rand.NewPCG(spec.Seed, 0x62696c73)))
	if err != nil {
		return nil, nil, err
	}
	prob, err := bl.Problem(spec.Train, spec.Valid)
	if err != nil {
		return nil, nil, err
	}
	res, err := trainUMPSBaseline(prob, spec)
	return bl, res, err
}

// trainUMPSBaseline trains prob with the schedule of UMPSBaselineSpec.
func trainUMPSBaseline(prob optim.Problem, spec UMPSBaselineSpec) (*optim.Result, error) {
	opt, err := optim.New("adam", optim.Config{LR: 1e-2})
	if err != nil {
		return nil, err
	}
	tr, err := optim.NewTrainer(prob, opt, optim.TrainConfig{Epochs: spec.Epochs, BatchSize: 50, Seed: spec.Seed,
		Patience: 5, Warmup: 5, MaxDrops: 3, ResetOnDrop: true, Progress: spec.Progress})
	if err != nil {
		return nil, err
	}
	return tr.Run()
}
