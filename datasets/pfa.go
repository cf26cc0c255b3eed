package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
)

// PDFA is a probabilistic deterministic finite automaton over V symbols
// with Q states. From state q it emits symbol v with probability Emit[q][v]
// and moves to state Next[q][v]. Because the transition is deterministic,
// the state after any prefix is known, so the probability of a sequence,
// and the true model's loss, are exact. There is no stop probability:
// lengths are chosen outside the automaton, and probabilities are of
// symbols given the length.
type PDFA struct {
	// Start is the state before the first symbol.
	Start int
	// Emit[q] is the emission distribution of state q: V probabilities
	// that sum to 1.
	Emit [][]float64
	// Next[q][v] is the state reached from q by emitting v.
	Next [][]int
	// Alphabet optionally names the V symbols (nil: no names).
	Alphabet []string
}

// emitTol is how far an emission row may sum from 1 (rounding of a
// normalised row of float64s is far below it).
const emitTol = 1e-9

// NumStates is Q.
func (a *PDFA) NumStates() int { return len(a.Emit) }

// NumSymbols is V.
func (a *PDFA) NumSymbols() int {
	if len(a.Emit) == 0 {
		return 0
	}
	return len(a.Emit[0])
}

// Validate checks shapes (Q >= 1, V >= 1, Emit and Next both Q x V, an
// alphabet of V distinct names or none), that Start and every transition
// are states, and that every emission row is a probability distribution
// (entries >= 0, sum within 1e-9 of 1).
func (a *PDFA) Validate() error {
	q, v := a.NumStates(), a.NumSymbols()
	if q < 1 || v < 1 {
		return errors.Errorf("datasets: PDFA with %d states and %d symbols", q, v)
	}
	if len(a.Next) != q {
		return errors.Errorf("datasets: PDFA has %d emission rows but %d transition rows", q, len(a.Next))
	}
	if a.Start < 0 || a.Start >= q {
		return errors.Errorf("datasets: PDFA start state %d out of range [0, %d)", a.Start, q)
	}
	if a.Alphabet != nil {
		if len(a.Alphabet) != v {
			return errors.Errorf("datasets: PDFA has %d symbols but an alphabet of %d", v, len(a.Alphabet))
		}
		if err := checkAlphabet(a.Alphabet); err != nil {
			return err
		}
	}
	for s := range q {
		if len(a.Emit[s]) != v || len(a.Next[s]) != v {
			return errors.Errorf("datasets: PDFA state %d has %d emissions and %d transitions, want %d", s, len(a.Emit[s]), len(a.Next[s]), v)
		}
		sum := 0.0
		for c, p := range a.Emit[s] {
			if !(p >= 0 && p <= 1) {
				return errors.Errorf("datasets: PDFA state %d symbol %d: probability %g", s, c, p)
			}
			if n := a.Next[s][c]; n < 0 || n >= q {
				return errors.Errorf("datasets: PDFA state %d symbol %d: next state %d out of range [0, %d)", s, c, n, q)
			}
			sum += p
		}
		if math.Abs(sum-1) > emitTol {
			return errors.Errorf("datasets: PDFA state %d: emission probabilities sum to %.12g", s, sum)
		}
	}
	return nil
}

// RandomPDFA draws an automaton with the given numbers of states and
// symbols, starting in state 0. Each emission row is a Dirichlet draw with
// every parameter equal to concentration (below 1 makes rows peaky),
// mixed with the uniform distribution: Emit[q] = (1-smoothing)*dir +
// smoothing/V, so every probability is at least smoothing/V. Transitions
// are uniform over states, except that a random cycle through all states
// is forced (one symbol per state), so with smoothing > 0 every state is
// reachable from every other and the stationary distribution is unique.
func RandomPDFA(states, symbols int, concentration, smoothing float64, rng *rand.Rand) (*PDFA, error) {
	if states < 1 || symbols < 1 {
		return nil, errors.Errorf("datasets: RandomPDFA with %d states and %d symbols, want both >= 1", states, symbols)
	}
	if !(concentration > 0) || math.IsInf(concentration, 0) {
		return nil, errors.Errorf("datasets: RandomPDFA concentration %g, want > 0", concentration)
	}
	if !(smoothing >= 0 && smoothing <= 1) {
		return nil, errors.Errorf("datasets: RandomPDFA smoothing %g, want in [0, 1]", smoothing)
	}
	a := &PDFA{Emit: make([][]float64, states), Next: make([][]int, states), Alphabet: symbolNames(symbols)}
	for q := range states {
		a.Emit[q] = dirichlet(rng, concentration, symbols)
		for v := range a.Emit[q] {
			a.Emit[q][v] = (1-smoothing)*a.Emit[q][v] + smoothing/float64(symbols)
		}
		a.Next[q] = make([]int, symbols)
		for v := range a.Next[q] {
			a.Next[q][v] = rng.IntN(states)
		}
	}
	order := rng.Perm(states)
	for i, q := range order {
		a.Next[q][rng.IntN(symbols)] = order[(i+1)%states]
	}
	return a, nil
}

// symbolNames returns "a", "b", ... for up to 26 symbols, else "s0", "s1", ....
func symbolNames(v int) []string {
	names := make([]string, v)
	for i := range names {
		if v <= 26 {
			names[i] = string(rune('a' + i))
		} else {
			names[i] = fmt.Sprintf("s%d", i)
		}
	}
	return names
}

