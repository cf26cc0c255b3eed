package optim

import (
	"testing"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// countingProblem counts LossGrad and Loss calls.
type countingProblem struct {
	*harnessProblem
	lossGrads, losses int
}

func (c *countingProblem) LossGrad(b []int, g *params.Params) (float64, error) {
	c.lossGrads++
	return c.harnessProblem.LossGrad(b, g)
}

func (c *countingProblem) Loss(b []int) (float64, error) {
	c.losses++
	return c.harnessProblem.Loss(b)
}

// gradFreeStepper wraps AcceptReject and declares that it needs no gradient
// (it steps along a fixed direction instead).
type gradFreeStepper struct {
	*AcceptReject
	needs bool
}

func (g *gradFreeStepper) NeedsGradient() bool { return g.needs }

func (g *gradFreeStepper) StepProblem(p Problem, batch []int, loss float64, grads *params.Params) error {
	if !g.needs {
		for _, n := range grads.Names() {
			for _, v := range grads.Data(n) {
				if v != 0 {
					return errTestGradient
				}
			}
		}
		// A gradient-free rule: the gradient recomputed by the stepper.
		if _, err := p.LossGrad(batch, grads); err != nil {
			return err
		}
	}
	return g.AcceptReject.StepProblem(p, batch, loss, grads)
}

var errTestGradient = errors.New("the trainer passed a non-zero gradient to a gradient-free stepper")

// TestGradientFreeSkipsLossGrad: with NeedsGradient false the Trainer
// evaluates the loss with Loss, passes a zeroed gradient, and training
// still converges; with true it calls LossGrad as usual.
func TestGradientFreeSkipsLossGrad(t *testing.T) {
	for _, needs := range []bool{false, true} {
		p := &countingProblem{harnessProblem: quadraticProblem(t)}
		ar := newAcceptReject(t, newOptimizer(t, "sgd", Config{LR: 0.001}), AcceptRejectConfig{})
		st := &gradFreeStepper{AcceptReject: ar, needs: needs}
		start, _ := p.harnessProblem.Loss(nil)
		tr, err := NewTrainer(p, st, TrainConfig{Epochs: 20, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Run(); err != nil {
			t.Fatal(err)
		}
		end, _ := p.harnessProblem.Loss(nil)
		if !(end < start) {
			t.Errorf("needs=%v: loss %v -> %v", needs, start, end)
		}
		// Each step: the trainer's evaluation plus the stepper's own
		// LossGrad (gradient-free) or the trainer's LossGrad.
		if needs && p.lossGrads != 20 {
			t.Errorf("needs=true: %d LossGrad calls for 20 steps", p.lossGrads)
		}
		if !needs && p.lossGrads != 20 {
			t.Errorf("needs=false: %d LossGrad calls, want the stepper's 20 only", p.lossGrads)
		}
		if !needs && p.losses < 40 {
			t.Errorf("needs=false: %d Loss calls, want the trainer's 20 plus the acceptance checks", p.losses)
		}
	}
}
