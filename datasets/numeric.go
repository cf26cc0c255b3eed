package datasets

import (
	"errors"
	"math"
	"math/rand/v2"
)

// categorical draws an index from the distribution p (entries >= 0, sum 1).
func categorical(rng *rand.Rand, p []float64) int {
	u := rng.Float64()
	last := 0
	for i, x := range p {
		if x <= 0 {
			continue
		}
		if u < x {
			return i
		}
		u -= x
		last = i
	}
	// Rounding left u just above the total: take the last possible index.
	return last
}

// dirichlet draws a symmetric Dirichlet(alpha, ..., alpha) vector of length
// n by normalising n Gamma(alpha, 1) draws.
func dirichlet(rng *rand.Rand, alpha float64, n int) []float64 {
	p := make([]float64, n)
	sum := 0.0
	for i := range p {
		p[i] = gammaSample(rng, alpha)
		sum += p[i]
	}
	if sum == 0 {
		// Every draw underflowed (tiny alpha): the alpha -> 0 limit is a
		// point mass on a uniformly chosen index.
		p[rng.IntN(n)] = 1
		return p
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// gammaSample draws from Gamma(alpha, 1) by Marsaglia and Tsang's method
// ("A simple method for generating gamma variables", ACM TOMS 2000), with
// the boost Gamma(alpha) = Gamma(alpha+1) * U^(1/alpha) for alpha < 1.
func gammaSample(rng *rand.Rand, alpha float64) float64 {
	if alpha < 1 {
		u := rng.Float64()
		return gammaSample(rng, alpha+1) * math.Pow(u, 1/alpha)
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// errSingular reports a (numerically) singular linear system.
var errSingular = errors.New("datasets: singular linear system")

// singularTol is the smallest pivot magnitude solve accepts. The systems
// solved here have entries in [-1, 1], so a smaller pivot means rank
// deficiency rather than bad scaling.
const singularTol = 1e-13

// solve solves the n x n system held in the augmented n x (n+1) matrix m
// by Gaussian elimination with partial pivoting; m is overwritten.
func solve(m [][]float64) ([]float64, error) {
	n := len(m)
	for k := range n {
		p := k
		for i := k + 1; i < n; i++ {
			if math.Abs(m[i][k]) > math.Abs(m[p][k]) {
				p = i
			}
		}
		if math.Abs(m[p][k]) < singularTol {
			return nil, errSingular
		}
		m[k], m[p] = m[p], m[k]
		for i := k + 1; i < n; i++ {
			f := m[i][k] / m[k][k]
			if f == 0 {
				continue
			}
			for j := k; j <= n; j++ {
				m[i][j] -= f * m[k][j]
			}
		}
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := m[i][n]
		for j := i + 1; j < n; j++ {
			s -= m[i][j] * x[j]
		}
		x[i] = s / m[i][i]
	}
	return x, nil
}
