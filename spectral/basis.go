package spectral

import (
	"github.com/pkg/errors"

	"fmt"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Basis is a prefix/suffix basis of lengths: the Hankel matrix it spans
// has one row per one-hot word of each prefix length a and one column
// per one-hot word of each suffix length b and output o, and its block
// (a, b) is the (a, b+1) matricisation of H^(a+b). Theorem 3 is the basis
// Prefix = Suffix = {L}.
type Basis struct {
	// Prefix and Suffix are the lengths, increasing and >= 1.
	Prefix, Suffix []int
}

// String formats the basis as "prefixes {1,2} x suffixes {1,2}".
func (b Basis) String() string {
	f := func(v []int) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.Itoa(x)
		}
		return "{" + strings.Join(s, ",") + "}"
	}
	return "prefixes " + f(b.Prefix) + " x suffixes " + f(b.Suffix)
}

// Lengths lists, increasing, the lengths l whose Hankel tensors H^(l)
// recovery needs: every a and b (for Omega and Alpha), a+b (the Hankel
// matrix) and a+b+1 (the transitions).
func (b Basis) Lengths() []int {
	var out []int
	for _, x := range b.Prefix {
		for _, y := range b.Suffix {
			out = append(out, x, y, x+y, x+y+1)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Dims returns the size of the basis's Hankel matrix with d inputs and p
// outputs: sum_a d^a rows and sum_b d^b p columns. ok is false if a
// dimension exceeds the dense limit.
func (b Basis) Dims(d, p int) (rows, cols int, ok bool) {
	for _, a := range b.Prefix {
		r, fits := powInt(d, a)
		if !fits {
			return 0, 0, false
		}
		rows += r
	}
	for _, s := range b.Suffix {
		c, fits := powInt(d, s)
		if !fits || c > maxDense/p {
			return 0, 0, false
		}
		cols += c * p
	}
	return rows, cols, rows <= maxDense && cols <= maxDense
}

// RankError reports a rank larger than the Hankel matrix of every basis
// the data allow.
type RankError struct {
	// Rank is the rank asked for and Max the largest the data allow.
	Rank, Max int
	// Basis is the basis that allows Max.
	Basis Basis
}

// Error implements error.
func (e *RankError) Error() string {
	return fmt.Sprintf("spectral: rank %d is larger than the Hankel matrix allows (at most %d, with %v)", e.Rank, e.Max, e.Basis)
}

// ChooseBasis picks the prefix/suffix basis from the lengths usable for
// Hankel estimation (increasing): among runs of consecutive usable
// lengths for the prefixes and for the suffixes such that every length
// the basis needs (Basis.Lengths) is usable, the one that uses the most
// distinct lengths, then has the largest min(rows, cols), then the
// largest Hankel matrix (the most estimated entries). With rank > 0 only bases whose Hankel matrix
// has at least rank rows and columns qualify (a *RankError otherwise).
func ChooseBasis(usable []int, d, p, rank int) (Basis, error) {
	ok := map[int]bool{}
	for _, l := range usable {
		ok[l] = l >= 1
	}
	var runs [][]int
	for i, a := range usable {
		for j := i; j < len(usable) && usable[j] == a+(j-i) && ok[usable[j]]; j++ {
			runs = append(runs, usable[i:j+1])
		}
	}
	var best, bestCap Basis
	bestKey, capMax := [3]int{-1}, 0
	for _, pre := range runs {
		for _, suf := range runs {
			b := Basis{Prefix: pre, Suffix: suf}
			need := b.Lengths()
			if !allOK(need, ok) {
				continue
			}
			rows, cols, fits := b.Dims(d, p)
			if !fits {
				continue
			}
			c := min(rows, cols)
			if c > capMax {
				capMax, bestCap = c, b
			}
			if rank > 0 && c < rank {
				continue
			}
			key := [3]int{len(need), c, rows * cols}
			if cmpKey(key, bestKey) > 0 {
				best, bestKey = b, key
			}
		}
	}
	switch {
	case bestKey[0] >= 0:
		return Basis{Prefix: slices.Clone(best.Prefix), Suffix: slices.Clone(best.Suffix)}, nil
	case capMax > 0:
		return Basis{}, &RankError{Rank: rank, Max: capMax, Basis: bestCap}
	}
	return Basis{}, errors.Errorf("spectral: no prefix/suffix basis in the usable lengths %v: a basis needs lengths a, b, a+b and a+b+1 (for example L, 2L and 2L+1)", usable)
}

func allOK(ls []int, ok map[int]bool) bool {
	for _, l := range ls {
		if !ok[l] {
			return false
		}
	}
	return true
}

func cmpKey(a, b [3]int) int {
	for i := range a {
		if a[i] != b[i] {
			return a[i] - b[i]
		}
	}
	return 0
}

// BasisHankels assembles, from the Hankel tensors hs (keyed by length,
// holding every length of b.Lengths()), the basis's Hankel matrix H, the
// transition matrices H_c (H_c[u, (v,o)] = f(u c v)_o), the row h_eps
// (h_eps[(v,o)] = f(v)_o) and the column block H_P (H_P[u, o] = f(u)_o).
func BasisHankels(hs map[int]Hankel, b Basis) (h *mat.Dense, hc []*mat.Dense, heps []float64, hp *mat.Dense, err error) {
	var d, p int
	for _, l := range b.Lengths() {
		t, ok := hs[l]
		if !ok {
			return nil, nil, nil, nil, errors.Errorf("spectral: basis %v needs H^(%d)", b, l)
		}
		if d == 0 {
			d, p = t.In, t.Out
		}
		if t.Len != l || t.In != d || t.Out != p || len(t.Data) == 0 {
			return nil, nil, nil, nil, errors.Errorf("spectral: Hankel tensor of length %d has l = %d, d = %d, p = %d (want d = %d, p = %d)", l, t.Len, t.In, t.Out, d, p)
		}
		if err := checkFinite(fmt.Sprintf("Hankel tensor H^(%d)", l), t.Data); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	rows, cols, ok := b.Dims(d, p)
	if !ok || len(b.Prefix) == 0 || len(b.Suffix) == 0 {
		return nil, nil, nil, nil, errors.Errorf("spectral: basis %v is empty or too large", b)
	}
	h, hp = mat.NewDense(rows, cols, nil), mat.NewDense(rows, p, nil)
	hc = make([]*mat.Dense, d)
	for c := range hc {
		hc[c] = mat.NewDense(rows, cols, nil)
	}
	r0 := 0
	for _, a := range b.Prefix {
		da, _ := powInt(d, a)
		hp.Slice(r0, r0+da, 0, p).(*mat.Dense).Copy(hs[a].Matrix(a))
		c0 := 0
		for _, s := range b.Suffix {
			w, _ := powInt(d, s)
			w *= p
			h.Slice(r0, r0+da, c0, c0+w).(*mat.Dense).Copy(hs[a+s].Matrix(a))
			next := hs[a+s+1].Matrix(a)
			for c := range d {
				hc[c].Slice(r0, r0+da, c0, c0+w).(*mat.Dense).Copy(next.Slice(0, da, c*w, (c+1)*w))
			}
			c0 += w
		}
		r0 += da
	}
	for _, s := range b.Suffix {
		heps = append(heps, hs[s].Data...)
	}
	return h, hc, heps, hp, nil
}

// RecoverBasis returns the linear 2-RNN with rank states built from the
// Hankel tensors hs over the basis b, the spectral method of Theorem 3 on
// a general basis: with H ~ U_R S_R V_R^T the rank-R truncated SVD of the
// basis's Hankel matrix and P^+ = S_R^-1 U_R^T,
//
//	Alpha = V_R^T h_eps,  Omega^T = P^+ H_P,  A[:,c,:] = P^+ H_c V_R
//
// (see BasisHankels). It is exact when the target has rank R and the
// basis's prefixes and suffixes span its state space. Recover is the
// case b = {L} x {L}.
func RecoverBasis(hs map[int]Hankel, b Basis, rank int) (RNN, error) {
	h, hc, heps, hp, err := BasisHankels(hs, b)
	if err != nil {
		return RNN{}, err
	}
	rows, cols := h.Dims()
	d, p := len(hc), hp.RawMatrix().Cols
	if rank < 1 || rank > min(rows, cols) {
		return RNN{}, &RankError{Rank: rank, Max: min(rows, cols), Basis: b}
	}
	var svd mat.SVD
	if !svd.Factorize(h, mat.SVDThin) {
		return RNN{}, errors.Errorf("spectral: SVD of the Hankel matrix of %v failed", b)
	}
	sv := svd.Values(nil)
	if sv[rank-1] <= float64(max(rows, cols))*eps*sv[0] || sv[rank-1] == 0 {
		return RNN{}, errors.Errorf("spectral: rank %d exceeds the numerical rank of the Hankel matrix of %v (singular value %d is %g, the largest %g)",
			rank, b, rank, sv[rank-1], sv[0])
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	vr := v.Slice(0, cols, 0, rank)
	pinv := mat.DenseCopyOf(u.Slice(0, rows, 0, rank).T())
	for k := range rank {
		row := pinv.RawRowView(k)
		for j := range row {
			row[j] /= sv[k]
		}
	}
	m := Zero(rank, d, p)
	mat.NewVecDense(rank, m.Alpha).MulVec(vr.T(), mat.NewVecDense(cols, heps))
	mat.NewDense(p, rank, m.Omega).Mul(hp.T(), pinv.T())
	left := mat.NewDense(rank, cols, nil)
	ac := mat.NewDense(rank, rank, nil)
	for c := range d {
		left.Mul(pinv, hc[c])
		ac.Mul(left, vr)
		for i := range rank {
			copy(m.A[(i*d+c)*rank:(i*d+c+1)*rank], ac.RawRowView(i))
		}
	}
	return m, nil
}
