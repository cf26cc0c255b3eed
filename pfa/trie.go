package pfa

import (
	"math"

	"github.com/rtnlab/rtn/internal/vec"
)

// Trie is a weighted set of strings stored as its prefix tree, nodes in
// depth-first pre-order (node 0 is the empty prefix). Strings that share
// a prefix share its forward vector and, summed, its backward vector, so
// a pass over the trie costs one matrix-vector product per distinct
// prefix instead of one per symbol of every string.
type Trie struct {
	// Parent, Symbol and Depth describe each node (Parent -1, Symbol -1
	// and Depth 0 for the root); Count is the weight of the strings
	// through it and Stops of the strings ending there.
	Parent, Symbol, Depth []int
	Count, Stops          []float64
	// Weight is the total weight and Symbols sum_x w(x) (|x| + 1).
	Weight, Symbols float64
}

// NewTrie builds the trie of seqs weighted by weights (1 each when nil).
func NewTrie(seqs [][]int, weights []float64) *Trie {
	w := weights
	if w == nil {
		w = make([]float64, len(seqs))
		for i := range w {
			w[i] = 1
		}
	}
	t := newTrie(seqs, w)
	children := make([][]int, len(t.parent))
	for v := 1; v < len(t.parent); v++ {
		children[t.parent[v]] = append(children[t.parent[v]], v)
	}
	out := &Trie{}
	index := make([]int, len(t.parent))
	stack := []int{0}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		index[u] = len(out.Parent)
		parent, depth := -1, 0
		if u != 0 {
			parent = index[t.parent[u]]
			depth = out.Depth[parent] + 1
		}
		out.Parent = append(out.Parent, parent)
		out.Symbol = append(out.Symbol, t.symbol[u])
		out.Depth = append(out.Depth, depth)
		out.Count = append(out.Count, t.count[u])
		out.Stops = append(out.Stops, t.stops[u])
		out.Symbols += t.stops[u] * float64(depth+1)
		for i := len(children[u]) - 1; i >= 0; i-- {
			stack = append(stack, children[u][i])
		}
	}
	out.Weight = t.count[0]
	return out
}

// trieWork is one chunk's buffers: per depth level, the scaled forward
// vector, its scale, the backward sum and whether the level is dead (its
// prefix impossible).
type trieWork struct {
	alpha, beta [][]float64
	// scale is the level's normaliser and logc the sum of the logs of
	// the normalisers from the root.
	scale, logc []float64
	node        []int
	dead        []bool
	// tmp holds moveBack's product M_a b.
	tmp   []float64
	stats Stats
}

func (w *trieWork) level(k, n int) {
	for len(w.alpha) <= k {
		w.alpha = append(w.alpha, make([]float64, n))
		w.beta = append(w.beta, make([]float64, n))
		w.scale, w.logc = append(w.scale, 0), append(w.logc, 0)
		w.node = append(w.node, 0)
		w.dead = append(w.dead, false)
	}
	if len(w.alpha[k]) != n {
		w.alpha[k], w.beta[k] = make([]float64, n), make([]float64, n)
	}
}

// forward sets level k to node u, a child of the node at level k-1.
func (p *Probs) trieForward(t *Trie, u, k int, w *trieWork) {
	n := p.N
	w.level(k, n)
	w.node[k] = u
	clear(w.beta[k])
	next := w.alpha[k]
	if k == 0 {
		copy(next, p.Init)
		w.scale[0], w.logc[0], w.dead[0] = 1, 0, false
		return
	}
	if w.dead[k-1] {
		w.dead[k] = true
		return
	}
	moveForward(next, w.alpha[k-1], p.M[t.Symbol[u]*n*n:])
	c := 0.0
	for _, v := range next {
		c += v
	}
	if !(c > 0) {
		w.dead[k] = true
		return
	}
	vec.Scale(next, next, 1/c)
	w.scale[k], w.logc[k], w.dead[k] = c, w.logc[k-1]+math.Log(c), false
}

// trieStop adds the stops at the node of level k (weight s) to the
// log-likelihood and, with counts, to the stop counts and the level's
// backward sum.
func (p *Probs) trieStop(k int, s float64, w *trieWork, counts bool) {
	if s == 0 {
		return
	}
	st := &w.stats
	if w.dead[k] {
		st.Impossible += s
		return
	}
	a := w.alpha[k]
	z := 0.0
	for q, v := range a {
		z += v * p.Stop[q]
	}
	if !(z > 0) {
		st.Impossible += s
		return
	}
	st.LogLik += s * (w.logc[k] + math.Log(z))
	if !counts {
		return
	}
	b := w.beta[k]
	for q, f := range p.Stop {
		g := s * f / z
		b[q] += g
		st.Stop[q] += a[q] * g
	}
}

// trieClose finishes level k (its subtree is done): its backward sum,
// divided by its scale, gives the counts of the move into it and is
// carried into level k-1 through the move's matrix.
func (p *Probs) trieClose(t *Trie, k int, w *trieWork) {
	if w.dead[k] {
		return
	}
	n := p.N
	b := w.beta[k]
	inv := 1 / w.scale[k]
	if k == 0 {
		for q, v := range p.Init {
			w.stats.Init[q] += v * b[q]
		}
		return
	}
	a := t.Symbol[w.node[k]]
	if cap(w.tmp) < n {
		w.tmp = make([]float64, n)
	}
	moveBack(w.beta[k-1], w.alpha[k-1], b, p.M[a*n*n:], w.stats.M[a*n*n:], w.tmp[:n], 1, inv)
}

// trieChunk computes the statistics of the trie's nodes lo..hi-1 (their
// stops; the moves into them) into w.stats: the ancestors of lo are set
// up first, without their stops, and every open level is closed at the
// end, so that the chunks' counts add up to the whole trie's.
func (p *Probs) trieChunk(t *Trie, lo, hi int, w *trieWork, counts bool) {
	w.stats.reset(p.N, p.D, counts)
	var path []int
	for u := t.Parent[lo]; u >= 0; u = t.Parent[u] {
		path = append(path, u)
	}
	top := -1
	for i := len(path) - 1; i >= 0; i-- {
		top++
		p.trieForward(t, path[i], top, w)
	}
	for u := lo; u < hi; u++ {
		k := t.Depth[u]
		for ; top >= k; top-- {
			if counts {
				p.trieClose(t, top, w)
			}
		}
		top = k
		p.trieForward(t, u, k, w)
		p.trieStop(k, t.Stops[u], w, counts)
		w.stats.Weight += t.Stops[u]
		w.stats.Symbols += t.Stops[u] * float64(k+1)
	}
	for ; top >= 0; top-- {
		if counts {
			p.trieClose(t, top, w)
		}
	}
	if counts {
		p.finishCounts(&w.stats)
	}
}

// TrieStats computes the statistics of the strings of t into out, as
// Stats does for the same strings (to rounding), split into the same
// fixed number of chunks so that the result does not depend on Jobs.
func (e *Evaluator) TrieStats(p *Probs, t *Trie, counts bool, out *Stats) {
	total := len(t.Parent)
	k := min(chunks, total)
	jobs := min(max(e.Jobs, 1), k)
	run := func(c int) {
		p.trieChunk(t, c*total/k, (c+1)*total/k, &e.tw[c], counts)
	}
	runChunks(k, jobs, run)
	out.reset(p.N, p.D, counts)
	for c := 0; c < k; c++ {
		out.add(&e.tw[c].stats)
	}
}
