package pfa

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/spectral"
)

// suffixMetric maps predictive states into a space where their Euclidean
// distance is the distance between the distributions they predict: with
// v_s = A_s beta for every string s of length 1 to length (the
// probability of s as the next symbols is h . v_s) and v = omega (of
// stopping now), G = sum v v^T, and each state x becomes R^T x with
// G = R R^T (Cholesky, G first made positive definite by a ridge of 1e-9
// times its trace). feat holds k values per node and is transformed in
// place. It returns false (feat unchanged) when the factorisation fails.
func suffixMetric(w spectral.WFA, beta, feat []float64, length int) bool {
	k := w.States
	g := mat.NewSymDense(k, nil)
	add := func(v []float64) {
		g.SymRankOne(g, 1, mat.NewVecDense(k, v))
	}
	add(append([]float64(nil), w.Omega[:k]...))
	level := [][]float64{beta}
	for l := 1; l <= length; l++ {
		var next [][]float64
		for _, v := range level {
			for _, a := range w.Trans {
				u := make([]float64, k)
				for i := range k {
					s := 0.0
					for j, x := range a[i*k : (i+1)*k] {
						s += x * v[j]
					}
					u[i] = s
				}
				add(u)
				next = append(next, u)
			}
		}
		level = next
	}
	tr := 0.0
	for i := range k {
		tr += g.At(i, i)
	}
	if !(tr > 0) || math.IsInf(tr, 0) {
		return false
	}
	for i := range k {
		g.SetSym(i, i, g.At(i, i)+1e-9*tr)
	}
	var ch mat.Cholesky
	if !ch.Factorize(g) {
		return false
	}
	var r mat.TriDense
	ch.LTo(&r)
	out := make([]float64, k)
	for u := 0; u < len(feat)/k; u++ {
		x := feat[u*k : (u+1)*k]
		for j := range k {
			s := 0.0
			for i := j; i < k; i++ {
				s += r.At(i, j) * x[i]
			}
			out[j] = s
		}
		copy(x, out)
	}
	return true
}
