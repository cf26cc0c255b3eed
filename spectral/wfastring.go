package spectral

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"
)

// Value returns the first output of the WFA on word,
// alpha^T A_{s_1} ... A_{s_k} omega, without checks or allocation beyond
// two state vectors: symbols must be in range (ValueChecked checks).
func (w WFA) Value(word []int) float64 {
	n := w.States
	row := append(make([]float64, 0, n), w.Alpha...)
	next := make([]float64, n)
	for _, s := range word {
		step(next, row, w.Trans[s])
		row, next = next, row
	}
	return dot(row, w.Omega[:n])
}

// step sets next to the row vector row times the n x n matrix a: each
// entry sums row[i] a[i, j] over i in order, skipping the i with row[i]
// = 0, four rows at a time where none of the four is zero (the same
// additions in the same order as one row at a time). Every product is
// rounded before its addition, never fused, so the bits do not depend on
// the instruction set the compiler targets.
func step(next, row, a []float64) {
	n := len(row)
	clear(next)
	i := 0
	for ; i+4 <= n; i += 4 {
		h0, h1, h2, h3 := row[i], row[i+1], row[i+2], row[i+3]
		if h0 == 0 || h1 == 0 || h2 == 0 || h3 == 0 {
			for k := i; k < i+4; k++ {
				stepRow(next, row[k], a[k*n:(k+1)*n])
			}
			continue
		}
		a0, a1, a2, a3 := a[i*n:(i+1)*n], a[(i+1)*n:(i+2)*n], a[(i+2)*n:(i+3)*n], a[(i+3)*n:(i+4)*n]
		a0, a1, a2, a3 = a0[:len(next)], a1[:len(next)], a2[:len(next)], a3[:len(next)]
		for j := range next {
			next[j] = next[j] + float64(h0*a0[j]) + float64(h1*a1[j]) + float64(h2*a2[j]) + float64(h3*a3[j])
		}
	}
	for ; i < n; i++ {
		stepRow(next, row[i], a[i*n:(i+1)*n])
	}
}

// stepRow adds h times the matrix row ai to next, unless h is 0.
func stepRow(next []float64, h float64, ai []float64) {
	if h == 0 {
		return
	}
	ai = ai[:len(next)]
	for j, v := range ai {
		next[j] += float64(h * v)
	}
}

// Words is a set of strings prepared for WFA.Values: their order sorted
// lexicographically and, in that order, the length of the prefix each
// shares with the one before.
type Words struct {
	seqs   [][]int
	order  []int
	shared []int
	maxLen int
}

// NewWords prepares seqs (kept, not copied) for WFA.Values.
func NewWords(seqs [][]int) *Words {
	ws := &Words{seqs: seqs, order: make([]int, len(seqs)), shared: make([]int, len(seqs))}
	for i, s := range seqs {
		ws.order[i] = i
		ws.maxLen = max(ws.maxLen, len(s))
	}
	slices.SortStableFunc(ws.order, func(a, b int) int { return slices.Compare(seqs[a], seqs[b]) })
	for k := 1; k < len(ws.order); k++ {
		a, b := seqs[ws.order[k-1]], seqs[ws.order[k]]
		l := 0
		for l < min(len(a), len(b)) && a[l] == b[l] {
			l++
		}
		ws.shared[k] = l
	}
	return ws
}

// Values returns w.Value of every string of ws, in the order they were
// given, bit for bit: the strings are read in lexicographic order, and
// the state vector after each prefix is computed once and kept while the
// next strings share that prefix. Symbols must be in range.
func (w WFA) Values(ws *Words) []float64 {
	n := w.States
	out := make([]float64, len(ws.seqs))
	// rows[t] is the state vector after the current string's first t
	// symbols.
	rows := make([][]float64, ws.maxLen+1)
	for t := range rows {
		rows[t] = make([]float64, n)
	}
	copy(rows[0], w.Alpha)
	for k, i := range ws.order {
		s := ws.seqs[i]
		for t := ws.shared[k]; t < len(s); t++ {
			step(rows[t+1], rows[t], w.Trans[s[t]])
		}
		out[i] = dot(rows[len(s)], w.Omega[:n])
	}
	return out
}

