package umps

import (
	"math/rand/v2"

	"github.com/pkg/errors"
)

// LengthBalanced is a Problem whose minibatches hold equally many strings
// of every length present in the training set (optim.Batcher), instead of
// a shuffle of the set, where lengths come in their data frequencies.
//
// Why. Under per-length normalisation (P_n) the NLL is a sum of independent
// per-length terms, weighted by how often each length occurs; a model able
// to fit every length has the same exact minimisers under any positive
// weights, so balancing changes the emphasis of training, not its target.
// The emphasis matters for a language whose structure is visible only in
// its short strings. Tomita 5 (even numbers of 0s and of 1s) is the case.
// On every model with A(0) = A(1) (the near-identity start is one, up to
// its 1e-6 noise) P_n is uniform, and the k-th derivative of the NLL there
// involves the data only through the statistics of k positions at a time.
// Any n-1 positions of a string of length n of the language are uniformly
// distributed, so up to order n-1 the NLL of the strings of length n is
// that of uniform data, which the uniform model minimises: the gradient is
// zero (exactly on the set of all strings of the language, in expectation
// on a sample of it), and only strings of length n carry an order-n signal.
// Drawn uniformly from the language (2^(n-1) strings of each even length
// n), strings of length 2 and 4 are about 1 in 1,000 of the training set
// and the plateau at the uniform model holds (validation NLL 9.25 nats
// against 8.55); balanced, they are one seventh of every batch each, and
// training leaves the plateau within 2 or 3 epochs.
//
// Balancing throughout has a cost: the long strings, which hold most of
// the data, lose weight, and early stopping ends worse on languages learned
// from them (Tomita 4, 1K strings). rtn therefore balances only a few
// epochs before the ordinary training (runs.UMPSSpec.BalanceEpochs).
//
// Only P_n: under P_* the weights of the lengths are part of what the
// model learns, and balancing would change the target.
type LengthBalanced struct {
	*Problem
	groups [][]int // training indices by length, lengths in increasing order
}

// Balanced returns the problem with length-balanced minibatches; an error
// under P_*.
func (pr *Problem) Balanced() (*LengthBalanced, error) {
	if pr.norm != PerLength {
		return nil, errors.New("umps: length-balanced batches need per-length normalisation (P_n)")
	}
	byLen := make([][]int, pr.maxLen+1)
	for i, s := range pr.train {
		byLen[len(s)] = append(byLen[len(s)], i)
	}
	lb := &LengthBalanced{Problem: pr}
	for _, g := range byLen {
		if len(g) > 0 {
			lb.groups = append(lb.groups, g)
		}
	}
	return lb, nil
}

// Batches returns one epoch of shuffled minibatches of batchSize strings
// (the last may be smaller): each of the L lengths present contributes
// ceil(N/L) strings for N training strings, a fresh random subset of its
// strings when it has more, every string once or more (cycling through a
// random permutation) when it has fewer. An epoch thus holds about N
// strings, as an unbalanced one does.
func (lb *LengthBalanced) Batches(rng *rand.Rand, batchSize int) [][]int {
	per := (len(lb.train) + len(lb.groups) - 1) / len(lb.groups)
	idx := make([]int, 0, per*len(lb.groups))
	for _, g := range lb.groups {
		perm := rng.Perm(len(g))
		for k := 0; k < per; k++ {
			idx = append(idx, g[perm[k%len(g)]])
		}
	}
	rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	out := make([][]int, 0, (len(idx)+batchSize-1)/batchSize)
	for i := 0; i < len(idx); i += batchSize {
		out = append(out, idx[i:min(i+batchSize, len(idx))])
	}
	return out
}
