// Package tensorcell holds recurrent tensor cells written only with
// graph.Builder's public operations (Mul, Hadamard, Kron, Einsum and the
// decompositions of layers/decomp): no hand-written kernel, so each runs
// on the tape like a user's own cell, and each is a template for one.
//
//   - CP2RNN: the second-order RNN with a CP-decomposed transition tensor;
//   - HOTRNN: a higher-order tensor-train RNN over the last L states (Yu et
//     al., "Long-term forecasting using higher-order tensor RNNs", 2017);
//   - MIRNN: multiplicative integration (Wu et al., NeurIPS 2016);
//   - MPSCell: a uniform matrix product state's step as a recurrent cell
//     (its state normalised), for a softmax head.
//
// Importing the package registers them with layers.RegisterCell as
// cp2rnn, hotrnn, mirnn and mpscell, for layers.NewCell, model files and
// the -model flags of rtn train, compare and bench.
package tensorcell
