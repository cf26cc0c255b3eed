package umps

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
)

// This file holds Algorithm 1 of the paper (regex-conditioned sampling for
// unambiguous regexes) and its special cases: fixed length, fill in the
// blank, and the full conditional distribution of one missing symbol.

// logTr returns log Tr(a b), -Inf when it is not positive.
func logTr(a, b Mat) float64 {
	if a.Zero || b.Zero {
		return math.Inf(-1)
	}
	D := int(math.Sqrt(float64(len(a.Data))))
	s := 0.0
	for i := 0; i < D; i++ {
		for j := 0; j < D; j++ {
			s += a.Data[i*D+j] * b.Data[j*D+i]
		}
	}
	if !(s > 0) {
		return math.Inf(-1)
	}
	return math.Log(s) + float64(a.Exp+b.Exp)*ln2
}

// choose draws an index with probability proportional to exp(logw[i]).
func choose(logw []float64, rng *rand.Rand) (int, error) {
	m := math.Inf(-1)
	for _, w := range logw {
		m = math.Max(m, w)
	}
	if math.IsInf(m, -1) || math.IsNaN(m) {
		return 0, errors.New("umps: the model gives no mass to any continuation")
	}
	total := 0.0
	for _, w := range logw {
		total += math.Exp(w - m)
	}
	u := rng.Float64() * total
	last := 0
	for i, w := range logw {
		if math.IsInf(w, -1) {
			continue
		}
		last = i
		u -= math.Exp(w - m)
		if u < 0 {
			return i, nil
		}
	}
	return last, nil
}

// memoKey identifies a right environment: the operator of a node applied to
// a matrix that is itself cached, so the data pointer names it.
type memoKey struct {
	n *node
	q *float64
}

// right is E^r_n(q), memoised. Every right environment Algorithm 1 needs
// depends only on the regex and Q_r, never on the symbols drawn so far, so
// the cache turns the naive O(n^2) operator applications of Sigma^n into
// O(n) over any number of samples (the caching of Section 5).
func (t *Transfer) right(n *node, q Mat) (Mat, error) {
	if t.memo == nil {
		t.memo = map[memoKey]Mat{}
	}
	k := memoKey{n, &q.Data[0]}
	if v, ok := t.memo[k]; ok {
		return v, nil
	}
	v, err := t.apply(n, q, true)
	if err != nil {
		return Mat{}, err
	}
	t.memo[k] = v
	return v, nil
}

// symbol returns a shared node for the single symbol c, so that
// A(c) Q A(c)^T is memoised once per environment.
func (t *Transfer) symbol(c int) *node {
	if t.syms == nil {
		t.syms = make([]*node, t.m.Symbols)
		for i := range t.syms {
			t.syms[i] = &node{kind: kindSym, syms: []int{i}}
		}
	}
	return t.syms[c]
}

// Sample draws count strings from P_*(s | s in R) (Theorem 1) by
// Algorithm 1, SAMPLE(R, alpha alpha^T, omega omega^T). r must be
// unambiguous: on an ambiguous regex Algorithm 1 weights each string by
// its number of matches, so it is refused; SampleExact handles any regex.
// Closures need their transfer operators to converge.
func (t *Transfer) Sample(r *Regex, count int, rng *rand.Rand) ([][]int, error) {
	if err := t.checkRegex(r); err != nil {
		return nil, err
	}
	if r.Ambiguous() {
		return nil, errors.Errorf("umps: regex %q is ambiguous (some string matches it twice), so Algorithm 1 would be biased; use the exact (DFA) sampler", r.pattern)
	}
	return t.sampleNode(r.root, count, rng)
}

