package umps

import (
	"math"
	"strings"

	"github.com/pkg/errors"
)

// LogZn returns log Z_n for n = 0..maxN, Eq. (3)-(4): Z_n = Tr(Q_l
// (E^r)^n(Q_r)) with Q_l = alpha alpha^T, Q_r = omega omega^T and the
// transfer operator E^r(Q) = sum_c A(c) Q A(c)^T. Each application is
// divided by its trace and the log traces are accumulated, so all lengths
// come out of one sweep of cost O(maxN d D^3) without overflow. A length
// whose Z_n is zero gives -Inf.
func (m *MPS) LogZn(maxN int) ([]float64, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if maxN < 0 {
		return nil, errors.Errorf("umps: maximum length %d, want >= 0", maxN)
	}
	D := m.Bond
	mats := m.Matrices()
	q := outer(m.Omega)
	next := make([]float64, D*D)
	tmp := make([]float64, D*D)
	out := make([]float64, maxN+1)
	acc := 0.0
	for n := 0; n <= maxN; n++ {
		if n > 0 {
			for i := range next {
				next[i] = 0
			}
			for _, a := range mats {
				mm(D, false, false, 1, a, q, 0, tmp)
				mm(D, false, true, 1, tmp, a, 1, next)
			}
			q, next = next, q
		}
		tr := 0.0
		for i := 0; i < D; i++ {
			tr += q[i*D+i]
		}
		if !(tr > 0) {
			for k := n; k <= maxN; k++ {
				out[k] = math.Inf(-1)
			}
			return out, nil
		}
		for i := range q {
			q[i] /= tr
		}
		acc += math.Log(tr)
		out[n] = Mat{Data: q}.Log(m.Alpha) + acc
	}
	return out, nil
}

// allSymbols is the regex Sigma (any one symbol) of a d-symbol alphabet.
func allSymbols(d int) *node {
	syms := make([]int, d)
	for i := range syms {
		syms[i] = i
	}
	return &node{kind: kindSym, syms: syms}
}

// sigmaStar is the regex Sigma* for t's model, built once per Transfer.
func (t *Transfer) sigmaStar() *node {
	if t.star == nil {
		t.star = &node{kind: kindStar, subs: []*node{allSymbols(t.m.Symbols)}}
	}
	return t.star
}

// LogZStar returns log Z_*, the sum of Z_n over all lengths n >= 0
// (Section 3.1), as Tr(Q_l Q*) with (I - E^r) Q* = Q_r solved as a
// D^2 x D^2 linear system (Table 1, Kleene closure of Sigma; by gmres
// from iterativeMinBond on). It fails
// when the spectral radius of E^r is not below 1, where the sum diverges.
func (t *Transfer) LogZStar() (float64, error) {
	_, qr := t.Boundaries()
	q, err := t.apply(t.sigmaStar(), qr, true)
	if err != nil {
		return 0, errors.Errorf("umps: Z_* (the sum over all lengths) cannot be computed: %s", strings.TrimPrefix(err.Error(), "umps: "))
	}
	return q.Log(t.m.Alpha), nil
}

// LogProbRegex returns log P_*(s in R) = log Z_R - log Z_* (Section 4).
func (t *Transfer) LogProbRegex(r *Regex) (float64, error) {
	lr, err := t.LogZ(r)
	if err != nil {
		return 0, err
	}
	ls, err := t.LogZStar()
	if err != nil {
		return 0, err
	}
	return lr - ls, nil
}

// LogProbN returns log P_n(s) = 2 log|f(s)| - log Z_n with n = len(s),
// the per-length Born probability (Section 3.1), in nats.
func (m *MPS) LogProbN(s []int) (float64, error) {
	lp, err := m.LogProbsN([][]int{s})
	if err != nil {
		return 0, err
	}
	return lp[0], nil
}

// LogProbsN evaluates LogProbN for a batch, computing Z_n once.
func (m *MPS) LogProbsN(seqs [][]int) ([]float64, error) {
	la, _, err := m.LogAmplitudes(seqs)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, s := range seqs {
		n = max(n, len(s))
	}
	lz, err := m.LogZn(n)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(seqs))
	for b, s := range seqs {
		if math.IsInf(lz[len(s)], -1) {
			return nil, errors.Errorf("umps: Z_%d is zero: the model gives no mass to length %d", len(s), len(s))
		}
		out[b] = 2*la[b] - lz[len(s)]
	}
	return out, nil
}

// LogProbStar returns log P_*(s) = 2 log|f(s)| - log Z_*, the probability
// of s among strings of every length (Section 3.1), in nats.
func (t *Transfer) LogProbStar(s []int) (float64, error) {
	la, _, err := t.m.LogAmplitude(s)
	if err != nil {
		return 0, err
	}
	lz, err := t.LogZStar()
	if err != nil {
		return 0, err
	}
	if math.IsInf(lz, -1) {
		return 0, errors.New("umps: Z_* is zero")
	}
	return 2*la - lz, nil
}

// LogProbsStar evaluates log P_*(s) for a batch, solving for Z_* once.
func (m *MPS) LogProbsStar(seqs [][]int) ([]float64, error) {
	la, _, err := m.LogAmplitudes(seqs)
	if err != nil {
		return nil, err
	}
	t, err := NewTransfer(m)
	if err != nil {
		return nil, err
	}
	lz, err := t.LogZStar()
	if err != nil {
		return nil, err
	}
	if math.IsInf(lz, -1) {
		return nil, errors.New("umps: Z_* is zero")
	}
	out := make([]float64, len(seqs))
	for b := range seqs {
		out[b] = 2*la[b] - lz
	}
	return out, nil
}

// ScaleToRadius multiplies the core by a constant so that the spectral
// radius of the transfer operator E^r becomes rho (E is quadratic in the
// core), so that Z_* exists when rho < 1 (the near-identity
// initialisation has rho close to d).
func (m *MPS) ScaleToRadius(rho float64) error {
	if !(rho > 0) || math.IsInf(rho, 0) {
		return errors.Errorf("umps: target spectral radius %v, want a positive number", rho)
	}
	t, err := NewTransfer(m)
	if err != nil {
		return err
	}
	r, err := t.spectralRadius(allSymbols(m.Symbols))
	if err != nil {
		return err
	}
	if !(r > 0) {
		return errors.New("umps: the transfer operator is nilpotent; cannot rescale")
	}
	s := math.Sqrt(rho / r)
	for i := range m.A {
		m.A[i] *= s
	}
	return nil
}
