package spectral

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
)

// HankelVariant is the function of a string sample whose Hankel matrix is
// estimated (the four versions of scikit-splearn). With f the probability of
// a string, the variants estimate
//
//	Classic  f(x)
//	Prefix   f_p(x) = sum_w f(xw)       (probability of the prefix x)
//	Suffix   f_s(x) = sum_w f(wx)
//	Factor   f_f(x) = sum_{u,w} f(uxw)  (expected number of occurrences of x)
//
// All four have the rank of f's Hankel matrix; Prefix, Suffix and Factor
// fill it with bigger, better estimated counts (Balle, Carreras, Luque and
// Quattoni, "Spectral learning of weighted automata", 2014).
type HankelVariant int

const (
	// Classic counts whole strings.
	Classic HankelVariant = iota
	// Prefix counts the strings having each prefix.
	Prefix
	// Suffix counts the strings having each suffix.
	Suffix
	// Factor counts every occurrence of each factor (substring).
	Factor
)

var variantNames = [...]string{Classic: "classic", Prefix: "prefix", Suffix: "suffix", Factor: "factor"}

// HankelVariants lists the four variants in order.
var HankelVariants = []HankelVariant{Classic, Prefix, Suffix, Factor}

// String returns the variant's flag name.
func (v HankelVariant) String() string {
	if v < 0 || int(v) >= len(variantNames) {
		return fmt.Sprintf("HankelVariant(%d)", int(v))
	}
	return variantNames[v]
}

// ParseHankelVariant maps classic, prefix, suffix or factor to its variant.
func ParseHankelVariant(name string) (HankelVariant, error) {
	for v, n := range variantNames {
		if n == name {
			return HankelVariant(v), nil
		}
	}
	return 0, errors.Errorf("spectral: unknown Hankel variant %q (known: classic, prefix, suffix, factor)", name)
}

// StringHankel is the sparse empirical Hankel matrix of a string sample,
// H[u, v] = F(uv) with F the variant's function estimated by counts over
// the number of strings, and the matrices H_sigma[u, v] = F(u sigma v) of
// every symbol. Rows are indexed by the basis prefixes, columns by the basis
// suffixes. As scikit-splearn with partial = True, the basis holds only
// strings seen in the sample: the rows are the prefixes of length <= Rows
// of sample strings (Classic, Prefix) or their factors of that length
// (Suffix, Factor), the columns the suffixes of length <= Cols (Classic,
// Suffix) or the factors of that length (Prefix, Factor); any other row or
// column of the variant's Hankel matrix is zero.
type StringHankel struct {
	// Variant is the estimated function.
	Variant HankelVariant
	// Symbols is the alphabet size.
	Symbols int
	// Prefixes and Suffixes are the row and column basis strings, in
	// order of length then lexicographic order (the empty string first).
	Prefixes, Suffixes [][]int
	// H is the Hankel block and Sigma[s] that of symbol s.
	H     *Sparse
	Sigma []*Sparse
	// rows and cols are the basis lengths the matrices were built with.
	rows, cols int
}

// StringHankelConfig selects the Hankel matrix estimated from strings.
type StringHankelConfig struct {
	// Variant is the estimated function (Classic by default).
	Variant HankelVariant
	// Rows and Cols are scikit-splearn's lrows and lcolumns: the longest
	// prefix and suffix in the basis. If 0, they will be defaulted to 5.
	Rows, Cols int
}

// WithDefaults returns c with Rows and Cols of 0 set to 5, or an error
// naming what is out of range.
func (c StringHankelConfig) WithDefaults() (StringHankelConfig, error) {
	if c.Rows == 0 {
		c.Rows = 5
	}
	if c.Cols == 0 {
		c.Cols = 5
	}
	if c.Rows < 0 || c.Cols < 0 || c.Rows > 32 || c.Cols > 32 {
		return c, errors.Errorf("spectral: Hankel basis lengths %d, %d out of range [0, 32]", c.Rows, c.Cols)
	}
	if c.Variant < Classic || c.Variant > Factor {
		return c, errors.Errorf("spectral: unknown Hankel variant %d", int(c.Variant))
	}
	return c, nil
}

// NewStringHankel estimates the Hankel matrices of the sample seqs over an
// alphabet of symbols symbols: F is estimated by counts divided by the
// number of strings. It fails on an empty sample or a symbol out of range.
func NewStringHankel(seqs [][]int, symbols int, cfg StringHankelConfig) (*StringHankel, error) {
	return NewWeightedHankel(seqs, nil, symbols, cfg)
}