// ValueChecked is Value with a range check of the symbols.
func (w WFA) ValueChecked(word []int) (float64, error) {
	for t, s := range word {
		if s < 0 || s >= len(w.Trans) {
			return math.NaN(), errors.Errorf("spectral: WFA symbol %d at position %d out of range [0, %d)", s, t, len(w.Trans))
		}
	}
	return w.Value(word), nil
}

// TransSum returns S = sum_s A_s (n x n).
func (w WFA) TransSum() *mat.Dense {
	s := mat.NewDense(w.States, w.States, nil)
	for _, a := range w.Trans {
		s.Add(s, mat.NewDense(w.States, w.States, a))
	}
	return s
}

// SpectralRadius returns the largest modulus of an eigenvalue of S. The
// series sum_x f(x) = alpha^T (I - S)^-1 omega converges for every alpha and
// omega exactly when it is below 1; an automaton whose radius is >= 1 can
// give unbounded values to long strings.
func (w WFA) SpectralRadius() (float64, error) {
	var e mat.Eigen
	if !e.Factorize(w.TransSum(), mat.EigenNone) {
		return math.NaN(), errors.New("spectral: eigenvalues did not converge")
	}
	r := 0.0
	for _, v := range e.Values(nil) {
		r = max(r, cmplx.Abs(v))
	}
	return r, nil
}

// Mass returns sum over all strings x of f(x) = alpha^T (I - S)^-1 omega
// (the normaliser Z of a probabilistic automaton, 1 for an exact one). It
// is meaningful only when SpectralRadius is below 1; it fails when I - S
// is singular.
func (w WFA) Mass() (float64, error) {
	beta, err := w.Stop()
	if err != nil {
		return math.NaN(), err
	}
	return dot(w.Alpha, beta), nil
}

// Stop returns beta = (I - S)^-1 omega: beta's product with the state
// alpha^T A_u is the total value of the strings that begin with u.
func (w WFA) Stop() ([]float64, error) {
	n := w.States
	ims := w.TransSum()
	ims.Scale(-1, ims)
	for i := range n {
		ims.Set(i, i, ims.At(i, i)+1)
	}
	var b mat.VecDense
	if err := b.SolveVec(ims, mat.NewVecDense(n, append([]float64(nil), w.Omega[:n]...))); err != nil {
		return nil, errors.Errorf("spectral: the automaton has no next-symbol distribution: I minus the sum of its transitions is singular (%v)", err)
	}
	return b.RawVector().Data, nil
}

// NextSymbol returns the next-symbol distribution after the prefix: entry s
// (s < number of symbols) is the probability that s comes next and the last
// entry that the string ends, computed from the state h = alpha^T A_prefix
// as h A_s beta and h omega, with beta from Stop. Negative values are set to
// 0 and the rest normalised; when nothing positive is left the
// distribution is uniform. beta must come from Stop.
func (w WFA) NextSymbol(prefix []int, beta []float64) []float64 {
	n := w.States
	h := append(make([]float64, 0, n), w.Alpha...)
	next := make([]float64, n)
	for _, s := range prefix {
		clear(next)
		a := w.Trans[s]
		for i, v := range h {
			for j, x := range a[i*n : (i+1)*n] {
				next[j] += v * x
			}
		}
		h, next = next, h
	}
	p := make([]float64, len(w.Trans)+1)
	ab := make([]float64, n)
	for s, a := range w.Trans {
		mat.NewVecDense(n, ab).MulVec(mat.NewDense(n, n, a), mat.NewVecDense(n, beta))
		p[s] = dot(h, ab)
	}
	p[len(w.Trans)] = dot(h, w.Omega[:n])
	sum := 0.0
	for i, v := range p {
		p[i] = max(v, 0)
		sum += p[i]
	}
	for i := range p {
		if sum > 0 {
			p[i] /= sum
		} else {
			p[i] = 1 / float64(len(p))
		}
	}
	return p
}

// Sample draws a string from the automaton read as a distribution, one
// symbol at a time from NextSymbol, stopping at the end symbol or at
// maxLen symbols.
func (w WFA) Sample(rng *rand.Rand, maxLen int) ([]int, error) {
	beta, err := w.Stop()
	if err != nil {
		return nil, err
	}
	var s []int
	for len(s) < maxLen {
		p := w.NextSymbol(s, beta)
		u, c := rng.Float64(), 0
		for c < len(p)-1 && u >= p[c] {
			u -= p[c]
			c++
		}
		if c == len(w.Trans) {
			break
		}
		s = append(s, c)
	}
	return s, nil
}
