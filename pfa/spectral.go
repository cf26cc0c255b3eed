package pfa

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/spectral"
)

// SpectralConfig sets SpectralStart. The zero value uses 30 k-means
// iterations, prefixes seen at least twice for the centroids, the
// distance between the predicted probabilities of stopping and of the
// next symbol, and a pseudo-count of 0.01 per parameter.
type SpectralConfig struct {
	// Iterations is the number of k-means (Lloyd) iterations. If 0, it
	// will be defaulted to 30.
	Iterations int
	// MinCount is the fewest training strings through a prefix for it to
	// place the centroids (every prefix is then assigned). If 0, it will
	// be defaulted to 2.
	MinCount int
	// Smoothing is the pseudo-count added to every count before the
	// counts become probabilities. If 0, it will be defaulted to 0.01.
	Smoothing float64
	// SuffixLength, when positive, clusters the predictive states by the
	// distance between the probabilities they give to stopping and to
	// every string of 1 to SuffixLength symbols coming next; -1 clusters
	// them by their Euclidean distance in the WFA's own basis. If 0, it
	// will be defaulted to 1.
	SuffixLength int
}

// WithDefaults returns the config with its unset fields at their defaults.
func (c SpectralConfig) WithDefaults() SpectralConfig {
	if c.Iterations == 0 {
		c.Iterations = 30
	}
	if c.MinCount == 0 {
		c.MinCount = 2
	}
	if c.Smoothing == 0 {
		c.Smoothing = 0.01
	}
	if c.SuffixLength == 0 {
		c.SuffixLength = 1
	}
	return c
}

// trie holds the distinct prefixes of a set of strings: node 0 is the
// empty prefix, every node comes after its parent.
type trie struct {
	parent, symbol []int
	count, stops   []float64
	child          map[[2]int]int
}

func newTrie(seqs [][]int, weights []float64) *trie {
	t := &trie{parent: []int{-1}, symbol: []int{-1}, count: []float64{0}, stops: []float64{0}, child: map[[2]int]int{}}
	for i, x := range seqs {
		w := weights[i]
		u := 0
		t.count[0] += w
		for _, a := range x {
			v, ok := t.child[[2]int{u, a}]
			if !ok {
				v = len(t.parent)
				t.child[[2]int{u, a}] = v
				t.parent, t.symbol = append(t.parent, u), append(t.symbol, a)
				t.count, t.stops = append(t.count, 0), append(t.stops, 0)
			}
			t.count[v] += w
			u = v
		}
		t.stops[u] += w
	}
	return t
}

// SpectralStart turns a spectral WFA into a start for a model of the kind
// with the given number of states. Each distinct prefix u of the strings
// is mapped to its predictive state under w, h(u) / (h(u) . beta) with
// h(u) = alpha^T A_u and beta = (I - S)^-1 omega: the WFA's
// representation of the distribution of what follows u, the same for two
// prefixes with the same future. Weighted k-means (k-means++ seeding from
// rng) groups these states into as many clusters as the model has states;
// the counts of the strings' moves between clusters, of their stops and
// of their first cluster, plus cfg.Smoothing, become the model's
// probabilities (an HMM takes the emission and transition margins). For
// a deterministic target whose states the WFA separates the start is the
// target's structure; otherwise it is a deterministic approximation that
// EM or the gradient refines.
func SpectralStart(w spectral.WFA, seqs [][]int, kind Kind, states int, cfg SpectralConfig, rng *rand.Rand) (*Model, error) {
	cfg = cfg.WithDefaults()
	if err := w.Validate(); err != nil {
		return nil, err
	}
	d := len(w.Trans)
	if err := CheckStrings(seqs, d); err != nil {
		return nil, err
	}
	if states < 1 {
		return nil, errors.Errorf("pfa: spectral start with %d states", states)
	}
	beta, err := w.Stop()
	if err != nil {
		return nil, err
	}
	uniq, weights := Compress(seqs)
	t := newTrie(uniq, weights)
	feat := predictiveStates(w, beta, t)
	if cfg.SuffixLength > 0 {
		suffixMetric(w, beta, feat, cfg.SuffixLength)
	}
	k := w.States
	var fit []int
	for u, c := range t.count {
		if c >= float64(cfg.MinCount) {
			fit = append(fit, u)
		}
	}
	if len(fit) == 0 {
		fit = append(fit, 0)
	}
	cent := kmeans(feat, k, fit, t.count, states, cfg.Iterations, rng)
	cluster := make([]int, len(t.parent))
	for u := range cluster {
		cluster[u] = nearest(feat[u*k:(u+1)*k], cent, k)
	}
	return countModel(t, cluster, kind, states, d, cfg.Smoothing), nil
}

