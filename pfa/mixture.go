package pfa

import (
	"math"

	"github.com/pkg/errors"
)

// logZero is the logit of a move a mixture forbids (between components):
// its softmax underflows to exactly 0 next to any allowed move's.
const logZero = -1000

// Mixture returns the automaton whose distribution is sum_c weights[c]
// P_c: a PFA whose states are the components' states side by side, each
// component's moves kept within it and its initial distribution scaled by
// its weight. The components may be PFAs or HMMs over the same alphabet;
// the weights must be positive and are normalised.
func Mixture(components []*Model, weights []float64) (*Model, error) {
	if len(components) == 0 || len(components) != len(weights) {
		return nil, errors.Errorf("pfa: mixture of %d components with %d weights", len(components), len(weights))
	}
	n, d := 0, components[0].Symbols
	total := 0.0
	for i, c := range components {
		if err := c.Validate(); err != nil {
			return nil, err
		}
		if c.Symbols != d {
			return nil, errors.Errorf("pfa: mixture component %d has %d symbols, want %d", i, c.Symbols, d)
		}
		if !(weights[i] > 0) || math.IsInf(weights[i], 0) {
			return nil, errors.Errorf("pfa: mixture weight %d is %g, want a positive number", i, weights[i])
		}
		n += c.States
		total += weights[i]
	}
	if n > MaxStates {
		return nil, errors.Errorf("pfa: a mixture of %d states, more than %d", n, MaxStates)
	}
	m := New(KindPFA, n, d)
	w := 1 + d*n
	for i := range m.Row {
		m.Row[i] = logZero
	}
	off := 0
	for i, c := range components {
		p, k := c.Probs(), c.States
		lw := math.Log(weights[i] / total)
		for q := 0; q < k; q++ {
			m.Init[off+q] = lw + logOf(p.Init[q])
			row := m.Row[(off+q)*w : (off+q+1)*w]
			row[0] = logOf(p.Stop[q])
			for a := 0; a < d; a++ {
				for j, v := range p.M[a*k*k+q*k : a*k*k+(q+1)*k] {
					row[1+a*n+off+j] = logOf(v)
				}
			}
		}
		off += k
	}
	return m, nil
}

// logOf is log v, logZero for 0.
func logOf(v float64) float64 {
	if v > 0 {
		return max(math.Log(v), logZero)
	}
	return logZero
}

// MixtureWeights fits the weights of a mixture of fixed components by EM:
// logp[c][i] is log P_c(x_i) of string i (weighted by counts[i], 1 each
// when nil) under component c. It runs iters iterations from equal
// weights and returns them; a component no string prefers gets weight 0.
func MixtureWeights(logp [][]float64, counts []float64, iters int) []float64 {
	k := len(logp)
	w := make([]float64, k)
	for c := range w {
		w[c] = 1 / float64(k)
	}
	if k == 0 {
		return w
	}
	acc := make([]float64, k)
	r := make([]float64, k)
	for it := 0; it < iters; it++ {
		clear(acc)
		total := 0.0
		for i := range logp[0] {
			mx := math.Inf(-1)
			for c := range logp {
				if w[c] > 0 {
					mx = max(mx, logp[c][i])
				}
			}
			if math.IsInf(mx, -1) {
				continue
			}
			s := 0.0
			for c := range logp {
				r[c] = 0
				if w[c] > 0 {
					r[c] = w[c] * math.Exp(logp[c][i]-mx)
				}
				s += r[c]
			}
			v := 1.0
			if counts != nil {
				v = counts[i]
			}
			for c := range r {
				acc[c] += v * r[c] / s
			}
			total += v
		}
		if total == 0 {
			break
		}
		for c := range w {
			w[c] = acc[c] / total
		}
	}
	return w
}

// Unigram returns the one-state PFA of the strings' symbol and end
// frequencies, each count plus one: a mixture component that gives every
// string a positive probability.
func Unigram(seqs [][]int, symbols int) *Model {
	m := New(KindPFA, 1, symbols)
	counts := make([]float64, 1+symbols)
	for _, x := range seqs {
		counts[0]++
		for _, a := range x {
			counts[1+a]++
		}
	}
	total := 0.0
	for _, c := range counts {
		total += c + 1
	}
	for i, c := range counts {
		m.Row[i] = math.Log((c + 1) / total)
	}
	return m
}
