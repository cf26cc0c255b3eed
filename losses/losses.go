package losses

import (
	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
)

// MSE is the mean squared error of each row, mean_k (pred - target)^2:
// divided by the number of columns K, not summed, and not halved.
//
// pred, target: [batch, K]; returns [batch]. Under a unit-variance Gaussian
// model K*MSE/2 + K*log(2*pi)/2 is the negative log-likelihood in nats.
func MSE(b *graph.Builder, pred, target *G.Node) *G.Node {
	if !sameMatrices(b, "MSE", pred, target) {
		return nil
	}
	return b.Mean(b.Square(b.Sub(pred, target)), 1)
}

// CategoricalNLL is the cross-entropy of each row,
// -sum_k onehot[k] * log softmax(logits)[k], computed with the max-shifted
// graph.Builder.LogSoftmax so that logits of any size give finite values.
// With one-hot rows it is -log p(class); soft targets (rows summing to 1)
// give the cross-entropy, and a zero row gives 0 (a padded row).
//
// logits, onehot: [batch, classes]; returns [batch], nats.
func CategoricalNLL(b *graph.Builder, logits, onehot *G.Node) *G.Node {
	if !sameMatrices(b, "CategoricalNLL", logits, onehot) {
		return nil
	}
	return b.Neg(b.Sum(b.Hadamard(onehot, b.LogSoftmax(logits, 1)), 1))
}

// BernoulliNLL is the negative log-likelihood of independent Bernoulli
// variables with probabilities sigmoid(logits), summed over each row:
// sum_k softplus(z_k) - t_k z_k, which equals
// -sum_k t_k log sigmoid(z_k) + (1 - t_k) log(1 - sigmoid(z_k)).
// softplus is graph.Builder.Log1pExp, exact for all z (gorgonia's Softplus
// is off by up to 1.1e-7 above 16), so logits of ±1000 give finite, exact
// values. Targets in [0, 1] give the binary cross-entropy.
//
// logits, targets: [batch, K]; returns [batch], nats.
func BernoulliNLL(b *graph.Builder, logits, targets *G.Node) *G.Node {
	if !sameMatrices(b, "BernoulliNLL", logits, targets) {
		return nil
	}
	return b.Sum(b.Sub(b.Log1pExp(logits), b.Hadamard(targets, logits)), 1)
}

// MaskedSum is sum_i perRow[i] * mask[i], the total loss of the rows whose
// mask is 1 (masks may also weight rows). It is built as
// Sum(HadamardProd) rather than as a dot product, which gorgonia can
// differentiate wrongly when its operands are reshaped nodes.
//
// perRow, mask: [batch]; returns a scalar in the units of perRow.
func MaskedSum(b *graph.Builder, perRow, mask *G.Node) *G.Node {
	if !present(b, "MaskedSum", perRow, mask) {
		return nil
	}
	if perRow.Dims() != 1 || mask.Dims() != 1 || perRow.Shape()[0] != mask.Shape()[0] {
		b.Fail(errors.Errorf("want perRow [batch] and mask [batch], got %v and %v", perRow.Shape(), mask.Shape()), "losses: MaskedSum")
		return nil
	}
	return b.Sum(b.Hadamard(perRow, mask))
}

// present reports whether b holds no error and every node is non-nil,
// recording an error for a nil node.
func present(b *graph.Builder, op string, ns ...*G.Node) bool {
	if b.Err() != nil {
		return false
	}
	for i, n := range ns {
		if n == nil {
			b.Fail(errors.Errorf("argument %d is nil", i), "losses: "+op)
			return false
		}
	}
	return true
}

// sameMatrices checks that x and y are matrices of one shape.
func sameMatrices(b *graph.Builder, op string, x, y *G.Node) bool {
	if !present(b, op, x, y) {
		return false
	}
	xs, ys := x.Shape(), y.Shape()
	if len(xs) != 2 || len(ys) != 2 || xs[0] != ys[0] || xs[1] != ys[1] {
		b.Fail(errors.Errorf("want two [batch, K] matrices of one shape, got %v and %v", x.Shape(), y.Shape()), "losses: "+op)
		return false
	}
	return true
}
