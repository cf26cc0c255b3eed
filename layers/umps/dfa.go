package umps

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"
)

// This file goes beyond the paper: exact conditional sampling for any
// regex, ambiguous or not. The regex is determinised (position automaton,
// then subset construction) so that every string has exactly one path, and
// the transfer operators run on the product of the DFA states with the
// MPS: one D x D right environment X_q per live state q,
//
//	X_q = [q accepts] Q_r + sum_c A(c) X_{delta(q,c)} A(c)^T,
//
// a linear system of size (#states D^2), solved densely once.

// dfa is a trimmed deterministic automaton: next[q][c] is the state after
// reading c in q, or -1 when no accepted string continues that way.
type dfa struct {
	next   [][]int
	accept []bool
}

// newDFA determinises the position automaton of root over d symbols and
// drops the states from which no accepting state is reachable. It stops
// and returns nil once the subset construction passes maxStates states,
// so that a regex whose DFA explodes costs no more than that.
func newDFA(root *node, d, maxStates int) *dfa {
	g := newGlushkov(root)
	key := func(set []int) string { return fmt.Sprint(set) }
	sets := [][]int{{0}}
	index := map[string]int{key(sets[0]): 0}
	var next [][]int
	for i := 0; i < len(sets); i++ {
		row := make([]int, d)
		for c := 0; c < d; c++ {
			seen := map[int]bool{}
			for _, p := range sets[i] {
				for q := range g.follow[p] {
					if g.reads(q, c) {
						seen[q] = true
					}
				}
			}
			if len(seen) == 0 {
				row[c] = -1
				continue
			}
			set := make([]int, 0, len(seen))
			for q := range seen {
				set = append(set, q)
			}
			sort.Ints(set)
			k := key(set)
			j, ok := index[k]
			if !ok {
				if len(sets) >= maxStates {
					return nil
				}
				j = len(sets)
				index[k] = j
				sets = append(sets, set)
			}
			row[c] = j
		}
		next = append(next, row)
	}
	accept := make([]bool, len(sets))
	for i, set := range sets {
		for _, p := range set {
			accept[i] = accept[i] || g.accept[p]
		}
	}
	// Trim: a state is live if an accepting state is reachable from it.
	live := append([]bool(nil), accept...)
	for changed := true; changed; {
		changed = false
		for q, row := range next {
			for _, j := range row {
				if !live[q] && j >= 0 && live[j] {
					live[q], changed = true, true
				}
			}
		}
	}
	for _, row := range next {
		for c, j := range row {
			if j >= 0 && !live[j] {
				row[c] = -1
			}
		}
	}
	return &dfa{next: next, accept: accept}
}

// maxExactSystem bounds the size of the exact sampler's dense linear
// system (#states D^2 unknowns): 6,000 unknowns take about 290 MB.
const maxExactSystem = 6000

// ExactSampler draws from P_*(s | s in R) for any regex R, ambiguous or
// not, through the DFA of R; each matching string counts once.
type ExactSampler struct {
	t    *Transfer
	dfa  *dfa
	y    [][]Mat // y[q][c] = A(c) X_{delta(q,c)} A(c)^T
	qr   Mat
	logZ float64
}

