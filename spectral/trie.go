package spectral

import (
	"math"
)

// trieBlock is the number of rows per block of a trie's child table.
const trieBlock = 1 << 12

// denseTrieSymbols is the largest alphabet for which a trie keeps its
// children in a table, one row of one slot per symbol for each node that
// has a child; above, in a map. A row costs 4 bytes a symbol and a map
// entry about 25 bytes a child, so the table pays off on small alphabets,
// where inner nodes have many children, and it is several times faster.
const denseTrieSymbols = 32

// trie is a set of strings over [0, symbols) stored as a tree: node 0 is
// the empty string, every other node extends its parent by one symbol,
// and every prefix of a stored string is a node. Nodes are numbered in
// order of insertion.
type trie struct {
	symbols int
	// row[n] is node n's row in the child table, -1 while it has no
	// child (the leaves, most nodes of a count trie, take no row);
	// table[k/trieBlock][(k%trieBlock)*symbols+s] is the child by symbol
	// s of the node of row k (0: none, the root being nobody's child),
	// in blocks so that growing never copies. sparse holds the children
	// instead when the alphabet is above denseTrieSymbols.
	row    []int32
	table  [][]int32
	rows   int
	sparse map[uint64]int32
	// parent and last give each node's parent and the symbol leading to
	// it (unused for the root).
	parent, last []int32
}

func newTrie(symbols int) *trie {
	t := &trie{symbols: symbols, parent: []int32{0}, last: []int32{0}}
	if symbols <= denseTrieSymbols {
		t.row = []int32{-1}
	} else {
		t.sparse = map[uint64]int32{}
	}
	return t
}

// size is the number of nodes.
func (t *trie) size() int { return len(t.parent) }

// child returns the child of n by s, or 0 when there is none.
func (t *trie) child(n int32, s int) int32 {
	if t.sparse != nil {
		return t.sparse[uint64(n)*uint64(t.symbols)+uint64(s)]
	}
	k := int(t.row[n])
	if k < 0 {
		return 0
	}
	return t.table[k/trieBlock][(k%trieBlock)*t.symbols+s]
}

// extend returns the child of n by s, adding it if needed.
func (t *trie) extend(n int32, s int) int32 {
	if c := t.child(n, s); c != 0 {
		return c
	}
	if len(t.parent) == math.MaxInt32 {
		panic("spectral: trie of 2^31 nodes")
	}
	c := int32(len(t.parent))
	t.parent = append(t.parent, n)
	t.last = append(t.last, int32(s))
	if t.sparse != nil {
		t.sparse[uint64(n)*uint64(t.symbols)+uint64(s)] = c
		return c
	}
	t.row = append(t.row, -1)
	k := int(t.row[n])
	if k < 0 {
		k = t.rows
		t.rows++
		if k/trieBlock == len(t.table) {
			t.table = append(t.table, make([]int32, trieBlock*t.symbols))
		}
		t.row[n] = int32(k)
	}
	t.table[k/trieBlock][(k%trieBlock)*t.symbols+s] = c
	return c
}

// dropChildren releases the child table: size, parent and last still
// work, child and extend no longer do.
func (t *trie) dropChildren() { t.row, t.table, t.sparse = nil, nil, nil }

// sorted returns the strings of the nodes by length, then
// lexicographically (the empty string first), reversed when reverse is
// set. The nodes of one length are ordered level by level: children in
// symbol order of the previous level's nodes in their order give the
// forward strings in order; a stable sort of that list by each node's own
// symbol gives the reversed strings in order (a reversed string is that
// symbol followed by its parent's reversed string). The strings share one
// array, each capped at its own length.
func (t *trie) sorted(reverse bool) [][]int {
	first, kids := t.childLists()
	n := t.size()
	order := make([]int32, 1, n)
	var buf []int32
	bucket := make([]int, t.symbols+1)
	for lo := 0; lo < len(order); {
		hi := len(order)
		for _, v := range order[lo:hi] {
			for _, ch := range kids[first[v]:first[v+1]] {
				order = append(order, ch.node)
			}
		}
		if reverse && len(order) > hi {
			level := order[hi:]
			buf = append(buf[:0], level...)
			clear(bucket)
			for _, v := range buf {
				bucket[t.last[v]+1]++
			}
			for s := range t.symbols {
				bucket[s+1] += bucket[s]
			}
			for _, v := range buf {
				level[bucket[t.last[v]]] = v
				bucket[t.last[v]]++
			}
		}
		lo = hi
	}
	length := make([]int32, n)
	total := 0
	for _, v := range order[1:] {
		length[v] = length[t.parent[v]] + 1
		total += int(length[v])
	}
	flat := make([]int, total)
	at := make([]int, n) // offset of each node's string in flat
	b := make([][]int, n)
	b[0] = flat[:0:0]
	o := 0
	for k, v := range order[1:] {
		l, p := int(length[v]), t.parent[v]
		w := flat[o : o+l : o+l]
		if reverse {
			w[0] = int(t.last[v])
			copy(w[1:], flat[at[p]:at[p]+l-1])
		} else {
			copy(w, flat[at[p]:at[p]+l-1])
			w[l-1] = int(t.last[v])
		}
		at[v], b[k+1] = o, w
		o += l
	}
	return b
}

// child is a node and the symbol leading to it from its parent.
type child struct{ node, symbol int32 }

// childLists returns the children of every node in symbol order: those
// of node n are kids[first[n]:first[n+1]]. It reads parent and last
// only, so it works after dropChildren.
func (t *trie) childLists() (first []int32, kids []child) {
	n := t.size()
	// Nodes 1..n-1 ordered by symbol, then stably by parent.
	at := make([]int32, max(t.symbols, n)+1)
	for v := 1; v < n; v++ {
		at[t.last[v]+1]++
	}
	for s := range t.symbols {
		at[s+1] += at[s]
	}
	bySymbol := make([]int32, n-1)
	for v := 1; v < n; v++ {
		s := t.last[v]
		bySymbol[at[s]] = int32(v)
		at[s]++
	}
	first = make([]int32, n+1)
	for v := 1; v < n; v++ {
		first[t.parent[v]+1]++
	}
	for v := range n {
		first[v+1] += first[v]
	}
	copy(at, first[:n])
	kids = make([]child, n-1)
	for _, v := range bySymbol {
		p := t.parent[v]
		kids[at[p]] = child{v, t.last[v]}
		at[p]++
	}
	return first, kids
}
