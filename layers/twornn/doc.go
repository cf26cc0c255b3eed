// Package twornn is the second-order RNN (2-RNN) of Rabusseau, Li and
// Precup (AISTATS 2019), Eq. (1):
//
//	h_t = z(A .1 h_{t-1} .2 x_t),  y_t = Omega h_t,  h_0 learnable,
//
// with A an n x d x n tensor, as a graph.Cell usable with rtn's
// unroller and trainer. The activation z is the identity (the linear 2-RNN
// that spectral learns), tanh, or a LeakyReLU whose negative slope can be
// moved during training from 1 (linear) towards a nonlinear value (the
// paper's suggested path from a spectral initialisation to a nonlinear
// 2-RNN).
//
// The bilinear step is the row-wise Kronecker product of h_{t-1} and x_t
// times A read as an (n d) x n matrix (graph.Builder.Kron, then one
// product), avoiding gorgonia's Tensordot and OuterProd whose gradients are
// wrong (see the graph package's defect notes). Cell also implements
// graph.FusedCell: the same step and its vector-Jacobian product in plain
// Go, which layers.Problem runs for a Sequence on the cell.
//
// Model adds the output matrix and Regression trains it on the
// final-output examples of the spectral paper (datasets.TwoRNNData), the
// "TIHT+SGD" fine-tuning when the model starts from a spectral estimate
// (Model.SetFromRNN). Finetune (and FinetuneProblem, for optimizer
// comparisons) does the same on sequences of any lengths
// (datasets.IOData), with early stopping on a validation MSE.
package twornn
