// Package rnn provides the first-order recurrent cells of rtn: the Elman
// RNN (tanh, the symmetric sigmoid of the autoencoder paper, or identity)
// and the LSTM baseline, both as graph.Cell values that layers.Sequence
// unrolls and trains.
//
// Parameter names are prefixed with the name given at construction, so
// several cells can share one params.Params set.
package rnn
