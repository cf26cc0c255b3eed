package umps

import (
	"math"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"
)

// This file holds the transfer-operator algebra of Table 1: each regex R has
// a right operator E^r_R(Q) = sum_{s in R} A(s) Q A(s)^T and a left
// operator E^l_R(Q) = sum_{s in R} A(s)^T Q A(s) (Eq. 5), computed
// recursively on R. In the row-major vectorisation both are D^2 x D^2
// matrices, M_R and its transpose; a Kleene closure S* is the solution of
// (I - M_S) X = Q, which needs the spectral radius of E_S below 1: a dense
// LU factorisation of I - M_S below iterativeMinBond, gmres (krylov.go)
// from it on.

// Mat is a D x D matrix held as Data 2^Exp, Data row-major and rescaled so
// that its largest magnitude lies in [0.5, 1); Zero marks the zero matrix.
// The exponent keeps transfer operators of long regexes finite.
type Mat struct {
	Data []float64
	Exp  int
	Zero bool
}

// Log returns log(x^T M x) for the vector x (a boundary vector), -Inf when
// it is not positive.
func (q Mat) Log(x []float64) float64 {
	if q.Zero {
		return math.Inf(-1)
	}
	v := q.quad(x)
	if !(v > 0) {
		return math.Inf(-1)
	}
	return math.Log(v) + float64(q.Exp)*ln2
}

// newMat rescales data (taken over) into a Mat.
func newMat(data []float64, exp int) Mat {
	e, ok := normalise(data)
	if !ok {
		return Mat{Data: data, Zero: true}
	}
	return Mat{Data: data, Exp: exp + e}
}

// Transfer evaluates compiled regexes for one model, caching the linear
// systems of the Kleene closures. It is not safe for concurrent use; the
// model must not change while a Transfer is in use.
type Transfer struct {
	m     *MPS
	mats  [][]float64
	stars map[*node]*starSys
	star  *node // Sigma*, built on first use
	memo  map[memoKey]Mat
	syms  []*node // one node per symbol, built on first use
}

// starSys is the system I - M_S of a closure S*: factorised, or solved
// by gmres when iterative is set (bond dimensions from iterativeMinBond).
type starSys struct {
	lu        mat.LU
	rho       float64
	iterative bool
}

// NewTransfer validates m and returns an evaluator for it.
func NewTransfer(m *MPS) (*Transfer, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &Transfer{m: m, mats: m.Matrices(), stars: map[*node]*starSys{}}, nil
}

// Right returns E^r_R(q), Table 1's right transfer operator of r.
func (t *Transfer) Right(r *Regex, q Mat) (Mat, error) {
	if err := t.checkRegex(r); err != nil {
		return Mat{}, err
	}
	return t.apply(r.root, q, true)
}

// Left returns E^l_R(q), Table 1's left transfer operator of r.
func (t *Transfer) Left(r *Regex, q Mat) (Mat, error) {
	if err := t.checkRegex(r); err != nil {
		return Mat{}, err
	}
	return t.apply(r.root, q, false)
}

func (t *Transfer) checkRegex(r *Regex) error {
	if r == nil {
		return errors.New("umps: nil regex")
	}
	if len(r.alphabet) != t.m.Symbols {
		return errors.Errorf("umps: regex %q is over %d symbols, the model has %d", r.pattern, len(r.alphabet), t.m.Symbols)
	}
	return nil
}

// Boundaries returns Q_l = alpha alpha^T and Q_r = omega omega^T.
func (t *Transfer) Boundaries() (ql, qr Mat) {
	return newMat(outer(t.m.Alpha), 0), newMat(outer(t.m.Omega), 0)
}

// LogZ returns log Z_R = log Tr(Q_l E^r_R(Q_r)) with the model's boundary
// matrices (Section 4): the unnormalised probability mass of the strings
// matching r, each counted once when r is unambiguous and once per match
// otherwise.
func (t *Transfer) LogZ(r *Regex) (float64, error) {
	_, qr := t.Boundaries()
	q, err := t.Right(r, qr)
	if err != nil {
		return 0, err
	}
	return q.Log(t.m.Alpha), nil
}

