package spectral

import (
	"github.com/pkg/errors"

	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
)

// orthLeft returns a copy of t representing the same tensor whose cores
// 0..k-1 are left-orthonormal ((r_j d_j) x r_{j+1} with orthonormal
// columns), the rest carried into core k. Exact-zero directions are
// dropped, so ranks may shrink.
func (t TT) orthLeft(k int) (TT, error) {
	out := t.clone()
	for j := range k {
		if err := out.carryRight(j, 0, 0); err != nil {
			return TT{}, err
		}
	}
	return out, nil
}

// orthRight returns a copy of t representing the same tensor whose cores
// k..K-1 are right-orthonormal (r_j x (d_j r_{j+1}) with orthonormal rows),
// the rest carried into core k-1 (k >= 1).
func (t TT) orthRight(k int) (TT, error) {
	out := t.clone()
	for j := len(t.Dims) - 1; j >= k; j-- {
		if err := out.carryLeft(j); err != nil {
			return TT{}, err
		}
	}
	return out, nil
}

// clone returns a deep copy of t.
func (t TT) clone() TT {
	out := TT{Dims: append([]int(nil), t.Dims...), Ranks: append([]int(nil), t.Ranks...), Cores: make([][]float64, len(t.Cores))}
	for k, c := range t.Cores {
		out.Cores[k] = append([]float64(nil), c...)
	}
	return out
}

// bootstrapTT builds an initial train for H^(l) from the train short of a
// shorter Hankel tensor H^(l0) of the same function: its first a cores
// (left-orthonormal: a basis of the prefix space of length a) and its last
// b input cores with the output core (right-orthonormal: a basis of the
// suffix space of length b), a + b < l; the middle block of w = l - a - b
// cores (1 or 2) is fitted by least squares on a subset of the examples
// of s, as one supercore, and split by a rank-rank SVD when w = 2. For a
// linear 2-RNN these prefix and suffix spaces are those of H^(l) whenever
// they have full rank n, so noiseless data give H^(l) exactly.
func bootstrapTT(short TT, s datasets.TwoRNNData, a, b, rank int, rng *rand.Rand) (TT, error) {
	l0, l, d, p := len(short.Dims)-1, s.Len, s.In, s.Out
	w := l - a - b
	if a > l0 || b > l0-1 || w < 1 || w > 2 {
		return TT{}, errors.Errorf("spectral: bootstrap of length %d from %d with %d prefix and %d suffix cores", l, l0, a, b)
	}
	left, err := short.orthLeft(a)
	if err != nil {
		return TT{}, err
	}
	right, err := short.orthRight(l0 - b)
	if err != nil {
		return TT{}, err
	}
	t := TT{Dims: make([]int, l+1), Ranks: make([]int, l+2), Cores: make([][]float64, l+1)}
	for k := range l {
		t.Dims[k] = d
	}
	t.Dims[l] = p
	copy(t.Ranks, left.Ranks[:a+1])
	copy(t.Cores, left.Cores[:a])
	copy(t.Ranks[a+w:], right.Ranks[l0-b:])
	copy(t.Cores[a+w:], right.Cores[l0-b:])
	if w == 2 {
		t.Ranks[a+1] = min(rank, t.Ranks[a]*d, d*t.Ranks[a+2])
	}
	for k := a; k < a+w; k++ {
		t.Cores[k] = make([]float64, t.Ranks[k]*d*t.Ranks[k+1])
	}
	dw, _ := powInt(d, w)
	m := t.Ranks[a] * dw * t.Ranks[a+w]
	N := s.N()
	idx := allIndices(N)
	if M := (3*m + p - 1) / p; M < N {
		idx = rng.Perm(N)[:M]
	}
	lv := mat.NewDense(len(idx), 1, nil)
	for i := range idx {
		lv.Set(i, 0, 1)
	}
	for j := range a {
		lv = contractStep(lv, &t, j, s, idx)
	}
	g, err := fitBlock(&t, s, idx, lv, a, w)
	if err != nil {
		return TT{}, err
	}
	if w == 1 {
		t.Cores[a] = g.RawMatrix().Data
		return t, nil
	}
	ra, rb := t.Ranks[a], t.Ranks[a+2]
	u, sv, vt, r, err := truncSVD(mat.NewDense(ra*d, d*rb, g.RawMatrix().Data), rank, 0)
	if err != nil {
		return TT{}, err
	}
	scaleRows(vt, sv, r)
	t.Ranks[a+1] = r
	t.Cores[a] = denseData(u)
	t.Cores[a+1] = denseData(vt)
	return t, nil
}
