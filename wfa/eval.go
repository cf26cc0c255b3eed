package wfa

import (
	"math"
	"slices"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/spectral"
)

// EvalSet is a sample of strings reduced to its distinct strings with
// their empirical frequencies, the form the validation score needs.
// NewEvalSet also prepares the strings for reading each distinct prefix
// once; a set built otherwise is scored the same, more slowly. Seqs must
// not change after NewEvalSet.
type EvalSet struct {
	// Seqs are the distinct strings and Weights their frequencies (sum 1).
	Seqs    [][]int
	Weights []float64
	// Count is the number of strings in the sample.
	Count int
	// words prepares Seqs for spectral.WFA.Values.
	words *spectral.Words
}

// NewEvalSet groups seqs by string.
func NewEvalSet(seqs [][]int) *EvalSet {
	uniq, copies := datasets.Distinct(seqs)
	e := &EvalSet{Count: len(seqs), Weights: copies}
	for i, s := range uniq {
		e.Seqs = append(e.Seqs, slices.Clone(s))
		e.Weights[i] /= float64(len(seqs))
	}
	e.words = spectral.NewWords(e.Seqs)
	return e
}

// Perplexity is the validation analogue of the PAutomaC score: with q(x)
// = max(f(x), Floor) normalised over the distinct strings of the set and
// p(x) their empirical frequencies, 2^(-sum_x p(x) log2 q(x)) (the score's
// own definition, with the validation frequencies standing for the
// solution). floored is the share of strings (by frequency) that the
// automaton gives a value <= 0 (or NaN), the strings it rules out: tiny
// positive values are legitimate for long strings and are not counted,
// although the floor applies to them as well.
func (e *EvalSet) Perplexity(w spectral.WFA) (perp, floored float64) {
	perp, floored, _, _ = e.scores(w)
	return perp, floored
}

// ZLL is -sum_x p(x) log(max(f(x), Floor) / Z) over the distinct strings
// with their frequencies, Z = w.Mass(); +Inf when Z is not positive and
// finite.
func (e *EvalSet) ZLL(w spectral.WFA) float64 {
	_, _, zll, _ := e.scores(w)
	return zll
}

// LOO is an analogue of the PAutomaC score on the set, in nats per
// string: with q(x) = max(f(x), Floor) normalised over the distinct
// strings and c(x) the count of x in the sample,
//
//	-sum_x (c(x) - 1) log(q(x) / sum_y q(y)) / sum_x (c(x) - 1).
//
// The test set of a PAutomaC problem is a set of distinct strings
// weighted by their true probabilities; here the distinct strings of the
// sample are the set and c(x) - 1 the weight: the occurrence that brought
// a string into the set does not weight it (leave one out), so the
// strings seen once, which make up most of the set and whose frequency
// 1/n is far above their typical probability, weigh nothing, as the rare
// test strings weigh almost nothing in the score. When no string repeats
// it is ZLL.
func (e *EvalSet) LOO(w spectral.WFA) float64 {
	_, _, _, loo := e.scores(w)
	return loo
}

// compareZLL returns ZLL of a and of b, and the gain of b over a (ZLL of
// a minus ZLL of b) in standard errors of the mean of the per-string
// gains (gainZ), NaN when either mass is not positive and finite; each
// automaton's values are computed once.
func (e *EvalSet) compareZLL(a, b spectral.WFA) (zllA, zllB, z float64) {
	za, erra := a.Mass()
	zb, errb := b.Mass()
	fa, fb := e.values(a), e.values(b)
	_, _, zllA, _ = e.scoreValues(fa, za, erra == nil)
	_, _, zllB, _ = e.scoreValues(fb, zb, errb == nil)
	if math.IsInf(zllA, 1) || math.IsInf(zllB, 1) {
		return zllA, zllB, math.NaN()
	}
	d := make([]float64, len(fa))
	for x := range fa {
		d[x] = (logFloored(fb[x]) - math.Log(zb)) - (logFloored(fa[x]) - math.Log(za))
	}
	return zllA, zllB, gainZ(d, e.Weights, e.Count)
}

// logFloored is the log of v as ZLL reads it: max(v, Floor) (Floor for a
// NaN v as well), at most math.MaxFloat64.
func logFloored(v float64) float64 {
	if !(v > Floor) {
		v = Floor
	}
	return math.Log(min(v, math.MaxFloat64))
}

// scores computes Perplexity, ZLL and LOO in one pass over the strings.
func (e *EvalSet) scores(w spectral.WFA) (perp, floored, zll, loo float64) {
	z, err := w.Mass()
	return e.scoreValues(e.values(w), z, err == nil)
}

// values returns the automaton's raw values f(x) on the distinct strings.
func (e *EvalSet) values(w spectral.WFA) []float64 {
	ws := e.words
	if ws == nil {
		ws = spectral.NewWords(e.Seqs)
	}
	return w.Values(ws)
}

// scoreValues is scores from the raw values f(x) of the distinct strings
// and the mass z (ok false when it could not be computed).
func (e *EvalSet) scoreValues(f []float64, z float64, ok bool) (perp, floored, zll, loo float64) {
	normal := ok && z > 0 && !math.IsInf(z, 0)
	q := make([]float64, len(e.Seqs))
	sum := 0.0
	for i, v := range f {
		if !(v > 0) {
			floored += e.Weights[i]
		}
		if !(v > Floor) {
			v = Floor
		} else if v > math.MaxFloat64 {
			v = math.MaxFloat64
		}
		q[i] = v
		sum += v
		zll -= e.Weights[i] * math.Log(v/z)
	}
	if !normal {
		zll = math.Inf(1)
	}
	h, rep := 0.0, 0.0
	for i, v := range q {
		h -= e.Weights[i] * math.Log2(v/sum)
		c := math.Round(e.Weights[i]*float64(e.Count)) - 1
		loo -= c * math.Log(v/sum)
		rep += c
	}
	if rep == 0 {
		loo = zll
	} else {
		loo /= rep
	}
	return math.Exp2(h), floored, zll, loo
}
