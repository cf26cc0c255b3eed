package umps

import (
	"math"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// This file holds the iterative solve of a Kleene closure's system
// (I - E_S)(X) = Q for large bond dimensions: restarted GMRES on the
// D^2-vector X, which needs only the map X -> E_S(X) (O(d D^3) for
// S = Sigma) instead of the O(D^6) factorisation of the D^2 x D^2 matrix.

// iterativeMinBond is the bond dimension from which Kleene closures are
// solved by GMRES rather than by a dense LU factorisation.
var iterativeMinBond = 24

const (
	gmresRestart = 60    // Krylov basis size before a restart
	gmresMaxIter = 3000  // operator applications at most
	gmresTol     = 1e-14 // relative residual ||Q - (I - E)(X)|| / ||Q|| that stops it
	// gmresStallTol is the relative residual accepted once a whole
	// restart cycle no longer halves it: the floor set by rounding in E,
	// should it lie above gmresTol.
	gmresStallTol = 1e-12
)

// gmres solves x - op(x) = b by restarted GMRES from x = 0, with classical
// Gram-Schmidt applied twice (as stable as modified Gram-Schmidt with
// reorthogonalisation, and two matrix-vector products per pass).
// op(in, out) writes the operator's image of in into out. It returns an
// error when the relative residual has not reached gmresTol (or
// gmresStallTol at a stall) after gmresMaxIter applications of op.
func gmres(b []float64, op func(in, out []float64) error) ([]float64, error) {
	n := len(b)
	x := make([]float64, n)
	bnorm := norm2(b)
	if bnorm == 0 {
		return x, nil
	}
	m := gmresRestart
	if m > n {
		m = n
	}
	vdata := make([]float64, (m+1)*n) // the Krylov basis, one vector per row
	v := make([][]float64, m+1)
	for i := range v {
		v[i] = vdata[i*n : (i+1)*n]
	}
	h := make([]float64, (m+1)*m) // Hessenberg, column-major: h[j*(m+1)+i]
	cs := make([]float64, m)
	sn := make([]float64, m)
	g := make([]float64, m+1)
	y := make([]float64, m)
	proj := make([]float64, m+1)
	w := make([]float64, n)
	r := make([]float64, n)
	residual := func() (float64, error) {
		if err := op(x, w); err != nil {
			return 0, err
		}
		for i := range r {
			r[i] = b[i] - (x[i] - w[i])
		}
		return norm2(r), nil
	}
	copy(r, b)
	rnorm := bnorm
	prev := math.Inf(1)
	iters := 0
	for iters < gmresMaxIter {
		if rnorm <= gmresTol*bnorm {
			return x, nil
		}
		if rnorm <= gmresStallTol*bnorm && rnorm > 0.5*prev {
			return x, nil
		}
		prev = rnorm
		for i, ri := range r {
			v[0][i] = ri / rnorm
		}
		for i := range g {
			g[i] = 0
		}
		g[0] = rnorm
		k := 0
		for k < m && iters < gmresMaxIter {
			if err := op(v[k], w); err != nil {
				return nil, err
			}
			iters++
			for i := range w {
				w[i] = v[k][i] - w[i]
			}
			col := h[k*(m+1) : (k+1)*(m+1)]
			for i := range col {
				col[i] = 0
			}
			basis := blas64.General{Rows: k + 1, Cols: n, Stride: n, Data: vdata[:(k+1)*n]}
			for pass := 0; pass < 2; pass++ {
				blas64.Gemv(blas.NoTrans, 1, basis, vec(w), 0, vec(proj[:k+1]))
				blas64.Gemv(blas.Trans, -1, basis, vec(proj[:k+1]), 1, vec(w))
				for i, c := range proj[:k+1] {
					col[i] += c
				}
			}
			col[k+1] = norm2(w)
			for i := 0; i < k; i++ {
				a, b := col[i], col[i+1]
				col[i], col[i+1] = cs[i]*a+sn[i]*b, -sn[i]*a+cs[i]*b
			}
			den := math.Hypot(col[k], col[k+1])
			if den == 0 { // (I - op) is singular on the Krylov space
				return nil, gmresFailure(iters, rnorm/bnorm)
			}
			cs[k], sn[k] = col[k]/den, col[k+1]/den
			sub := col[k+1]
			col[k], col[k+1] = den, 0
			g[k], g[k+1] = cs[k]*g[k], -sn[k]*g[k]
			k++
			if sub == 0 || math.Abs(g[k]) <= gmresTol*bnorm/2 {
				break
			}
			for i, wi := range w {
				v[k][i] = wi / sub
			}
		}
		// Back substitution for the least-squares coefficients, then the
		// update of x and its true residual.
		for i := k - 1; i >= 0; i-- {
			s := g[i]
			for j := i + 1; j < k; j++ {
				s -= h[j*(m+1)+i] * y[j]
			}
			y[i] = s / h[i*(m+1)+i]
		}
		for j := 0; j < k; j++ {
			for i, vi := range v[j] {
				x[i] += y[j] * vi
			}
		}
		var err error
		if rnorm, err = residual(); err != nil {
			return nil, err
		}
	}
	if rnorm <= gmresTol*bnorm {
		return x, nil
	}
	return nil, gmresFailure(iters, rnorm/bnorm)
}

func gmresFailure(iters int, res float64) error {
	return errors.Errorf("umps: the Kleene closure solve did not converge in %d iterations (relative residual %.3g)", iters, res)
}

func norm2(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// solveStar solves (I - E^r_S)(X) = q (right) or (I - E^l_S)(X) = q by
// gmres; s is the closure's body.
func (t *Transfer) solveStar(s *node, q Mat, right bool) (Mat, error) {
	x, err := gmres(q.Data, func(in, out []float64) error {
		p, err := t.apply(s, Mat{Data: append([]float64(nil), in...)}, right)
		if err != nil {
			return err
		}
		sc := 0.0
		if !p.Zero {
			sc = math.Ldexp(1, p.Exp)
		}
		for i, v := range p.Data {
			out[i] = sc * v
		}
		return nil
	})
	if err != nil {
		return Mat{}, err
	}
	return newMat(x, q.Exp), nil
}
