package umps

import (
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
)

// MPS is a uniform matrix product state (u-MPS) over the symbols 0..d-1:
// the core A of shape (D, d, D) and the boundary vectors alpha and omega of
// length D define the amplitude
//
//	f(s) = alpha^T A(s_1) A(s_2) ... A(s_n) omega,   A(c) = A[:, c, :],
//
// Eq. (2) of the u-MPS paper, and the Born probability P(s) = f(s)^2 / Z
// (Section 3.1), with Z one of the normalisers Z_n, Z_* or Z_R.
//
// The fields may be set directly; every method validates them first
// (Validate) and returns an error rather than panicking.
//
// The methods of MPS other than ScaleToRadius only read it, so any number
// of goroutines may call them at once on a model that nothing changes;
// changing a field (or training the model) while another goroutine uses
// it is a data race.
// A Transfer built on the model is not safe for concurrent use: give
// each goroutine its own.
type MPS struct {
	// Bond is the bond dimension D >= 1.
	Bond int
	// Symbols is the alphabet size d >= 1.
	Symbols int
	// A is the core, row-major (D, d, D): A[(i*d+c)*D+j] = A(c)_{ij}.
	A []float64
	// Alpha and Omega are the left and right boundary vectors, length D.
	Alpha, Omega []float64
}

// Init selects how New fills the core.
type Init int

const (
	// NearIdentity sets every slice A(c) to the identity plus 1e-6 N(0, 1)
	// noise (the default of the paper's code).
	NearIdentity Init = iota
	// RandomNormal draws every core entry from N(0, 1/D).
	RandomNormal
)

// New returns a u-MPS of bond dimension bond over symbols symbols, its core
// initialised as init says and its boundary vectors drawn from N(0, 1).
func New(bond, symbols int, init Init, rng *rand.Rand) (*MPS, error) {
	if bond < 1 {
		return nil, errors.Errorf("umps: bond dimension %d, want >= 1", bond)
	}
	if symbols < 1 {
		return nil, errors.Errorf("umps: alphabet size %d, want >= 1", symbols)
	}
	if rng == nil {
		return nil, errors.New("umps: nil random source")
	}
	m := &MPS{Bond: bond, Symbols: symbols,
		A: make([]float64, bond*symbols*bond), Alpha: make([]float64, bond), Omega: make([]float64, bond)}
	switch init {
	case NearIdentity:
		for i := 0; i < bond; i++ {
			for c := 0; c < symbols; c++ {
				for j := 0; j < bond; j++ {
					v := 1e-6 * rng.NormFloat64()
					if i == j {
						v++
					}
					m.A[(i*symbols+c)*bond+j] = v
				}
			}
		}
	case RandomNormal:
		std := 1 / math.Sqrt(float64(bond))
		for k := range m.A {
			m.A[k] = std * rng.NormFloat64()
		}
	default:
		return nil, errors.Errorf("umps: unknown initialisation %d", init)
	}
	for i := 0; i < bond; i++ {
		m.Alpha[i] = rng.NormFloat64()
	}
	for i := 0; i < bond; i++ {
		m.Omega[i] = rng.NormFloat64()
	}
	return m, nil
}

// Validate returns an error naming the first field whose size is wrong or
// that holds a NaN or an infinity.
func (m *MPS) Validate() error {
	if m == nil {
		return errors.New("umps: nil model")
	}
	if m.Bond < 1 || m.Symbols < 1 {
		return errors.Errorf("umps: bond %d and alphabet size %d, want both >= 1", m.Bond, m.Symbols)
	}
	for _, f := range []struct {
		name string
		v    []float64
		n    int
	}{{"core", m.A, m.Bond * m.Symbols * m.Bond}, {"alpha", m.Alpha, m.Bond}, {"omega", m.Omega, m.Bond}} {
		if len(f.v) != f.n {
			return errors.Errorf("umps: %s has %d values, want %d", f.name, len(f.v), f.n)
		}
		for k, x := range f.v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return errors.Errorf("umps: %s holds %v at index %d", f.name, x, k)
			}
		}
	}
	return nil
}

// checkSeq returns an error if s holds a symbol outside 0..d-1.
func (m *MPS) checkSeq(s []int) error {
	for t, c := range s {
		if c < 0 || c >= m.Symbols {
			return errors.Errorf("umps: symbol %d at position %d is outside the alphabet 0..%d", c, t, m.Symbols-1)
		}
	}
	return nil
}

// Matrices returns the d slices A(c) of the core, each D x D row-major.
func (m *MPS) Matrices() [][]float64 {
	D, d := m.Bond, m.Symbols
	out := make([][]float64, d)
	for c := range out {
		a := make([]float64, D*D)
		for i := 0; i < D; i++ {
			copy(a[i*D:(i+1)*D], m.A[(i*d+c)*D:(i*d+c+1)*D])
		}
		out[c] = a
	}
	return out
}

// outer returns v v^T, D x D row-major.
func outer(v []float64) []float64 {
	n := len(v)
	q := make([]float64, n*n)
	for i := range v {
		for j := range v {
			q[i*n+j] = v[i] * v[j]
		}
	}
	return q
}