// apply is E^r_n(q) (right) or E^l_n(q).
func (t *Transfer) apply(n *node, q Mat, right bool) (Mat, error) {
	if q.Zero {
		return q, nil
	}
	switch n.kind {
	case kindEps:
		return q, nil
	case kindSym:
		return t.applySyms(n.syms, q, right), nil
	case kindCat:
		var err error
		for i := range n.subs {
			k := i
			if right {
				k = len(n.subs) - 1 - i
			}
			if q, err = t.apply(n.subs[k], q, right); err != nil {
				return Mat{}, err
			}
		}
		return q, nil
	case kindAlt:
		parts := make([]Mat, len(n.subs))
		for i, s := range n.subs {
			p, err := t.apply(s, q, right)
			if err != nil {
				return Mat{}, err
			}
			parts[i] = p
		}
		return addMats(parts), nil
	}
	return t.applyStar(n, q, right)
}

// applySyms is sum_{c in syms} A_c q A_c^T (right) or A_c^T q A_c (left).
func (t *Transfer) applySyms(syms []int, q Mat, right bool) Mat {
	D := t.m.Bond
	out := make([]float64, D*D)
	tmp := make([]float64, D*D)
	for _, c := range syms {
		a := t.mats[c]
		if right {
			mm(D, false, false, 1, a, q.Data, 0, tmp)
			mm(D, false, true, 1, tmp, a, 1, out)
		} else {
			mm(D, true, false, 1, a, q.Data, 0, tmp)
			mm(D, false, false, 1, tmp, a, 1, out)
		}
	}
	return newMat(out, q.Exp)
}

// addMats sums scaled matrices of equal size.
func addMats(ps []Mat) Mat {
	e, found := 0, false
	for _, p := range ps {
		if !p.Zero && (!found || p.Exp > e) {
			e, found = p.Exp, true
		}
	}
	if !found {
		return ps[0]
	}
	out := make([]float64, len(ps[0].Data))
	for _, p := range ps {
		if p.Zero || p.Exp-e < -1100 {
			continue
		}
		s := math.Ldexp(1, p.Exp-e)
		for i, v := range p.Data {
			out[i] += s * v
		}
	}
	return newMat(out, e)
}

// applyStar solves (I - M_S) X = q for the right operator, or its
// transpose for the left one.
func (t *Transfer) applyStar(n *node, q Mat, right bool) (Mat, error) {
	sys, err := t.starSystem(n)
	if err != nil {
		return Mat{}, err
	}
	if sys.iterative {
		return t.solveStar(n.subs[0], q, right)
	}
	D := t.m.Bond
	x := mat.NewVecDense(D*D, nil)
	if err := sys.lu.SolveVecTo(x, !right, mat.NewVecDense(D*D, append([]float64(nil), q.Data...))); err != nil {
		return Mat{}, errors.Wrap(err, "umps: Kleene closure system")
	}
	return newMat(append([]float64(nil), x.RawVector().Data...), q.Exp), nil
}

// Spectral radius estimation: the power method on a completely positive
// map started at the identity (the Perron eigenvector of a CP map is
// positive semidefinite, so the identity has a component along it).
const (
	rhoMaxIter = 20000 // iterations at most
	rhoTol     = 1e-12 // relative change of the estimate that stops it
	rhoLimit   = 1 - 1e-9
)

// SpectralRadius estimates the spectral radius of E^r_R by the power
// method. It fails only for a regex over another alphabet.
func (t *Transfer) SpectralRadius(r *Regex) (float64, error) {
	if err := t.checkRegex(r); err != nil {
		return 0, err
	}
	return t.spectralRadius(r.root)
}

func (t *Transfer) spectralRadius(n *node) (float64, error) {
	var err error
	rho := powerRadius(1, t.m.Bond, func(in, out []float64) {
		if err != nil {
			return
		}
		var q Mat
		if q, err = t.apply(n, Mat{Data: append([]float64(nil), in...)}, true); err != nil {
			return
		}
		s := 0.0
		if !q.Zero {
			s = math.Ldexp(1, q.Exp)
		}
		for i, v := range q.Data {
			out[i] = s * v
		}
	})
	return rho, err
}

