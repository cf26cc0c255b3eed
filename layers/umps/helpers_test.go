package umps

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// testModel returns a random u-MPS whose transfer operator E has spectral
// radius rho (the core is rescaled, E being quadratic in it).
func testModel(t *testing.T, bond, symbols int, rho float64, seed uint64) *MPS {
	t.Helper()
	m, err := New(bond, symbols, RandomNormal, rand.New(rand.NewPCG(seed, 7)))
	if err != nil {
		t.Fatal(err)
	}
	r := exactRho(m)
	s := math.Sqrt(rho / r)
	for i := range m.A {
		m.A[i] *= s
	}
	return m
}

// exactRho is the spectral radius of sum_c A_c (x) A_c from a dense
// eigendecomposition, the reference for the power method.
func exactRho(m *MPS) float64 {
	D := m.Bond
	e := mat.NewDense(D*D, D*D, nil)
	for _, a := range m.Matrices() {
		for i := 0; i < D; i++ {
			for j := 0; j < D; j++ {
				for k := 0; k < D; k++ {
					for l := 0; l < D; l++ {
						e.Set(i*D+k, j*D+l, e.At(i*D+k, j*D+l)+a[i*D+j]*a[k*D+l])
					}
				}
			}
		}
	}
	var eig mat.Eigen
	if !eig.Factorize(e, mat.EigenNone) {
		panic("eigen failed")
	}
	r := 0.0
	for _, v := range eig.Values(nil) {
		r = math.Max(r, math.Hypot(real(v), imag(v)))
	}
	return r
}

// enumerate calls f(s, amplitude) for every string of length 0..maxLen,
// computing the amplitude without any rescaling (the naive Eq. 2).
func enumerate(m *MPS, maxLen int, f func(s []int, amp float64)) {
	mats := m.Matrices()
	D := m.Bond
	var rec func(s []int, h []float64)
	rec = func(s []int, h []float64) {
		f(s, dot(h, m.Omega))
		if len(s) == maxLen {
			return
		}
		for c := 0; c < m.Symbols; c++ {
			next := make([]float64, D)
			for j := 0; j < D; j++ {
				for i := 0; i < D; i++ {
					next[j] += h[i] * mats[c][i*D+j]
				}
			}
			rec(append(s[:len(s):len(s)], c), next)
		}
	}
	rec(nil, append([]float64(nil), m.Alpha...))
}

// relErr is |a-b| / max(|a|, |b|, tiny).
func relErr(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300)
}