// Sample draws a sequence of n symbols from the start state.
func (a *PDFA) Sample(rng *rand.Rand, n int) []int {
	seq := make([]int, n)
	q := a.Start
	for t := range seq {
		v := categorical(rng, a.Emit[q])
		seq[t] = v
		q = a.Next[q][v]
	}
	return seq
}

// Run returns the states visited while reading seq from the start state:
// states[t] is the state before symbol t, states[len(seq)] the final one.
// It fails on a symbol id out of range.
func (a *PDFA) Run(seq []int) ([]int, error) {
	states := make([]int, len(seq)+1)
	q := a.Start
	v := a.NumSymbols()
	for t, c := range seq {
		if c < 0 || c >= v {
			return nil, errors.Errorf("datasets: PDFA: symbol id %d at step %d out of range [0, %d)", c, t, v)
		}
		states[t] = q
		q = a.Next[q][c]
	}
	states[len(seq)] = q
	return states, nil
}

// LogProb is log p(seq | its length) in nats: the sum over t of
// log Emit[q_t][seq[t]] along the run from the start state. It is -Inf
// for a sequence of probability 0 and fails on a symbol out of range.
func (a *PDFA) LogProb(seq []int) (float64, error) {
	states, err := a.Run(seq)
	if err != nil {
		return 0, err
	}
	lp := 0.0
	for t, c := range seq {
		lp += math.Log(a.Emit[states[t]][c])
	}
	return lp, nil
}

// NLL is the automaton's mean negative log-likelihood per symbol over
// seqs, in nats: -(sum of LogProb) / (total number of symbols). It is the
// loss of the true model under the BOS convention of SymbolExamples, where
// every symbol is a target. It fails if seqs holds no symbol.
func (a *PDFA) NLL(seqs [][]int) (float64, error) {
	sum, n := 0.0, 0
	for i, seq := range seqs {
		lp, err := a.LogProb(seq)
		if err != nil {
			return 0, errors.Wrapf(err, "datasets: sequence %d", i)
		}
		sum -= lp
		n += len(seq)
	}
	if n == 0 {
		return 0, errors.Errorf("datasets: PDFA NLL of no symbols")
	}
	return sum / float64(n), nil
}

// Stationary returns the stationary distribution pi of the state chain
// P[q][r] = sum of Emit[q][v] over the v with Next[q][v] = r, restricted
// to the states reachable from Start (the others get 0). It solves
// pi P = pi, sum(pi) = 1 by Gaussian elimination with partial pivoting and
// checks that max_r |(pi P)_r - pi_r| <= 1e-12. It fails when the
// solution is not unique, i.e. when the reachable states hold more than
// one closed class.
func (a *PDFA) Stationary() ([]float64, error) {
	q := a.NumStates()
	reach := a.reachable()
	n := len(reach)
	pos := make([]int, q)
	for i := range pos {
		pos[i] = -1
	}
	for i, s := range reach {
		pos[s] = i
	}
	// Row i of m is equation i of (P^T - I) pi = 0, except the last, which
	// is sum(pi) = 1 (one balance equation is redundant).
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n+1)
	}
	for j, s := range reach {
		for v, p := range a.Emit[s] {
			// A zero-probability edge may lead out of the reachable set.
			if i := pos[a.Next[s][v]]; p > 0 && i < n-1 {
				m[i][j] += p
			}
		}
		if j < n-1 {
			m[j][j]--
		}
		m[n-1][j] = 1
	}
	m[n-1][n] = 1
	x, err := solve(m)
	if err != nil {
		return nil, errors.Errorf("datasets: PDFA stationary distribution is not unique (more than one closed class of states)")
	}
	pi := make([]float64, q)
	for i, s := range reach {
		pi[s] = x[i]
	}
	next := make([]float64, q)
	for s, ps := range pi {
		for v, p := range a.Emit[s] {
			next[a.Next[s][v]] += ps * p
		}
	}
	for s := range pi {
		if d := math.Abs(next[s] - pi[s]); d > stationaryTol {
			return nil, errors.Errorf("datasets: PDFA stationary distribution residual %.3g at state %d exceeds %g", d, s, stationaryTol)
		}
	}
	return pi, nil
}

// stationaryTol bounds the residual |pi P - pi| accepted by Stationary.
const stationaryTol = 1e-12

// reachable lists the states reachable from Start through transitions of
// positive probability, in increasing order.
func (a *PDFA) reachable() []int {
	seen := make([]bool, a.NumStates())
	stack := []int{a.Start}
	seen[a.Start] = true
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for v, p := range a.Emit[s] {
			if r := a.Next[s][v]; p > 0 && !seen[r] {
				seen[r] = true
				stack = append(stack, r)
			}
		}
	}
	var out []int
	for s, ok := range seen {
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// EntropyRate is the entropy rate of the symbol process in nats per
// symbol: sum over states of pi_q * H(Emit[q]), with pi from Stationary.
// Because the state is a function of the past symbols, this is
// lim H(X_t | X_<t), the long-run per-symbol NLL of the true model from
// any start (by ergodicity); Task.OptimalLoss of a finite-length task
// differs from it by the transient after the start state.
func (a *PDFA) EntropyRate() (float64, error) {
	pi, err := a.Stationary()
	if err != nil {
		return 0, err
	}
	h := 0.0
	for s, ps := range pi {
		h += ps * entropy(a.Emit[s])
	}
	return h, nil
}

// entropy is the Shannon entropy of p in nats.
func entropy(p []float64) float64 {
	h := 0.0
	for _, x := range p {
		if x > 0 {
			h -= x * math.Log(x)
		}
	}
	return h
}
