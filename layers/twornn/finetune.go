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
