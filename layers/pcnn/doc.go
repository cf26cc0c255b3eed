// Package pcnn implements the generative sequence models of Ollivier's
// "Efficient Riemannian training of recurrent neural networks for learning
// symbolic data sequences": the reference RNN (eq. 80), the contextual
// network CNN (eqs. 7-8) and the persistent contextual network PCNN
// (eq. 11), all over a finite alphabet with softmax writing weights
// (eq. 12), on a network of N units plus the always-active unit 0, with
// the metrics that make their training invariant.
//
// Units are numbered 0..N; unit 0 has activity 1. Each unit j >= 1 has an
// incoming list Network.In[j-1] whose first entry is 0 (the bias) and
// which contains j itself (the loop the paper always includes).
// Parameters live in a params.Params set ("W", "tau", "rho" for the RNN,
// "V0"), so checkpoints and rtn's optimizers see them like any
// other model's. Log-likelihoods are in nats and are maximised; gradients
// and directions are ascent directions, as in the paper.
//
// Native kernels, for one long sequence (the paper trains on 30,000 to
// 2 million symbols):
//   - Model.Forward: activities and the log-likelihood; the output layer is
//     one GEMM over the sequence (the writing weights do not act on the
//     dynamics);
//   - Model.Backward: backpropagation through time, B (eq. 20/45) and the
//     gradients W (eq. 15) and G (eq. 23);
//   - Model.WritingDirection: QDH (eqs. 16-19) or DH;
//   - Model.TransitionDirection: RBPM and RUTSD (eqs. 21-27), their
//     quasi-diagonal reductions (eqs. 32-33), and FB.
//
// Problem wraps a model and a training sequence with the methods of the
// optim.Problem and optim.RiemannProblem (this package does
// not import optim), so optim.Riemann trains it in optim.Trainer with the
// paper's alternating steps and accept/reject rates. GraphModel is the
// same model as a gorgonia graph for short sequences, trainable by any
// registered optimizer through GraphProblem, and checked against the
// native kernels. CTW, HMM and Bzip2Bits (the bzip2 compressor, run as
// a program) are the paper's sanity baselines.
//
// A minimal training run:
//
//	net, _ := pcnn.RandomNetwork(8, 3, rng)
//	m, _ := pcnn.New(pcnn.PCNN, pcnn.Tanh, alphabetSize, net)
//	_ = m.Init(train, rng)
//	p, _ := pcnn.NewProblem(m, train, pcnn.Method{Writing: pcnn.QDH, Transition: pcnn.RBPM})
//	opt, _ := optim.NewRiemann(optim.RiemannConfig{})
//	tr, _ := optim.NewTrainer(p, opt, optim.TrainConfig{Epochs: 500})
//	_, _ = tr.Run()
package pcnn