// predictiveStates returns the predictive state of every trie node, k
// values per node (h(u) itself when h(u) . beta is 0 or not finite).
func predictiveStates(w spectral.WFA, beta []float64, t *trie) []float64 {
	k := w.States
	h := make([]float64, len(t.parent)*k)
	copy(h[:k], w.Alpha)
	for u := 1; u < len(t.parent); u++ {
		src, dst := h[t.parent[u]*k:(t.parent[u]+1)*k], h[u*k:(u+1)*k]
		a := w.Trans[t.symbol[u]]
		for i, v := range src {
			for j, x := range a[i*k : (i+1)*k] {
				dst[j] += v * x
			}
		}
	}
	feat := make([]float64, len(h))
	for u := range t.parent {
		src, dst := h[u*k:(u+1)*k], feat[u*k:(u+1)*k]
		m := 0.0
		for i, v := range src {
			m += v * beta[i]
		}
		if m == 0 || math.IsNaN(m) || math.IsInf(m, 0) {
			m = 1
		}
		for i, v := range src {
			dst[i] = v / m
		}
	}
	return feat
}

// nearest returns the index of the centroid closest to x.
func nearest(x, cent []float64, k int) int {
	best, arg := math.Inf(1), 0
	for c := 0; c < len(cent)/k; c++ {
		s := 0.0
		for i, v := range cent[c*k : (c+1)*k] {
			e := x[i] - v
			s += e * e
		}
		if s < best {
			best, arg = s, c
		}
	}
	return arg
}

// kmeans clusters the points feat[u] (k values each) for u in idx, weighted
// by weight[u], into (at most) c clusters, and returns the centroids.
func kmeans(feat []float64, k int, idx []int, weight []float64, c, iters int, rng *rand.Rand) []float64 {
	c = min(c, len(idx))
	cent := make([]float64, 0, c*k)
	dist := make([]float64, len(idx))
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	pick := idx[0] // the heaviest point: the empty prefix first
	for len(cent) < c*k {
		cent = append(cent, feat[pick*k:(pick+1)*k]...)
		last := cent[len(cent)-k:]
		total := 0.0
		for i, u := range idx {
			s := 0.0
			for j, v := range last {
				e := feat[u*k+j] - v
				s += e * e
			}
			dist[i] = min(dist[i], s)
			total += weight[u] * dist[i]
		}
		if !(total > 0) {
			break
		}
		r := rng.Float64() * total
		pick = idx[len(idx)-1]
		for i, u := range idx {
			r -= weight[u] * dist[i]
			if r < 0 {
				pick = u
				break
			}
		}
	}
	c = len(cent) / k
	sum := make([]float64, c*k)
	mass := make([]float64, c)
	for it := 0; it < iters; it++ {
		clear(sum)
		clear(mass)
		for _, u := range idx {
			j := nearest(feat[u*k:(u+1)*k], cent, k)
			mass[j] += weight[u]
			for i, v := range feat[u*k : (u+1)*k] {
				sum[j*k+i] += weight[u] * v
			}
		}
		for j := 0; j < c; j++ {
			if mass[j] > 0 {
				for i := range k {
					cent[j*k+i] = sum[j*k+i] / mass[j]
				}
			}
		}
	}
	return cent
}

// countModel builds the model whose probabilities are the smoothed counts
// of the moves between the clusters of the trie's nodes.
func countModel(t *trie, cluster []int, kind Kind, n, d int, smooth float64) *Model {
	m := New(kind, n, d)
	blocks := m.blocks()
	counts := m.newBlockBuffers()
	counts[0][cluster[0]] += t.count[0]
	for u := range t.parent {
		q := cluster[u]
		if kind == KindPFA {
			counts[1][q*(1+d*n)] += t.stops[u]
		} else {
			counts[1][2*q] += t.stops[u]
		}
		if u == 0 {
			continue
		}
		p, a, c := cluster[t.parent[u]], t.symbol[u], t.count[u]
		if kind == KindPFA {
			counts[1][p*(1+d*n)+1+a*n+q] += c
			continue
		}
		counts[1][2*p+1] += c
		counts[2][p*d+a] += c
		counts[3][p*n+q] += c
	}
	for i, b := range blocks {
		for r := 0; r < b.rows; r++ {
			row := counts[i][r*b.cols : (r+1)*b.cols]
			s := 0.0
			for _, v := range row {
				s += v + smooth
			}
			for j, v := range row {
				(*b.data)[r*b.cols+j] = math.Log((v + smooth) / s)
			}
		}
	}
	return m
}
