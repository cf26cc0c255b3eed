// Package rnn provides the first-order recurrent cells of rtn: the Elman
// RNN (tanh, the symmetric sigmoid of the autoencoder paper, or identity)
// and the LSTM and GRU baselines, as graph.Cell values that layers.Sequence
// trains. Each also implements graph.FusedCell: its step and the step's
// vector-Jacobian product in plain Go, which layers.Problem runs instead of
// the compiled graph.
//
// Parameter names are prefixed with the name given at construction, so
// several cells can share one params.Params set.
package rnn
