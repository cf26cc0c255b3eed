package spectral

import (
	"github.com/pkg/errors"

	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
)

// NuclearConfig configures NuclearNorm. The zero value solves the
// equality-constrained problem.
//
// Solver: ADMM (Boyd et al. 2011) on the splitting T = Z, with Z carrying
// the nuclear norm of the balanced matricisation and T the data term:
//
//	T <- argmin_T  data(T) + rho/2 ||T - Z + U||^2
//	Z <- SVT_{lambda/rho}(T + U)   (singular value thresholding)
//	U <- U + T - Z
//
// With Lambda = 0 the data term is the constraint X T = Y and the T step
// is the Euclidean projection onto that affine set (through the SVD of X,
// computed once); otherwise data(T) = ||X T - Y||^2 / 2 and the T step
// solves (X^T X + rho I) T = X^T Y + rho (Z - U) by a Cholesky factor
// computed once. (For Lambda = 0 the threshold is 1/rho.)
//
// Stopping rule (Boyd et al., Section 3.3.1): stop when the primal
// residual ||T - Z||_F <= sqrt(D p) AbsTol + RelTol max(||T||, ||Z||) and
// the dual residual rho ||Z - Z_prev||_F <= sqrt(D p) AbsTol +
// RelTol rho ||U||, or after MaxIter iterations. The default rho makes
// the iteration invariant to the scale of the data (see Rho).
type NuclearConfig struct {
	// Lambda is the weight of the nuclear norm against ||X T - Y||^2 / 2;
	// 0 means the equality-constrained problem (noiseless data).
	Lambda float64
	// Rho is the ADMM penalty. If 0 it defaults, for the
	// equality-constrained problem, to 10 / sigma_1 where sigma_1 is the
	// largest singular value of the matricised minimum-norm solution (the
	// threshold 1/rho is then a tenth of the data's scale), and otherwise
	// to ||X||_2^2 / 10, so that the T step is well conditioned whatever
	// N is.
	Rho float64
	// MaxIter caps the iterations; if 0 it defaults to 3,000.
	MaxIter int
	// AbsTol and RelTol are the stopping tolerances; if 0 they default to
	// 1e-9 and 1e-7.
	AbsTol, RelTol float64
}

