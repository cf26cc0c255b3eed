package twornn

import (
	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/spectral"
)

var (
	_ optim.Problem           = (*FinetuneProblem)(nil)
	_ optim.Evaluator         = (*FinetuneProblem)(nil)
	_ optim.Validator         = (*FinetuneProblem)(nil)
	_ optim.ValidationChecker = (*FinetuneProblem)(nil)
)

// FinetuneProblem is the regression of a linear 2-RNN, started from an
// estimate such as a spectral one, on training sequences of any lengths,
// with the MSE on validation sequences as the trainer's validation loss:
// the spectral-then-gradient recipe of the 2-RNN paper on one's own data
// (the problem rtn spectral finetune trains, its trainer set from its
// flags, with checkpoints and resume). It implements optim.Problem,
// optim.Evaluator, optim.Validator and optim.ValidationChecker, so that
// it also serves optimizer comparisons (optim/compare).
type FinetuneProblem struct {
	*Regression
	model *Model
	valid datasets.IOData
}

// NewFinetuneProblem builds the problem from the estimate r (its
// parameters are copied into a Model named "tworn") and the training and
// validation sequences, whose d and p must be r's; valid may be empty,
// and then the trainer selects by training loss.
func NewFinetuneProblem(r spectral.RNN, train, valid datasets.IOData) (*FinetuneProblem, error) {
	for _, s := range []struct {
		name string
		d    datasets.IOData
	}{{"training", train}, {"validation", valid}} {
		if s.d.N() > 0 && (s.d.In != r.In || s.d.Out != r.Out) {
			return nil, errors.Errorf("twornn: the %s sequences have d = %d, p = %d, the model d = %d, p = %d", s.name, s.d.In, s.d.Out, r.In, r.Out)
		}
	}
	m, err := NewModel("tworn", r.In, r.States, r.Out, activation.Identity)
	if err != nil {
		return nil, err
	}
	if err := m.SetFromRNN(r); err != nil {
		return nil, err
	}
	reg, err := NewRegression(m, train.ByLength())
	if err != nil {
		return nil, err
	}
	return &FinetuneProblem{Regression: reg, model: m, valid: valid}, nil
}

// ValidationLoss is the MSE of the current parameters on the validation
// sequences (optim.Validator).
func (p *FinetuneProblem) ValidationLoss() (float64, error) { return p.model.RNN().MSEIO(p.valid) }

// HasValidation reports whether there are validation sequences
// (optim.ValidationChecker).
func (p *FinetuneProblem) HasValidation() bool { return p.valid.N() > 0 }

// RNN returns the current parameters as a linear 2-RNN.
func (p *FinetuneProblem) RNN() spectral.RNN { return p.model.RNN() }

// FinetuneConfig sets Finetune. Train holds the trainer's settings
// (Epochs, BatchSize, Seed, Patience, Schedule, CheckpointPath,
// MetricsPath, Progress, Hooks); its zero Epochs, BatchSize and Seed are
// defaulted to 100, 100 and 1, as rtn spectral finetune's flags, and its
// zero Patience means no rate drops (the command's default is 5: set
// Patience 5 for its result, bit for bit). To continue from a
// checkpoint, run optim.Trainer on NewFinetuneProblem and call its
// Resume, as the command does.
type FinetuneConfig struct {
	// Optimizer is a registered optimizer (optim.Names). If empty, it will
	// be defaulted to "adam".
	Optimizer string
	// Optim holds its hyperparameters (zero: its defaults).
	Optim optim.Config
	// Train is passed to optim.NewTrainer.
	Train optim.TrainConfig
}

// Finetune trains the linear 2-RNN r on the training sequences with the
// configured optimizer (FinetuneProblem) and returns the parameters of the
// best validation MSE (the best training loss without validation
// sequences) and the trainer's summary. A run that diverges is an error
// (optim.IsDiverged), with the zero RNN.
func Finetune(r spectral.RNN, train, valid datasets.IOData, cfg FinetuneConfig) (spectral.RNN, *optim.Result, error) {
	p, err := NewFinetuneProblem(r, train, valid)
	if err != nil {
		return spectral.RNN{}, nil, err
	}
	if cfg.Optimizer == "" {
		cfg.Optimizer = "adam"
	}
	opt, err := optim.New(cfg.Optimizer, cfg.Optim)
	if err != nil {
		return spectral.RNN{}, nil, err
	}
	tc := cfg.Train
	if tc.Epochs == 0 {
		tc.Epochs = 100
	}
	if tc.BatchSize == 0 {
		tc.BatchSize = 100
	}
	if tc.Seed == 0 {
		tc.Seed = 1
	}
	t, err := optim.NewTrainer(p, opt, tc)
	if err != nil {
		return spectral.RNN{}, nil, err
	}
	res, err := t.Run()
	if err != nil {
		return spectral.RNN{}, res, err
	}
	return p.RNN(), res, nil
}