// NewWeightedHankel is NewStringHankel for a sample given as distinct
// strings with weights (counts or probabilities; nil means 1 each): F is
// estimated by weighted counts divided by the total weight. Weights must
// be finite, >= 0, with a positive sum.
func NewWeightedHankel(seqs [][]int, weights []float64, symbols int, cfg StringHankelConfig) (*StringHankel, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	if len(seqs) == 0 || symbols < 1 {
		return nil, errors.Errorf("spectral: Hankel of %d strings over %d symbols", len(seqs), symbols)
	}
	if weights != nil && len(weights) != len(seqs) {
		return nil, errors.Errorf("spectral: %d weights for %d strings", len(weights), len(seqs))
	}
	total := 0.0
	for i, s := range seqs {
		for t, c := range s {
			if c < 0 || c >= symbols {
				return nil, errors.Errorf("spectral: string %d position %d: symbol %d out of range [0, %d)", i, t, c, symbols)
			}
		}
		wt := 1.0
		if weights != nil {
			wt = weights[i]
		}
		if math.IsNaN(wt) || math.IsInf(wt, 0) || wt < 0 {
			return nil, errors.Errorf("spectral: weight %d is %g", i, wt)
		}
		total += wt
	}
	if total <= 0 {
		return nil, errors.New("spectral: the weights sum to 0")
	}
	if math.IsInf(total, 0) {
		return nil, errors.New("spectral: the weights' sum overflows: rescale the weights")
	}
	if weights == nil {
		// Counts are sums of ones, exact in any grouping: each distinct
		// string is counted once, with its number of copies.
		seqs, weights = datasets.Distinct(seqs)
	}
	c := &counter{t: newTrie(symbols)}
	// The column trie holds the columns reversed (see addBasis).
	rows, cols := newTrie(symbols), newTrie(symbols)
	for i, s := range seqs {
		wt := 1.0
		if weights != nil {
			wt = weights[i]
		}
		c.addString(s, wt, cfg.Variant, cfg.Rows+cfg.Cols+1)
		addBasis(rows, cols, s, cfg)
	}
	h := &StringHankel{Variant: cfg.Variant, Symbols: symbols, rows: cfg.Rows, cols: cfg.Cols}
	h.Prefixes = rows.sorted(false)
	h.Suffixes = cols.sorted(true)
	h.fill(c, 1/total)
	for _, m := range append([]*Sparse{h.H}, h.Sigma...) {
		if slices.ContainsFunc(m.Val, func(v float64) bool { return math.IsInf(v, 0) || math.IsNaN(v) }) {
			return nil, errors.Errorf("spectral: weighted counts overflow (total weight %g): rescale the weights", total)
		}
	}
	return h, nil
}

// counter accumulates weighted counts of strings, stored in a trie.
type counter struct {
	t *trie
	// cnt[n] is the count of node n's string, -1 if it was not counted
	// (a weight can be 0).
	cnt []float64
}

// add adds wt to the count of node n.
func (c *counter) add(n int32, wt float64) {
	for len(c.cnt) < c.t.size() {
		c.cnt = append(c.cnt, -1)
	}
	if c.cnt[n] < 0 {
		c.cnt[n] = 0
	}
	c.cnt[n] += wt
}

// levels is a count trie numbered in breadth-first order, children in
// symbol order: the children of node n are nodes first[n] to
// first[n+1]-1, symbol[n] leads to n from its parent and cnt[n] is its
// count (-1: not counted). The descendants of a node at one depth below
// it are consecutive.
type levels struct {
	first, symbol []int32
	cnt           []float64
}

// levelOrder returns the counted trie in breadth-first numbering and the
// new number of each node, and releases the counter's own trie.
func (c *counter) levelOrder() (levels, []int32) {
	first, kids := c.t.childLists()
	n := c.t.size()
	lv := levels{first: make([]int32, n+1), symbol: make([]int32, n), cnt: make([]float64, n)}
	order := make([]int32, 1, n) // old numbers in the new order
	renumber := make([]int32, n)
	for k := 0; k < len(order); k++ {
		old := order[k]
		renumber[old] = int32(k)
		lv.cnt[k] = -1
		if int(old) < len(c.cnt) {
			lv.cnt[k] = c.cnt[old]
		}
		lv.first[k] = int32(len(order))
		for _, ch := range kids[first[old]:first[old+1]] {
			lv.symbol[len(order)] = ch.symbol
			order = append(order, ch.node)
		}
	}
	lv.first[n] = int32(n)
	c.t, c.cnt = nil, nil
	return lv, renumber
}