// NuclearNorm recovers H^(l) from the examples of s by nuclear-norm
// minimisation of its balanced matricisation H<<ceil(l/2), l-ceil(l/2)+1>>
// (Algorithm 1, line 6; the penalised form for noisy data). See
// NuclearConfig for the solver and its stopping rule.
func NuclearNorm(s datasets.TwoRNNData, cfg NuclearConfig) (Hankel, IHTStats, error) {
	c := cfg
	if c.MaxIter == 0 {
		c.MaxIter = 3000
	}
	if c.AbsTol == 0 {
		c.AbsTol = 1e-9
	}
	if c.RelTol == 0 {
		c.RelTol = 1e-7
	}
	if !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0) || !(c.Rho >= 0) || c.MaxIter < 1 || !(c.AbsTol > 0) || !(c.RelTol > 0) {
		return Hankel{}, IHTStats{}, errors.Errorf("spectral: nuclear norm with lambda %g, rho %g, %d iterations, tolerances %g, %g: want lambda, rho >= 0 and the rest > 0",
			c.Lambda, c.Rho, c.MaxIter, c.AbsTol, c.RelTol)
	}
	x, err := Design(s)
	if err != nil {
		return Hankel{}, IHTStats{}, err
	}
	h, err := NewHankel(s.Len, s.In, s.Out)
	if err != nil {
		return Hankel{}, IHTStats{}, err
	}
	D, p := h.Rows(), s.Out
	y := targets(s)
	var tStep func(dst, v *mat.Dense) // dst <- T step from v = Z - U
	if c.Lambda == 0 {
		// Projection onto {T : X T = Y}: T = v - X^+ (X v - Y), with
		// X^+ = V diag(1/s) U^T over the nonzero singular values.
		var svd mat.SVD
		if !svd.Factorize(x, mat.SVDThin) {
			return Hankel{}, IHTStats{}, errors.New("spectral: SVD of the design matrix failed")
		}
		var u, v mat.Dense
		svd.UTo(&u)
		svd.VTo(&v)
		sv := svd.Values(nil)
		N, _ := x.Dims()
		cut := float64(max(N, D)) * eps * sv[0]
		k := 0
		for k < len(sv) && sv[k] > cut {
			k++
		}
		uk, vk := u.Slice(0, N, 0, k), v.Slice(0, D, 0, k)
		inv := make([]float64, k)
		for i := range k {
			inv[i] = 1 / sv[i]
		}
		tStep = func(dst, vz *mat.Dense) {
			var r, w mat.Dense
			r.Mul(x, vz)
			r.Sub(&r, y)
			w.Mul(uk.T(), &r)
			for i := range k {
				row := w.RawRowView(i)
				for j := range row {
					row[j] *= inv[i]
				}
			}
			dst.Mul(vk, &w)
			dst.Sub(vz, dst)
		}
		if c.Rho == 0 {
			t0 := mat.NewDense(D, p, nil)
			tStep(t0, mat.NewDense(D, p, nil))
			s1 := mat.Norm(Hankel{Len: h.Len, In: h.In, Out: h.Out, Data: t0.RawMatrix().Data}.Matrix(h.Balanced()), 2)
			c.Rho = 10 / math.Max(s1, math.SmallestNonzeroFloat64)
		}
	} else {
		gram := tallGram(x)
		if c.Rho == 0 {
			var eig mat.EigenSym
			if !eig.Factorize(gram, false) {
				return Hankel{}, IHTStats{}, errors.New("spectral: eigenvalues of the Gram matrix failed")
			}
			ev := eig.Values(nil)
			c.Rho = math.Max(ev[len(ev)-1]/10, math.SmallestNonzeroFloat64)
		}
		for i := range D {
			gram.SetSym(i, i, gram.At(i, i)+c.Rho)
		}
		var chol mat.Cholesky
		if !chol.Factorize(gram) {
			return Hankel{}, IHTStats{}, errors.New("spectral: X^T X + rho I is not positive definite")
		}
		b := mat.NewDense(D, p, nil)
		b.Mul(x.T(), y)
		tStep = func(dst, vz *mat.Dense) {
			var rhs mat.Dense
			rhs.Scale(c.Rho, vz)
			rhs.Add(&rhs, b)
			_ = chol.SolveTo(dst, &rhs) // cannot fail after a successful Factorize
		}
	}
	thresh := 1 / c.Rho
	if c.Lambda > 0 {
		thresh = c.Lambda / c.Rho
	}
	t := mat.NewDense(D, p, nil)
	z := mat.NewDense(D, p, nil)
	u := mat.NewDense(D, p, nil)
	var st IHTStats
	scale := math.Sqrt(float64(D * p))
	for st.Iterations < c.MaxIter {
		st.Iterations++
		var v mat.Dense
		v.Sub(z, u)
		tStep(t, &v)
		zPrev := mat.DenseCopyOf(z)
		var w mat.Dense
		w.Add(t, u)
		if err := svt(h, &w, thresh, z); err != nil {
			return Hankel{}, IHTStats{}, err
		}
		var r, dz mat.Dense
		r.Sub(t, z)
		u.Add(u, &r)
		dz.Sub(z, zPrev)
		primal, dual := mat.Norm(&r, 2), c.Rho*mat.Norm(&dz, 2)
		if math.IsNaN(primal) || math.IsInf(primal, 0) {
			return Hankel{}, IHTStats{}, ErrDiverged
		}
		if primal <= scale*c.AbsTol+c.RelTol*math.Max(mat.Norm(t, 2), mat.Norm(z, 2)) &&
			dual <= scale*c.AbsTol+c.RelTol*c.Rho*mat.Norm(u, 2) {
			st.Converged = true
			break
		}
	}
	// Report Z, the iterate that carries the low-rank structure; in the
	// equality-constrained case it meets X Z = Y to within the tolerance.
	copy(h.Data, z.RawMatrix().Data)
	var r mat.Dense
	r.Mul(x, z)
	r.Sub(&r, y)
	st.Residual = mat.Norm(&r, 2) * mat.Norm(&r, 2) / float64(len(s.Y))
	return h, st, nil
}

