package pfa

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/pkg/errors"
)

// CheckStrings returns an error naming the first string with a symbol
// outside [0, symbols).
func CheckStrings(seqs [][]int, symbols int) error {
	for i, x := range seqs {
		for t, a := range x {
			if a < 0 || a >= symbols {
				return errors.Errorf("pfa: string %d position %d: symbol %d out of range [0, %d)", i, t, a, symbols)
			}
		}
	}
	return nil
}

// LogProbs returns log P(x) (nats) of each string, -Inf for an impossible
// one, computed with jobs workers (the same values for any number).
// Symbols must be in range (see CheckStrings).
func (m *Model) LogProbs(seqs [][]int, jobs int) []float64 {
	p := m.Probs()
	out := make([]float64, len(seqs))
	k := min(chunks, max(len(seqs), 1))
	done := make(chan struct{}, k)
	sem := make(chan struct{}, max(jobs, 1))
	for c := 0; c < k; c++ {
		sem <- struct{}{}
		go func(c int) {
			defer func() { <-sem; done <- struct{}{} }()
			var wk work
			for i := c * len(seqs) / k; i < (c+1)*len(seqs)/k; i++ {
				out[i] = p.logProb(seqs[i], 1, &wk, false)
			}
		}(c)
	}
	for c := 0; c < k; c++ {
		<-done
	}
	return out
}

// LogProb returns log P(x) in nats.
func (m *Model) LogProb(x []int) float64 {
	var wk work
	return m.Probs().logProb(x, 1, &wk, false)
}

// NextSymbol returns the distribution of what follows the prefix: entry a
// < d is the probability of symbol a next, entry d that of the end of the
// string. It sums to 1. An impossible prefix gives NaNs.
func (p *Probs) NextSymbol(prefix []int) []float64 {
	n, d := p.N, p.D
	state := make([]float64, n)
	next := make([]float64, n)
	copy(state, p.Init)
	for _, a := range prefix {
		clear(next)
		for q, v := range state {
			for j, w := range p.M[a*n*n+q*n : a*n*n+(q+1)*n] {
				next[j] += v * w
			}
		}
		state, next = next, state
		s := 0.0
		for _, v := range state {
			s += v
		}
		for j := range state {
			state[j] /= s
		}
	}
	out := make([]float64, d+1)
	for q, v := range state {
		out[d] += v * p.Stop[q]
		for a := 0; a < d; a++ {
			s := 0.0
			for _, w := range p.M[a*n*n+q*n : a*n*n+(q+1)*n] {
				s += w
			}
			out[a] += v * s
		}
	}
	return out
}

// Sample draws a string from the model, cut at maxLen symbols (as
// spectral.WFA.Sample does). It fails only when maxLen is negative.
func (p *Probs) Sample(rng *rand.Rand, maxLen int) ([]int, error) {
	if maxLen < 0 {
		return nil, errors.Errorf("pfa: sampling with a longest length of %d", maxLen)
	}
	n := p.N
	q := draw(rng, p.Init)
	var x []int
	for {
		u := rng.Float64()
		if u < p.Stop[q] {
			return x, nil
		}
		if len(x) >= maxLen {
			return x, nil
		}
		u -= p.Stop[q]
		a, j := p.D-1, n-1
	find:
		for b := 0; b < p.D; b++ {
			for k, w := range p.M[b*n*n+q*n : b*n*n+(q+1)*n] {
				if u < w {
					a, j = b, k
					break find
				}
				u -= w
			}
		}
		x = append(x, a)
		q = j
	}
}

func draw(rng *rand.Rand, p []float64) int {
	u := rng.Float64()
	for i, v := range p {
		if u < v {
			return i
		}
		u -= v
	}
	return len(p) - 1
}

// Compress returns the distinct strings of seqs in order of first
// appearance and how often each appears.
func Compress(seqs [][]int) (uniq [][]int, weights []float64) {
	uniq, weights, _ = compressIndex(seqs)
	return uniq, weights
}

// compressIndex is Compress that also returns the distinct string of each
// string of seqs.
func compressIndex(seqs [][]int) (uniq [][]int, weights []float64, of []int) {
	of = make([]int, len(seqs))
	index := make(map[string]int)
	var b strings.Builder
	for k, x := range seqs {
		b.Reset()
		for _, a := range x {
			b.WriteString(strconv.Itoa(a))
			b.WriteByte(',')
		}
		key := b.String()
		if i, ok := index[key]; ok {
			weights[i]++
			of[k] = i
			continue
		}
		index[key] = len(uniq)
		of[k] = len(uniq)
		uniq = append(uniq, x)
		weights = append(weights, 1)
	}
	return uniq, weights, of
}

// Random returns a model of the kind with logits drawn from a normal
// distribution of standard deviation RandomScale, so that each start is a
// different mildly non-uniform automaton.
func Random(kind Kind, states, symbols int, rng *rand.Rand) *Model {
	m := New(kind, states, symbols)
	for _, b := range m.blocks() {
		for i := range *b.data {
			(*b.data)[i] = RandomScale * rng.NormFloat64()
		}
	}
	return m
}

// RandomScale is the standard deviation of Random's logits.
const RandomScale = 1.0

// NatsPerSymbol is the log-loss of st: -LogLik / Symbols, +Inf when a
// string is impossible.
func (st *Stats) NatsPerSymbol() float64 {
	if st.Impossible > 0 {
		return math.Inf(1)
	}
	return -st.LogLik / st.Symbols
}