// NewExactSampler determinises r and solves for the right environments
// of its states. It fails when the sum over the language diverges (the
// spectral radius of the product operator is not below 1) or the model
// gives the language no mass. Cost O((S D^2)^3) for S DFA states.
func (t *Transfer) NewExactSampler(r *Regex) (*ExactSampler, error) {
	if err := t.checkRegex(r); err != nil {
		return nil, err
	}
	D := t.m.Bond
	dd := D * D
	a := newDFA(r.root, t.m.Symbols, maxExactSystem/dd+1)
	if a == nil {
		return nil, errors.Errorf("umps: the regex has more than %d DFA states: the exact sampler's system would exceed %d unknowns at bond %d; use Algorithm 1 with an unambiguous regex", maxExactSystem/dd, maxExactSystem, D)
	}
	S := len(a.next)
	if S*dd > maxExactSystem {
		return nil, errors.Errorf("umps: regex %q has %d DFA states: the exact sampler's system would have %d unknowns (limit %d); use Algorithm 1 with an unambiguous regex", r.pattern, S, S*dd, maxExactSystem)
	}
	kron := make([][]float64, t.m.Symbols) // A(c) (x) A(c), row-major vec
	for c, m := range t.mats {
		k := make([]float64, dd*dd)
		for i := 0; i < D; i++ {
			for j := 0; j < D; j++ {
				for p := 0; p < D; p++ {
					for q := 0; q < D; q++ {
						k[(i*D+p)*dd+j*D+q] = m[i*D+j] * m[p*D+q]
					}
				}
			}
		}
		kron[c] = k
	}
	apply := func(in, out []float64) { // the product operator, without the identity
		for i := range out {
			out[i] = 0
		}
		for q, row := range a.next {
			for c, j := range row {
				if j < 0 {
					continue
				}
				for i := 0; i < dd; i++ {
					out[q*dd+i] += dot(kron[c][i*dd:(i+1)*dd], in[j*dd:(j+1)*dd])
				}
			}
		}
	}
	if rho := powerRadius(S, D, apply); rho >= rhoLimit {
		return nil, errors.Errorf("umps: the sum over regex %q diverges: the spectral radius of its transfer operator is %.6g >= 1", r.pattern, rho)
	}
	sys := mat.NewDense(S*dd, S*dd, nil)
	for q, row := range a.next {
		for i := 0; i < dd; i++ {
			sys.Set(q*dd+i, q*dd+i, 1)
		}
		for c, j := range row {
			if j < 0 {
				continue
			}
			for i := 0; i < dd; i++ {
				for k := 0; k < dd; k++ {
					sys.Set(q*dd+i, j*dd+k, sys.At(q*dd+i, j*dd+k)-kron[c][i*dd+k])
				}
			}
		}
	}
	_, qr := t.Boundaries()
	b := make([]float64, S*dd)
	for q, acc := range a.accept {
		if acc {
			copy(b[q*dd:], qr.Data)
		}
	}
	var x mat.VecDense
	if err := x.SolveVec(sys, mat.NewVecDense(S*dd, b)); err != nil {
		return nil, errors.Wrap(err, "umps: DFA transfer system")
	}
	xs := x.RawVector().Data
	s := &ExactSampler{t: t, dfa: a, y: make([][]Mat, S), qr: qr}
	for q, row := range a.next {
		s.y[q] = make([]Mat, len(row))
		for c, j := range row {
			if j >= 0 {
				xj := newMat(append([]float64(nil), xs[j*dd:(j+1)*dd]...), qr.Exp)
				s.y[q][c] = t.applySyms([]int{c}, xj, true)
			}
		}
	}
	s.logZ = newMat(append([]float64(nil), xs[:dd]...), qr.Exp).Log(t.m.Alpha)
	if math.IsInf(s.logZ, -1) || math.IsNaN(s.logZ) {
		return nil, errors.Errorf("umps: the model gives regex %q no mass", r.pattern)
	}
	return s, nil
}

// LogZ is log of the mass of the language of the regex, each string
// counted once (Z_R for an unambiguous regex).
func (s *ExactSampler) LogZ() float64 { return s.logZ }

// Sample draws count strings.
func (s *ExactSampler) Sample(count int, rng *rand.Rand) ([][]int, error) {
	if count < 0 || rng == nil {
		return nil, errors.New("umps: want count >= 0 and a random source")
	}
	out := make([][]int, count)
	d := s.t.m.Symbols
	w := make([]float64, d+1)
	for i := range out {
		ql, _ := s.t.Boundaries()
		str := []int{}
		q := 0
		for {
			w[d] = math.Inf(-1)
			if s.dfa.accept[q] {
				w[d] = logTr(ql, s.qr)
			}
			for c := 0; c < d; c++ {
				w[c] = math.Inf(-1)
				if s.dfa.next[q][c] >= 0 {
					w[c] = logTr(ql, s.y[q][c])
				}
			}
			c, err := choose(w, rng)
			if err != nil {
				return nil, err
			}
			if c == d {
				break
			}
			str = append(str, c)
			ql = s.t.applySyms([]int{c}, ql, false)
			q = s.dfa.next[q][c]
		}
		out[i] = str
	}
	return out, nil
}

// powerRadius estimates the spectral radius of a completely positive map
// on S blocks of D x D matrices by the power method from identity blocks,
// normalising by the total trace.
func powerRadius(S, D int, apply func(in, out []float64)) float64 {
	dd := D * D
	x := make([]float64, S*dd)
	for q := 0; q < S; q++ {
		for i := 0; i < D; i++ {
			x[q*dd+i*D+i] = 1
		}
	}
	y := make([]float64, len(x))
	trace := func(v []float64) float64 {
		s := 0.0
		for q := 0; q < S; q++ {
			for i := 0; i < D; i++ {
				s += v[q*dd+i*D+i]
			}
		}
		return s
	}
	prev := trace(x)
	est := math.NaN()
	for k := 1; k <= rhoMaxIter; k++ {
		apply(x, y)
		cur := trace(y)
		if !(cur > 0) {
			return 0
		}
		e := cur / prev
		if math.IsInf(e, 1) {
			return e
		}
		if k > 10 && math.Abs(e-est) <= rhoTol*e {
			return e
		}
		est = e
		for i := range y {
			y[i] /= cur
		}
		x, y = y, x
		prev = 1
	}
	return est
}
