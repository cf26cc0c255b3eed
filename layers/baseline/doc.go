// Package baseline holds the LSTM models the papers compare against: the
// u-MPS paper's next-symbol language model (LSTMLM, sampled at a fixed
// length) and bidirectional completion model (BiLSTM), and the spectral
// 2-RNN paper's regressor (LSTMRegressor, a twornn.Net). Each builds its
// graph from layers/rnn cells and exposes a training problem; the
// optimizer loop lives in optim.
package baseline
