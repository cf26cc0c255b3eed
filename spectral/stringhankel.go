package spectral

import (
	"fmt"
	"math"
	"slices"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"
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
}

// StringHankelConfig selects the Hankel matrix estimated from strings.
type StringHankelConfig struct {
	// Variant is the estimated function (Classic by default).
	Variant HankelVariant
	// Rows and Cols are scikit-splearn's lrows and lcolumns: the longest
	// prefix and suffix in the basis. If 0, they will be defaulted to 5.
	Rows, Cols int
}

func (c StringHankelConfig) withDefaults() (StringHankelConfig, error) {
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

// keyer encodes strings as map keys, one byte per symbol for alphabets of
// at most 256 symbols and four otherwise.
type keyer struct {
	wide bool
	buf  []byte
}

func (k *keyer) key(seq []int) []byte {
	k.buf = k.buf[:0]
	for _, s := range seq {
		if k.wide {
			k.buf = append(k.buf, byte(s>>24), byte(s>>16), byte(s>>8), byte(s))
		} else {
			k.buf = append(k.buf, byte(s))
		}
	}
	return k.buf
}

// symbol decodes the first symbol of a key.
func (k *keyer) symbol(key string) int {
	if k.wide {
		return int(key[0])<<24 | int(key[1])<<16 | int(key[2])<<8 | int(key[3])
	}
	return int(key[0])
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
	cfg, err := cfg.withDefaults()
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
	kr := &keyer{wide: symbols > 256}
	maxLen := cfg.Rows + cfg.Cols + 1
	counts := map[string]*float64{}
	rowSet, colSet := map[string][]int{}, map[string][]int{}
	rowFactors := cfg.Variant == Suffix || cfg.Variant == Factor
	colFactors := cfg.Variant == Prefix || cfg.Variant == Factor
	for i, s := range seqs {
		wt := 1.0
		if weights != nil {
			wt = weights[i]
		}
		countString(counts, kr, s, wt, cfg.Variant, maxLen)
		collectBasis(rowSet, kr, s, cfg.Rows, rowFactors, false)
		collectBasis(colSet, kr, s, cfg.Cols, colFactors, true)
	}
	h := &StringHankel{Variant: cfg.Variant, Symbols: symbols, Prefixes: sortedBasis(rowSet), Suffixes: sortedBasis(colSet)}
	h.fill(counts, kr, 1/total)
	return h, nil
}

// countString adds the variant's counts of the strings of length <= maxLen
// that s contributes.
func countString(counts map[string]*float64, kr *keyer, s []int, wt float64, v HankelVariant, maxLen int) {
	add := func(w []int) {
		k := kr.key(w)
		if p, ok := counts[string(k)]; ok {
			*p += wt
			return
		}
		v := wt
		counts[string(k)] = &v
	}
	switch v {
	case Classic:
		if len(s) <= maxLen {
			add(s)
		}
	case Prefix:
		for l := 0; l <= min(len(s), maxLen); l++ {
			add(s[:l])
		}
	case Suffix:
		for l := 0; l <= min(len(s), maxLen); l++ {
			add(s[len(s)-l:])
		}
	case Factor:
		add(nil)
		for i := range s {
			for j := i + 1; j <= min(len(s), i+maxLen); j++ {
				add(s[i:j])
			}
		}
		*counts[""] += wt * float64(len(s))
	}
}

// collectBasis adds to set the prefixes (suffixes if suffix) of s, or all
// its factors, of length <= maxLen.
func collectBasis(set map[string][]int, kr *keyer, s []int, maxLen int, factors, suffix bool) {
	add := func(w []int) {
		k := kr.key(w)
		if _, ok := set[string(k)]; !ok {
			set[string(k)] = slices.Clone(w)
		}
	}
	if !factors {
		for l := 0; l <= min(len(s), maxLen); l++ {
			if suffix {
				add(s[len(s)-l:])
			} else {
				add(s[:l])
			}
		}
		return
	}
	add(nil)
	for i := range s {
		for j := i + 1; j <= min(len(s), i+maxLen); j++ {
			add(s[i:j])
		}
	}
}

// sortedBasis returns the strings of set by length, then lexicographically.
func sortedBasis(set map[string][]int) [][]int {
	b := make([][]int, 0, len(set))
	for _, w := range set {
		if w == nil {
			w = []int{}
		}
		b = append(b, w)
	}
	slices.SortFunc(b, func(x, y []int) int {
		if len(x) != len(y) {
			return len(x) - len(y)
		}
		return slices.Compare(x, y)
	})
	return b
}

// fill builds H and the H_sigma from the counts: every counted string w
// splits as u v (or u sigma v) with u a row and v a column of the basis.
func (h *StringHankel) fill(counts map[string]*float64, kr *keyer, scale float64) {
	index := func(b [][]int) map[string]int {
		m := make(map[string]int, len(b))
		for i, w := range b {
			m[string(kr.key(w))] = i
		}
		return m
	}
	rows, cols := index(h.Prefixes), index(h.Suffixes)
	width := 1
	if kr.wide {
		width = 4
	}
	maxRow, maxCol := len(h.Prefixes[len(h.Prefixes)-1]), len(h.Suffixes[len(h.Suffixes)-1])
	// walk calls f on every entry: matrix 0 is H, 1+s is H_s. Each (row,
	// column) pair of a matrix comes from one counted string, so the order
	// of the map walk does not change the built matrices.
	walk := func(f func(m, r, col int, v float64)) {
		for k, cp := range counts {
			c := *cp * scale
			n := len(k) / width
			for i := max(0, n-1-maxCol); i <= min(n, maxRow); i++ {
				r, okr := rows[k[:i*width]]
				if !okr {
					continue
				}
				if n-i <= maxCol {
					if col, ok := cols[k[i*width:]]; ok {
						f(0, r, col, c)
					}
				}
				if i == n {
					break
				}
				if col, ok := cols[k[(i+1)*width:]]; ok {
					f(1+kr.symbol(k[i*width:]), r, col, c)
				}
			}
		}
	}
	b := make([]*sparseBuilder, 1+h.Symbols)
	for m := range b {
		b[m] = newSparseBuilder(len(h.Prefixes), len(h.Suffixes))
	}
	walk(func(m, r, _ int, _ float64) { b[m].count(r) })
	for _, bm := range b {
		bm.alloc()
	}
	walk(func(m, r, col int, v float64) { b[m].put(r, col, v) })
	h.H = b[0].build()
	h.Sigma = make([]*Sparse, h.Symbols)
	for s := range h.Sigma {
		h.Sigma[s] = b[1+s].build()
	}
}

// Dims returns the number of rows and columns of H.
func (h *StringHankel) Dims() (rows, cols int) { return h.H.Rows, h.H.Cols }

// MaxRank is the largest rank a truncated SVD of H can have: the smaller
// dimension of H.
func (h *StringHankel) MaxRank() int { return min(h.H.Rows, h.H.Cols) }

// Dense returns H as a dense matrix (for inspection and tests).
func (h *StringHankel) Dense() *mat.Dense { return h.H.Dense() }