// starSystem returns the cached system I - M_S for the closure
// n = S*, after checking that the sum converges: first by the bound
// rho(E_S) <= ||E_S(I)|| of a completely positive map (X <= ||X|| I gives
// E_S(X) <= ||X|| E_S(I)), which holds for every contracted core
// (ContractCore), then, when the bound is not below one, by the power
// method. From iterativeMinBond on, the system is left unfactorised and
// each solve runs gmres.
func (t *Transfer) starSystem(n *node) (*starSys, error) {
	if sys, ok := t.stars[n]; ok {
		return sys, nil
	}
	s := n.subs[0]
	if s.nullable() {
		return nil, errors.New("umps: a Kleene closure S* whose S matches the empty string diverges (S* is ambiguous)")
	}
	rho, err := t.radiusBound(s)
	if err != nil {
		return nil, err
	}
	if rho >= rhoLimit {
		if rho, err = t.spectralRadius(s); err != nil {
			return nil, err
		}
	}
	if rho >= rhoLimit {
		return nil, errors.Errorf("umps: a Kleene closure diverges: the spectral radius of its transfer operator is %.6g >= 1", rho)
	}
	D := t.m.Bond
	if D >= iterativeMinBond {
		sys := &starSys{rho: rho, iterative: true}
		t.stars[n] = sys
		return sys, nil
	}
	dd := D * D
	a := mat.NewDense(dd, dd, nil)
	if s.kind == kindSym {
		// M_S[(i,j),(k,l)] = sum_{c in S} A_c[i,k] A_c[j,l].
		row := a.RawMatrix().Data
		for _, c := range s.syms {
			m := t.mats[c]
			for i := 0; i < D; i++ {
				for j := 0; j < D; j++ {
					r := row[(i*D+j)*dd : (i*D+j+1)*dd]
					aj := m[j*D : (j+1)*D]
					for k := 0; k < D; k++ {
						f := m[i*D+k]
						if f == 0 {
							continue
						}
						rk := r[k*D : (k+1)*D]
						for l, v := range aj {
							rk[l] += f * v
						}
					}
				}
			}
		}
		for i := range row {
			row[i] = -row[i]
		}
	} else {
		for k := 0; k < dd; k++ {
			basis := make([]float64, dd)
			basis[k] = 1
			col, err := t.apply(s, Mat{Data: basis}, true)
			if err != nil {
				return nil, err
			}
			sc := 0.0
			if !col.Zero {
				sc = math.Ldexp(1, col.Exp)
			}
			for i := 0; i < dd; i++ {
				a.Set(i, k, -sc*col.Data[i])
			}
		}
	}
	for k := 0; k < dd; k++ {
		a.Set(k, k, a.At(k, k)+1)
	}
	sys := &starSys{rho: rho}
	sys.lu.Factorize(a)
	t.stars[n] = sys
	return sys, nil
}

// radiusBound is ||E^r_S(I)||, the largest eigenvalue of the positive
// semidefinite E^r_S(I), an upper bound on the spectral radius of E^r_S.
func (t *Transfer) radiusBound(s *node) (float64, error) {
	D := t.m.Bond
	id := make([]float64, D*D)
	for i := 0; i < D; i++ {
		id[i*D+i] = 1
	}
	q, err := t.apply(s, Mat{Data: id}, true)
	if err != nil || q.Zero {
		return 0, err
	}
	sym := mat.NewSymDense(D, nil)
	for i := 0; i < D; i++ {
		for j := i; j < D; j++ {
			sym.SetSym(i, j, (q.Data[i*D+j]+q.Data[j*D+i])/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, false) {
		return math.Inf(1), nil
	}
	vals := eig.Values(nil)
	return math.Ldexp(vals[len(vals)-1], q.Exp), nil
}
