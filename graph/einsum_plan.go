package graph

import (
	"bytes"
	"slices"
)

// An eplan is how an einsum computes its result from its operands: sums
// over the indices only one operand holds, pairwise contractions as
// matrix products, and a last copy into the result's layout (which also
// broadcasts the result along indices no operand holds, as the gradient
// of a summed index needs). It is planned once from the letters and
// extents; erun executes it in one float type.

// extents holds the extent of each letter, indexed by the letter.
type extents [128]int

// maxEinsumLetters bounds the letters of any tensor of a plan (the
// intermediate results of a contraction of three rank-4 operands).
const maxEinsumLetters = 12

// Step kinds of a plan.
const (
	stepReduce   = iota // sum slot a over the letters slot c lacks
	stepContract        // slot c = contraction of slots a and b
)

type eplan struct {
	ext    *extents
	slots  [][]byte // the letters of each slot: the operands, then temporaries
	nin    int
	steps  []estep
	res    []byte // the result's letters
	last   int    // the slot holding the result's letters (in another order, or fewer)
	direct bool   // the last step writes straight into the result
}

// estep is one step. A contraction computes, for every value of the
// letters g, the matrix product of a as [m, k] and b as [k, n] into c as
// [g..., m..., n...].
type estep struct {
	kind       int
	a, b, c    int
	g, m, k, n []byte
	transA     bool // a holds k after m in memory: product of a^T
	transB     bool // b holds n before k
	packA      int  // slot of a's copy as [g, m, k] when its layout does not fit, or -1
	packB      int  // likewise for b as [g, k, n]
	gmk, gkn   []byte
}

// newEplan plans the einsum of operands with letters in into the letters
// res (which may hold letters no operand holds: the result is broadcast
// along them).
func newEplan(in [][]byte, res []byte, ext *extents) *eplan {
	p := &eplan{ext: ext, nin: len(in), res: res}
	p.slots = append(p.slots, in...)
	live := make([]int, len(in))
	for i := range in {
		live[i] = i
	}
	// Sum out the letters only one operand holds.
	for i, l := range in {
		keep := slices.DeleteFunc(slices.Clone(l), func(c byte) bool { return !p.elsewhere(c, live, i) })
		if len(keep) < len(l) {
			live[i] = p.temp(keep)
			p.steps = append(p.steps, estep{kind: stepReduce, a: i, c: live[i]})
		}
	}
	for len(live) > 1 {
		i, j := p.cheapestPair(live)
		rest := slices.Clone(live)
		rest = slices.Delete(rest, j, j+1)
		rest = slices.Delete(rest, i, i+1)
		c := p.contract(live[i], live[j], rest)
		live = append(rest, c)
	}
	p.last = live[0]
	if n := len(p.steps); n > 0 {
		s := p.steps[n-1]
		p.direct = s.kind == stepContract && bytes.Equal(p.slots[s.c], res)
	}
	return p
}

// elsewhere says whether letter c is in the result or in a live slot other
// than live[skip].
func (p *eplan) elsewhere(c byte, live []int, skip int) bool {
	if bytes.IndexByte(p.res, c) >= 0 {
		return true
	}
	for i, s := range live {
		if i != skip && bytes.IndexByte(p.slots[s], c) >= 0 {
			return true
		}
	}
	return false
}

// temp adds a temporary slot with the given letters.
func (p *eplan) temp(letters []byte) int {
	p.slots = append(p.slots, letters)
	return len(p.slots) - 1
}

// size is the number of values of a tensor with the given letters.
func (p *eplan) size(letters []byte) int {
	n := 1
	for _, c := range letters {
		n *= p.ext[c]
	}
	return n
}

// kept lists the letters of slots a and b that the result or a slot of
// rest needs, in order of first appearance in a then b.
func (p *eplan) kept(a, b int, rest []int) []byte {
	var k []byte
	for _, c := range append(slices.Clone(p.slots[a]), p.slots[b]...) {
		if bytes.IndexByte(k, c) >= 0 {
			continue
		}
		need := bytes.IndexByte(p.res, c) >= 0
		for _, r := range rest {
			need = need || bytes.IndexByte(p.slots[r], c) >= 0
		}
		if need {
			k = append(k, c)
		}
	}
	return k
}

