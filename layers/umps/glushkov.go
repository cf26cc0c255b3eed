package umps

// This file builds the position (Glushkov) automaton of a compiled regex:
// one state per symbol occurrence, no empty transitions. It decides
// ambiguity (Book, Even, Greibach and Ott 1971: a regex is unambiguous iff
// its position automaton is) and, by the subset construction, gives the
// DFA that the exact sampler runs on.

// glushkov is the position automaton: state 0 is initial, state p >= 1 is
// the p-th symbol occurrence, entered by reading one of syms[p].
type glushkov struct {
	syms   [][]int // syms[p]: the symbols position p reads (syms[0] unused)
	follow []map[int]bool
	accept []bool
}

// sets of positions: first, last and nullable of a subtree.
type posInfo struct {
	first, last []int
	nullable    bool
}

func newGlushkov(root *node) *glushkov {
	g := &glushkov{syms: [][]int{nil}, follow: []map[int]bool{{}}}
	info := g.build(root)
	for _, p := range info.first {
		g.follow[0][p] = true
	}
	g.accept = make([]bool, len(g.syms))
	g.accept[0] = info.nullable
	for _, p := range info.last {
		g.accept[p] = true
	}
	return g
}

func (g *glushkov) link(from, to []int) {
	for _, p := range from {
		for _, q := range to {
			g.follow[p][q] = true
		}
	}
}

func (g *glushkov) build(n *node) posInfo {
	switch n.kind {
	case kindEps:
		return posInfo{nullable: true}
	case kindSym:
		p := len(g.syms)
		g.syms = append(g.syms, n.syms)
		g.follow = append(g.follow, map[int]bool{})
		return posInfo{first: []int{p}, last: []int{p}}
	case kindCat:
		acc := posInfo{nullable: true}
		for _, s := range n.subs {
			in := g.build(s)
			g.link(acc.last, in.first)
			if acc.nullable {
				acc.first = append(acc.first, in.first...)
			}
			if in.nullable {
				acc.last = append(acc.last, in.last...)
			} else {
				acc.last = in.last
			}
			acc.nullable = acc.nullable && in.nullable
		}
		return acc
	case kindAlt:
		var acc posInfo
		for _, s := range n.subs {
			in := g.build(s)
			acc.first = append(acc.first, in.first...)
			acc.last = append(acc.last, in.last...)
			acc.nullable = acc.nullable || in.nullable
		}
		return acc
	}
	in := g.build(n.subs[0])
	g.link(in.last, in.first)
	in.nullable = true
	return in
}

// reads reports whether position q reads symbol c.
func (g *glushkov) reads(q, c int) bool {
	for _, s := range g.syms[q] {
		if s == c {
			return true
		}
	}
	return false
}

// ambiguous reports whether some string has two accepting paths: a pair of
// distinct states reachable together from (0, 0) on one input and able to
// reach acceptance together.
func (g *glushkov) ambiguous(symbols int) bool {
	type pair struct{ p, q int }
	succ := func(pr pair) []pair {
		var out []pair
		for c := 0; c < symbols; c++ {
			for p2 := range g.follow[pr.p] {
				if !g.reads(p2, c) {
					continue
				}
				for q2 := range g.follow[pr.q] {
					if g.reads(q2, c) {
						out = append(out, pair{p2, q2})
					}
				}
			}
		}
		return out
	}
	seen := map[pair]bool{{0, 0}: true}
	order := []pair{{0, 0}}
	edges := map[pair][]pair{}
	for i := 0; i < len(order); i++ {
		for _, s := range succ(order[i]) {
			edges[order[i]] = append(edges[order[i]], s)
			if !seen[s] {
				seen[s] = true
				order = append(order, s)
			}
		}
	}
	// Co-reachability: iterate to a fixed point (the pair graph is small).
	live := map[pair]bool{}
	for changed := true; changed; {
		changed = false
		for _, pr := range order {
			if live[pr] {
				continue
			}
			ok := g.accept[pr.p] && g.accept[pr.q]
			for _, s := range edges[pr] {
				ok = ok || live[s]
			}
			if ok {
				live[pr], changed = true, true
			}
		}
	}
	for pr := range live {
		if pr.p != pr.q {
			return true
		}
	}
	return false
}

// emptyAmbiguous reports whether some subexpression matches the empty
// string in two ways (an alternation with two nullable branches, a closure
// of a nullable body), which the position automaton cannot see but Table 1
// counts more than once.
func (n *node) emptyAmbiguous() bool {
	if n.kind == kindStar && n.subs[0].nullable() {
		return true
	}
	nullables := 0
	for _, s := range n.subs {
		if s.emptyAmbiguous() {
			return true
		}
		if s.nullable() {
			nullables++
		}
	}
	return n.kind == kindAlt && nullables > 1
}

// Ambiguous reports whether some string matches r in more than one way.
// Algorithm 1 (Transfer.Sample) and Table 1's Z_R count a string once per
// match, so they are exact only for unambiguous regexes.
func (r *Regex) Ambiguous() bool {
	return r.root.emptyAmbiguous() || newGlushkov(r.root).ambiguous(len(r.alphabet))
}