// addString adds the variant's counts of the strings of length <= maxLen
// that s contributes, with weight wt.
func (c *counter) addString(s []int, wt float64, v HankelVariant, maxLen int) {
	t := c.t
	switch v {
	case Classic:
		if len(s) <= maxLen {
			n := int32(0)
			for _, x := range s {
				n = t.extend(n, x)
			}
			c.add(n, wt)
		}
	case Prefix:
		n := int32(0)
		c.add(n, wt)
		for _, x := range s[:min(len(s), maxLen)] {
			n = t.extend(n, x)
			c.add(n, wt)
		}
	case Suffix:
		for l := 0; l <= min(len(s), maxLen); l++ {
			n := int32(0)
			for _, x := range s[len(s)-l:] {
				n = t.extend(n, x)
			}
			c.add(n, wt)
		}
	case Factor:
		c.add(0, wt)
		for i := range s {
			n := int32(0)
			for _, x := range s[i:min(len(s), i+maxLen)] {
				n = t.extend(n, x)
				c.add(n, wt)
			}
		}
		c.add(0, wt*float64(len(s)))
	}
}

// addBasis adds to rows the prefixes of s of length <= cfg.Rows (Classic,
// Prefix) or its factors of that length (Suffix, Factor), and to cols,
// reversed, its suffixes of length <= cfg.Cols (Classic, Suffix) or its
// factors (Prefix, Factor). Every row set is prefix-closed, so every node
// of rows is a row; every column set is suffix-closed, so every node of
// the reversed cols is a column.
func addBasis(rows, cols *trie, s []int, cfg StringHankelConfig) {
	rowFactors := cfg.Variant == Suffix || cfg.Variant == Factor
	colFactors := cfg.Variant == Prefix || cfg.Variant == Factor
	for start := range len(s) + 1 {
		if start > 0 && !rowFactors {
			break
		}
		n := int32(0)
		for _, x := range s[start:min(len(s), start+cfg.Rows)] {
			n = rows.extend(n, x)
		}
	}
	for end := len(s); end >= 0; end-- {
		if end < len(s) && !colFactors {
			break
		}
		n := int32(0)
		for t := end - 1; t >= max(0, end-cfg.Cols); t-- {
			n = cols.extend(n, s[t])
		}
	}
}

// entries returns the number of entries of H and of each H_s (nnz[0],
// nnz[1+s]) whose rows start at the given nodes (-1: an empty row), for
// columns of length <= cols. Every counted string below a row's node
// within cols symbols is an entry of H: in every variant, the part after
// the row of a counted string is a string of the column basis (a suffix
// of a sample string when the counted strings are whole strings or
// suffixes, a factor when they are prefixes or factors), so a row's
// entries are the counted nodes at depths 0 to cols below it, and the
// entries of its H_s those below its child by s. The nodes below a node
// at one depth are consecutive, and so are their children: one prefix sum
// of the counted nodes counts each depth at once.
func (lv levels) entries(start []int32, symbols, cols int) []int {
	counted := make([]int32, len(lv.cnt)+1)
	for k, c := range lv.cnt {
		counted[k+1] = counted[k]
		if c >= 0 {
			counted[k+1]++
		}
	}
	below := func(n int32) int {
		total := 0
		for d, lo, hi := 0, n, n+1; d <= cols && lo < hi; d, lo, hi = d+1, lv.first[lo], lv.first[hi] {
			total += int(counted[hi] - counted[lo])
		}
		return total
	}
	nnz := make([]int, 1+symbols)
	for _, n := range start {
		if n < 0 {
			continue
		}
		nnz[0] += below(n)
		for k := lv.first[n]; k < lv.first[n+1]; k++ {
			nnz[1+lv.symbol[k]] += below(k)
		}
	}
	return nnz
}