func (t *Transfer) sampleNode(n *node, count int, rng *rand.Rand) ([][]int, error) {
	if count < 0 {
		return nil, errors.Errorf("umps: %d samples requested", count)
	}
	if rng == nil {
		return nil, errors.New("umps: nil random source")
	}
	t.memo = nil // environments of earlier calls are keyed by matrices now gone
	ql, qr := t.Boundaries()
	if q, err := t.right(n, qr); err != nil {
		return nil, err
	} else if math.IsInf(logTr(ql, q), -1) {
		return nil, errors.New("umps: the model gives the regex no mass")
	}
	out := make([][]int, count)
	for i := range out {
		s := []int{}
		if _, err := t.sample(n, ql, qr, rng, &s); err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// sample is Algorithm 1: it appends to out a string drawn from n given the
// left and right environments and returns E^l_s(ql), the left environment
// after the drawn string.
func (t *Transfer) sample(n *node, ql, qr Mat, rng *rand.Rand, out *[]int) (Mat, error) {
	switch n.kind {
	case kindEps:
		return ql, nil
	case kindSym:
		i, err := t.draw(len(n.syms), func(i int) *node { return t.symbol(n.syms[i]) }, ql, qr, rng)
		if err != nil {
			return Mat{}, err
		}
		*out = append(*out, n.syms[i])
		return t.applySyms(n.syms[i:i+1], ql, false), nil
	case kindCat:
		env := make([]Mat, len(n.subs))
		env[len(n.subs)-1] = qr
		for i := len(n.subs) - 2; i >= 0; i-- {
			var err error
			if env[i], err = t.right(n.subs[i+1], env[i+1]); err != nil {
				return Mat{}, err
			}
		}
		for i, s := range n.subs {
			var err error
			if ql, err = t.sample(s, ql, env[i], rng, out); err != nil {
				return Mat{}, err
			}
		}
		return ql, nil
	case kindAlt:
		i, err := t.draw(len(n.subs), func(i int) *node { return n.subs[i] }, ql, qr, rng)
		if err != nil {
			return Mat{}, err
		}
		return t.sample(n.subs[i], ql, qr, rng, out)
	}
	// S*: halt with probability Tr(Q_l Q_r) / Z_{S*}(Q_l, Q_r), else draw
	// S followed by S* again; the right environment of S in S S* is
	// E^r_{S*}(Q_r), the same at every round.
	x, err := t.right(n, qr)
	if err != nil {
		return Mat{}, err
	}
	for {
		halt := logTr(ql, qr) - logTr(ql, x)
		if rng.Float64() < math.Exp(halt) {
			return ql, nil
		}
		if ql, err = t.sample(n.subs[0], ql, x, rng, out); err != nil {
			return Mat{}, err
		}
	}
}

// draw picks one of k alternatives, alternative i (the node alt(i)) with
// probability proportional to Tr(ql E^r_alt(i)(qr)).
func (t *Transfer) draw(k int, alt func(int) *node, ql, qr Mat, rng *rand.Rand) (int, error) {
	w := make([]float64, k)
	for i := range w {
		q, err := t.right(alt(i), qr)
		if err != nil {
			return 0, err
		}
		w[i] = logTr(ql, q)
	}
	return choose(w, rng)
}

// sigmaN is the regex Sigma^n as a concatenation of n single-symbol nodes
// sharing one node, so the memo holds one environment per length.
func (t *Transfer) sigmaN(n int) *node {
	sigma := allSymbols(t.m.Symbols)
	cat := &node{kind: kindCat}
	for i := 0; i < n; i++ {
		cat.subs = append(cat.subs, sigma)
	}
	return simplifyCat(cat)
}

// SampleLength draws count strings of length n from P_n (R = Sigma^n):
// the right environments are computed once, right to left, then every
// string is drawn left to right with p(c) proportional to
// Tr(L A(c) R_k A(c)^T).
func (t *Transfer) SampleLength(n, count int, rng *rand.Rand) ([][]int, error) {
	if n < 0 {
		return nil, errors.Errorf("umps: length %d, want >= 0", n)
	}
	return t.sampleNode(t.sigmaN(n), count, rng)
}

// literal returns the concatenation of the symbols of s.
func (t *Transfer) literal(s []int, what string) (*node, error) {
	if err := t.m.checkSeq(s); err != nil {
		return nil, errors.Wrap(err, what)
	}
	cat := &node{kind: kindCat}
	for _, c := range s {
		cat.subs = append(cat.subs, &node{kind: kindSym, syms: []int{c}})
	}
	return simplifyCat(cat), nil
}

// literals returns the concatenations of the symbols of prefix and suffix.
func (t *Transfer) literals(prefix, suffix []int) (p, s *node, err error) {
	if p, err = t.literal(prefix, "prefix"); err != nil {
		return nil, nil, err
	}
	if s, err = t.literal(suffix, "suffix"); err != nil {
		return nil, nil, err
	}
	return p, s, nil
}

// FillIn draws count completions of prefix Sigma^k suffix (fill in the
// blank with k missing symbols) and returns the whole strings.
func (t *Transfer) FillIn(prefix, suffix []int, k, count int, rng *rand.Rand) ([][]int, error) {
	if k < 0 {
		return nil, errors.Errorf("umps: %d missing symbols, want >= 0", k)
	}
	p, s, err := t.literals(prefix, suffix)
	if err != nil {
		return nil, err
	}
	return t.sampleNode(&node{kind: kindCat, subs: []*node{p, t.sigmaN(k), s}}, count, rng)
}

// Complete returns the conditional distribution of the missing symbol c in
// prefix c suffix (R = prefix Sigma suffix): p(c) proportional to
// Tr(L A(c) R A(c)^T) with L = E^l_prefix(alpha alpha^T) and
// R = E^r_suffix(omega omega^T). The result has one probability per
// symbol and sums to 1.
func (t *Transfer) Complete(prefix, suffix []int) ([]float64, error) {
	p, s, err := t.literals(prefix, suffix)
	if err != nil {
		return nil, err
	}
	ql, qr := t.Boundaries()
	if ql, err = t.apply(p, ql, false); err != nil {
		return nil, err
	}
	if qr, err = t.apply(s, qr, true); err != nil {
		return nil, err
	}
	w := make([]float64, t.m.Symbols)
	m := math.Inf(-1)
	for c := range w {
		w[c] = logTr(ql, t.applySyms([]int{c}, qr, true))
		m = math.Max(m, w[c])
	}
	if math.IsInf(m, -1) {
		return nil, errors.New("umps: the model gives no mass to any completion")
	}
	total := 0.0
	for c := range w {
		w[c] = math.Exp(w[c] - m)
		total += w[c]
	}
	for c := range w {
		w[c] /= total
	}
	return w, nil
}
