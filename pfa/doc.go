// Package pfa is the probabilistic automaton family of rtn's string
// learners: probabilistic finite automata (PFA) and hidden Markov models
// (HMM) with a final (stop) probability per state, as the PAutomaC
// competition defines them, with an exact, normalised likelihood that a
// gradient can train.
//
// A Model of n states over d symbols gives the string x = a1..aT the
// probability
//
//	P(x) = sum over paths  I(q0) * prod_t M(q_{t-1}, a_t, q_t) * F(q_T),
//
// where each state's row (F(q), M(q, ., .)) is a distribution over
// {stop} and the pairs (symbol, next state). A PFA holds each row free; an
// HMM factors it as M(q, a, q') = (1 - F(q)) E(q, a) T(q, q'). Every
// distribution is the softmax of a row of logits, so any real logits give
// a normalised model (the probabilities of all strings sum to 1 whenever
// the stop probabilities are positive, as a softmax makes them).
//
// The kernel (Counts) runs the scaled forward-backward algorithm in plain
// Go with no allocation per symbol: the log-likelihood and the expected
// counts of every parameter, from which both the gradient of the logits
// (Problem, trained by any optimizer of the optim registry with early
// stopping on a validation split) and the Baum-Welch update (EM) follow.
// The strings are split into fixed chunks whose counts are summed in
// chunk order, so the result is the same bit for bit whatever the number
// of workers.
//
// Starts: Random draws logits from a seed; Spectral clusters the
// predictive states of the training prefixes under a spectral WFA
// (package wfa) into n states and counts the transitions between them
// (see SpectralStart), a deterministic automaton that EM or the gradient
// then refines.
//
// A minimal example:
//
//	train, _ := datasets.ReadStringsFile("1.pautomac.train", datasets.PAutomaC, nil)
//	m := pfa.Random(pfa.KindPFA, 20, len(train.Alphabet), rand.New(rand.NewPCG(1, 2)))
//	m, rep, _ := pfa.Train(m, train.Seqs, pfa.TrainConfig{})
//	lp := m.LogProb(train.Seqs[0])
package pfa
