// Package losses holds rtn's training losses, as functions on gorgonia
// graph nodes built through a *graph.Builder, and its evaluation metrics,
// in plain Go.
//
// Every loss returns one value per row of the batch, in nats, so that the
// caller decides how padded rows are masked and how the batch is reduced:
//
//	b := graph.NewBuilder()
//	logits := ...                                      // [batch, classes]
//	onehot := b.Input("y", batch, classes)             // [batch, classes]
//	mask := b.Input("mask", batch)                     // [batch], 1 for real rows
//	perRow := losses.CategoricalNLL(b, logits, onehot) // [batch], nats
//	loss := losses.MaskedSum(b, perRow, mask)          // scalar, nats
//	if err := b.Err(); err != nil { ... }
//
// Divide the summed loss by the number of symbols (PerSymbol) for nats per
// symbol, convert with NatsToBits, or take Perplexity.
//
// Shapes are checked when the graph is built: a mismatch is recorded in
// the Builder (see graph.Builder.Err) and the loss returns nil.
package losses
