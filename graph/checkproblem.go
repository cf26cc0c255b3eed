package graph

import (
	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// Problem is a training problem as CheckProblem sees it: a loss over a
// batch of training examples, the gradient that training uses, and the
// loss alone. layers.Problem implements it, and so does any optim.Problem
// with a Loss method.
type Problem interface {
	// Params is the parameter set the gradient is taken with respect to.
	Params() *params.Params
	// NumExamples is the number of training examples.
	NumExamples() int
	// LossGrad returns the loss of the examples in batch and writes its
	// gradient into grads (a set with the layout of Params()).
	LossGrad(batch []int, grads *params.Params) (float64, error)
	// Loss returns the loss LossGrad would return, without the gradient.
	Loss(batch []int) (float64, error)
}

// CheckProblemOptions sets CheckProblem. The zero value is usable.
type CheckProblemOptions struct {
	// FDOptions sets the finite differences and the tolerance (its
	// defaults: step 1e-4, relative tolerance 1e-5, every entry).
	FDOptions
	// Batch lists the training examples the loss is taken over. If Batch
	// is empty, it will be defaulted to the first min(4, NumExamples())
	// examples.
	Batch []int
}

// checkBatch is the default size of CheckProblem's batch: a few
// examples, so that a check of every entry stays quick.
const checkBatch = 4

// CheckProblem checks the gradient that training uses, p.LossGrad, whatever
// runs it (a cell's hand-written kernel, the tape, compiled graphs), against
// central finite differences of the same problem's loss, p.Loss, on one
// batch. Entries of p.Params() are perturbed in place and restored.
//
// It returns the report (entries checked, the worst absolute and relative
// errors and where they are) and, when an entry's relative error exceeds
// the tolerance, a *GradientError listing the entries out of tolerance.
// A correct float64 model's worst relative error is typically 1e-9 to
// 1e-7; a wrong gradient gives errors of order 1. Run it in float64: in
// float32 the loss is too coarse for finite differences.
func CheckProblem(p Problem, opt CheckProblemOptions) (GradientReport, error) {
	batch := opt.Batch
	if len(batch) == 0 {
		n := p.NumExamples()
		if n <= 0 {
			return GradientReport{}, errors.New("graph: CheckProblem: the problem has no training examples")
		}
		for i := range min(checkBatch, n) {
			batch = append(batch, i)
		}
	}
	for _, i := range batch {
		if i < 0 || i >= p.NumExamples() {
			return GradientReport{}, errors.Errorf("graph: CheckProblem: batch holds example %d, the problem has %d", i, p.NumExamples())
		}
	}
	return checkGradients(p.Params(),
		func() (float64, error) { return p.Loss(batch) },
		func(g *params.Params) error { _, err := p.LossGrad(batch, g); return err },
		opt.FDOptions)
}