// cheapestPair picks the two live slots whose contraction first costs the
// fewest multiplications in all (ties: the first pair in order).
func (p *eplan) cheapestPair(live []int) (int, int) {
	bi, bj, best := 0, 1, -1
	for i := range live {
		for j := i + 1; j < len(live); j++ {
			var rest []int
			for k, s := range live {
				if k != i && k != j {
					rest = append(rest, s)
				}
			}
			all := append(slices.Clone(p.slots[live[i]]), p.slots[live[j]]...)
			kept := p.kept(live[i], live[j], rest)
			cost := p.size(uniq(all)) + p.callCost(live[i], live[j], kept)
			for _, r := range rest { // then the result with the remaining slot
				cost += p.size(uniq(append(slices.Clone(kept), p.slots[r]...)))
			}
			if best < 0 || cost < best {
				bi, bj, best = i, j, cost
			}
		}
	}
	return bi, bj
}

// gemmCall is what one Gemm call costs beside its arithmetic, in
// multiplications.
const gemmCall = 32

// callCost is the cost of the Gemm calls of contracting slots a and b
// (kept: the letters kept): one call per value of the letters both hold
// and keep, unless the products run on loops (see smallProduct).
func (p *eplan) callCost(a, b int, kept []byte) int {
	la, lb := p.slots[a], p.slots[b]
	var g, k []byte
	for _, c := range la {
		if bytes.IndexByte(lb, c) >= 0 {
			if bytes.IndexByte(kept, c) >= 0 {
				g = append(g, c)
			} else {
				k = append(k, c)
			}
		}
	}
	if len(k) == 0 || p.size(la)*p.size(lb)/p.size(g)/p.size(g)/p.size(k) <= smallProduct {
		return 0
	}
	return gemmCall * p.size(g)
}

// uniq drops repeated letters, keeping the first of each.
func uniq(l []byte) []byte {
	var u []byte
	for _, c := range l {
		if bytes.IndexByte(u, c) < 0 {
			u = append(u, c)
		}
	}
	return u
}

// contract adds the contraction of slots a and b (rest: the slots still to
// come) and returns the slot of its result, [g, m, n].
func (p *eplan) contract(a, b int, rest []int) int {
	la, lb := p.slots[a], p.slots[b]
	kept := p.kept(a, b, rest)
	s := estep{kind: stepContract, a: a, b: b, packA: -1, packB: -1}
	for _, c := range la {
		inB, keep := bytes.IndexByte(lb, c) >= 0, bytes.IndexByte(kept, c) >= 0
		switch {
		case inB && keep:
			s.g = append(s.g, c)
		case inB:
			s.k = append(s.k, c)
		default:
			s.m = append(s.m, c)
		}
	}
	for _, c := range lb {
		if bytes.IndexByte(la, c) < 0 {
			s.n = append(s.n, c)
		}
	}
	s.gmk, s.gkn = cat(s.g, s.m, s.k), cat(s.g, s.k, s.n)
	var okA, okB bool
	s.transA, okA = matrixLayout(la, s.m, s.k)
	if !okA {
		s.packA = p.temp(s.gmk)
		s.transA = false
	}
	s.transB, okB = matrixLayout(lb, s.k, s.n)
	if !okB {
		s.packB = p.temp(s.gkn)
		s.transB = false
	}
	s.c = p.temp(cat(s.g, s.m, s.n))
	p.steps = append(p.steps, s)
	return s.c
}

// matrixLayout says whether a tensor with letters l can be read as the
// matrix [rows, cols] (rows and cols each a run of consecutive letters in
// l, in that order, one of them ending l), and whether it is stored
// transposed (cols before rows).
func matrixLayout(l, rows, cols []byte) (trans, ok bool) {
	run := func(r []byte) int { // where the run r starts in l, or -1
		if len(r) == 0 {
			return len(l)
		}
		i := bytes.Index(l, r)
		return i
	}
	ir, ic := run(rows), run(cols)
	if ir < 0 || ic < 0 {
		return false, false
	}
	endR, endC := ir+len(rows) == len(l), ic+len(cols) == len(l)
	switch {
	case len(cols) == 0 && len(rows) == 0:
		return false, true
	case len(cols) == 0:
		return true, endR // [rows] read as [1, rows] transposed: rows contiguous
	case len(rows) == 0:
		return false, endC
	case endC:
		return false, true
	case endR:
		return true, true
	}
	return false, false
}

func cat(ls ...[]byte) []byte {
	var out []byte
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}