// fill builds H and the H_sigma from the counted strings, their counts
// times scale. Row u of H holds the counted strings u v with v a column,
// and row u of H_s the counted strings u s v: counted strings below the
// node of u in the count trie. A breadth-first walk of that subtree,
// children in symbol order, meets them by length of v, then in
// lexicographic order of v, which is the order of the columns, so each
// row of each matrix is written in order and once. The trie is read in
// breadth-first numbering (levelOrder), where the nodes such a walk
// meets at one depth are consecutive.
func (h *StringHankel) fill(c *counter, scale float64) {
	t := c.t
	start := make([]int32, len(h.Prefixes)) // node of each row, -1 if none
	for r, u := range h.Prefixes {
		n := int32(0)
		for _, x := range u {
			if n = t.child(n, x); n == 0 {
				break
			}
		}
		start[r] = n
		if n == 0 && len(u) > 0 {
			start[r] = -1
		}
	}
	t.dropChildren()
	lv, renumber := c.levelOrder()
	for r, n := range start {
		if n >= 0 {
			start[r] = renumber[n]
		}
	}
	// cols holds the columns forwards; col[n] is node n's column, -1 for
	// a node that is only a prefix of columns.
	cols := newTrie(h.Symbols)
	var col []int32
	for j, v := range h.Suffixes {
		n := int32(0)
		for _, x := range v {
			n = cols.extend(n, x)
		}
		for len(col) < cols.size() {
			col = append(col, -1)
		}
		col[n] = int32(j)
	}
	nnz := lv.entries(start, h.Symbols, h.cols)
	b := make([]*rowBuilder, 1+h.Symbols)
	for m := range b {
		b[m] = newRowBuilder(len(h.Prefixes), len(h.Suffixes), nnz[m])
	}
	// The walk below node n of row u visits the counted strings u w; w is
	// a column of H when its node h in cols is, and w = s v gives v to
	// H_s when v's node hs is (-1: not a prefix of any column).
	type visit struct{ n, h, hs, s int32 }
	var queue []visit
	for r, n := range start {
		if n >= 0 {
			queue = append(queue[:0], visit{n, 0, -1, -1})
		}
		for q := 0; q < len(queue); q++ {
			p := queue[q]
			if cnt := lv.cnt[p.n]; cnt >= 0 {
				v := cnt * scale
				if p.h >= 0 && col[p.h] >= 0 {
					b[0].add(int(col[p.h]), v)
				}
				if p.hs >= 0 && col[p.hs] >= 0 {
					b[1+p.s].add(int(col[p.hs]), v)
				}
			}
			for k := lv.first[p.n]; k < lv.first[p.n+1]; k++ {
				x := int(lv.symbol[k])
				next := visit{k, -1, -1, p.s}
				if p.h >= 0 {
					if ch := cols.child(p.h, x); ch != 0 {
						next.h = ch
					}
				}
				switch {
				case p.s < 0:
					next.hs, next.s = 0, int32(x)
				case p.hs >= 0:
					if ch := cols.child(p.hs, x); ch != 0 {
						next.hs = ch
					}
				}
				if next.h >= 0 || next.hs >= 0 {
					queue = append(queue, next)
				}
			}
		}
		queue = queue[:0]
		for _, m := range b {
			m.endRow(r)
		}
	}
	h.H = b[0].build()
	h.Sigma = make([]*Sparse, h.Symbols)
	for s := range h.Sigma {
		h.Sigma[s] = b[1+s].build()
	}
}

// Dims returns the number of rows and columns of H.
func (h *StringHankel) Dims() (rows, cols int) { return h.H.Rows, h.H.Cols }

// Restrict returns the Hankel matrices of the same sample with the basis
// lengths rows and cols, at most h's: those of NewStringHankel with Rows
// and Cols set to them, bit for bit, without reading the sample again.
// The bases are ordered by length, so each restricted matrix is a leading
// block of h's.
func (h *StringHankel) Restrict(rows, cols int) (*StringHankel, error) {
	if rows < 1 || cols < 1 || rows > h.rows || cols > h.cols {
		return nil, errors.Errorf("spectral: restricting a Hankel matrix with bases %d, %d to %d, %d", h.rows, h.cols, rows, cols)
	}
	r := &StringHankel{Variant: h.Variant, Symbols: h.Symbols, rows: rows, cols: cols}
	r.Prefixes = h.Prefixes[:leading(h.Prefixes, rows)]
	r.Suffixes = h.Suffixes[:leading(h.Suffixes, cols)]
	r.H = h.H.leadingBlock(len(r.Prefixes), len(r.Suffixes))
	for _, m := range h.Sigma {
		r.Sigma = append(r.Sigma, m.leadingBlock(len(r.Prefixes), len(r.Suffixes)))
	}
	return r, nil
}

// leading is the number of strings of basis, ordered by length, no
// longer than n.
func leading(basis [][]int, n int) int {
	k, _ := slices.BinarySearchFunc(basis, n+1, func(s []int, l int) int { return cmp.Compare(len(s), l) })
	return k
}

// MaxRank is the largest rank a truncated SVD of H can have: the smaller
// dimension of H.
func (h *StringHankel) MaxRank() int { return min(h.H.Rows, h.H.Cols) }

// Dense returns H as a dense matrix (for inspection and tests).
func (h *StringHankel) Dense() *mat.Dense { return h.H.Dense() }