// svt writes into dst (D x p) the singular value thresholding of the
// balanced matricisation of w: U max(S - tau, 0) V^T, the proximal
// operator of tau ||.||_*.
func svt(h Hankel, w *mat.Dense, tau float64, dst *mat.Dense) error {
	view := Hankel{Len: h.Len, In: h.In, Out: h.Out, Data: w.RawMatrix().Data}
	m := view.Matrix(h.Balanced())
	var svd mat.SVD
	if !svd.Factorize(m, mat.SVDThin) {
		return errors.New("spectral: SVD failed in singular value thresholding")
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	sv := svd.Values(nil)
	rows, cols := m.Dims()
	k := 0
	for k < len(sv) && sv[k] > tau {
		k++
	}
	out := mat.NewDense(rows, cols, dst.RawMatrix().Data)
	if k == 0 {
		out.Zero()
		return nil
	}
	us := mat.DenseCopyOf(u.Slice(0, rows, 0, k))
	for j := range k {
		for i := range rows {
			us.Set(i, j, us.At(i, j)*(sv[j]-tau))
		}
	}
	out.Mul(us, v.Slice(0, cols, 0, k).T())
	return nil
}

// NuclearHoldout chooses the penalty of NuclearNorm on noisy data as the
// authors did, by a hold-out split, and returns the estimate refitted on
// all of s with the chosen Lambda. Every fifth example (indices 4, 9, ...)
// forms the 20% validation part, so no randomness is needed. The grid is
// lambda_0 5^k for k = -3..3 with lambda_0 = sqrt(N) (sqrt(rows) +
// sqrt(cols)) std(Y), the order of the spectral norm of the gradient
// X^T noise of the squared loss at the truth for noise of std(Y) (the
// usual choice in matrix sensing), rows x cols being the balanced
// matricisation.
func NuclearHoldout(s datasets.TwoRNNData, cfg NuclearConfig) (Hankel, IHTStats, float64, error) {
	if err := s.Validate(); err != nil {
		return Hankel{}, IHTStats{}, 0, errors.Wrap(err, "spectral")
	}
	N := s.N()
	if N < 5 {
		return Hankel{}, IHTStats{}, 0, errors.Errorf("spectral: nuclear-norm hold-out needs at least 5 examples, have %d", N)
	}
	var fit, val datasets.TwoRNNData
	for _, part := range []*datasets.TwoRNNData{&fit, &val} {
		*part = datasets.TwoRNNData{Len: s.Len, In: s.In, Out: s.Out}
	}
	w := s.Len * s.In
	for i := range N {
		part := &fit
		if i%5 == 4 {
			part = &val
		}
		part.X = append(part.X, s.X[i*w:(i+1)*w]...)
		part.Y = append(part.Y, s.Y[i*s.Out:(i+1)*s.Out]...)
	}
	h, err := NewHankel(s.Len, s.In, s.Out)
	if err != nil {
		return Hankel{}, IHTStats{}, 0, err
	}
	rows := h.Matrix(h.Balanced())
	r, c := rows.Dims()
	lambda0 := math.Sqrt(float64(N)) * (math.Sqrt(float64(r)) + math.Sqrt(float64(c))) * math.Sqrt(meanSquare(s.Y))
	xv, err := Design(val)
	if err != nil {
		return Hankel{}, IHTStats{}, 0, err
	}
	best, bestErr := 0.0, math.Inf(1)
	// The grid fits only rank the penalties: 300 iterations suffice.
	gridCfg := cfg
	gridCfg.MaxIter = 300
	for k := -3; k <= 3; k++ {
		gridCfg.Lambda = lambda0 * math.Pow(5, float64(k))
		hk, _, err := NuclearNorm(fit, gridCfg)
		if err != nil {
			return Hankel{}, IHTStats{}, 0, err
		}
		var pred mat.Dense
		pred.Mul(xv, hk.Matrix(s.Len))
		pred.Sub(&pred, targets(val))
		if e := mat.Norm(&pred, 2); e < bestErr {
			best, bestErr = gridCfg.Lambda, e
		}
	}
	cfg.Lambda = best
	hs, st, err := NuclearNorm(s, cfg)
	return hs, st, best, err
}
