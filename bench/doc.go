// Package bench times one training step (forward, backpropagation through
// time, Adam update) of rtn's built-in recurrent models at fixed sizes, for
// `rtn bench` and `go test -bench` alike: both build the step with Setup
// and run the same closure, so their figures agree.
//
// The models and their sizes (batch B, default 32, and the sequence length
// T are set by Config):
//
//   - rnn-step, lstm-step, gru-step: an Elman tanh RNN, an LSTM and a GRU
//     with Config.Hidden units (default 100) and a linear read-out, on
//     random binary frames of Config.In notes (default 88, the piano-roll
//     width), Bernoulli loss per note;
//   - ugru-step: the same GRU written as a user's cell (InitialState and
//     Step as graph.Builder ops, no hand-written kernel), so it runs on the
//     tape executor (graph.CompileTape): its time beside gru-step's is the
//     cost of a cell without a kernel;
//   - 2rnn-step: the bilinear second-order RNN cell of layers/twornn
//     (tanh, Config.Hidden/2 states: 50 by default, 10 Gaussian inputs) with a linear read-out of 10
//     real outputs, squared-error loss;
//   - cp2rnn-step, hotrnn-step, hotrnn3-step, mirnn-step, mpscell-step:
//     the tensor cells of layers/tensorcell, built by layers.NewCell and
//     run on the tape (no hand-written kernel, as a user's cell runs).
//     cp2rnn, hotrnn and mirnn read the rnn's data (Config.In binary
//     notes, Bernoulli loss) with Config.Hidden units: cp2rnn at CP rank
//     = hidden, hotrnn of order 2 (hotrnn3: 3) over 2 lagged states at
//     tensor-train rank 4 (the registered cells' defaults). mpscell reads
//     one-hot symbols, as a u-MPS does: 10 symbols, bond 50 (the 2-RNN's
//     sizes; Kron(h, x) is bond x symbols wide, 8,800 at 88 notes and 100
//     units), softmax loss on the next symbol;
//   - umps-d20-step, umps-d50-step: the u-MPS Born machine of layers/umps
//     with bond dimension 20 and 50 over 2 symbols, mean negative
//     log-likelihood under P_T of B random strings of length T;
//   - wfa-n50-step, wfa-n150-step: the fine-tuning problem of wfa.Finetune
//     (wfa.Likelihood, Adam at 1e-5) on a signed WFA with 50 and 150
//     states over 10 symbols (spectral radius below 1), B random strings
//     of length T.
//
// The sequence models predict the next frame: inputs and targets are
// views of one array of T+1 frames (no copies), so the data of a long run
// (batch 32, 88 notes, T = 10,000: 225 MB) stays small beside the model's
// stored states. bench/torch_step.py times the same models in PyTorch and
// bench/compare.sh prints the ratios; bench/cores.sh times a step on one
// core and on every core (GOMAXPROCS), against PyTorch on as many threads.
package bench
