package autoenc

import (
	"math"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"
)

// RefineConfig controls Refine. The zero value is ready to use.
type RefineConfig struct {
	// MaxIter bounds the alternating iterations. If MaxIter is 0, it will
	// be defaulted to 200.
	MaxIter int
	// Tol stops the iterations when an iteration lowers the objective by
	// less than Tol times its value. If Tol is 0, it will be defaulted to
	// 1e-10.
	Tol float64
}

// RefineResult is the outcome of Refine.
type RefineResult struct {
	// Model is the refined autoencoder: A^T = U_1 + E_1*, B^T = Q*.
	Model *Model
	// Initial and Final are the objective of eq. (5), sum_i ||E_i||_F^2,
	// at the truncated closed form and at the returned model.
	Initial, Final float64
	// Iterations counts the accepted alternating steps.
	Iterations int
	// ReconstructionError is the model's squared reconstruction error on
	// the training sequences (see Model.ReconstructionError).
	ReconstructionError float64
}

// Refine solves the low-dimensional problem of section 2.1 for
// p < rank(Xi). Eq. (5) asks for Q (p x p) and slack matrices E_i (k x p)
// with (U_i + E_i) Q = U_{i+1} + E_{i+1} for i = 1..n (U_{n+1} = 0),
// minimising sum_{i=1}^{n+1} ||E_i||_F^2, where U_i are the k x p blocks of
// U^(p). The constraints give U_i + E_i = W Q^{i-1} with W = U_1 + E_1, so
// the objective is f(W, Q) = sum_{i=1}^{n+1} ||W Q^{i-1} - U_i||_F^2. Refine
// alternates the paper's two steps: the optimal slack for a fixed Q (a
// linear least-squares problem in W, the eq. after (5) with M_Q^+), and a
// least-squares re-estimate of Q from the shifted blocks (the Q-tilde
// update), damped by halving until f does not increase. It starts from
// the truncated closed form (W = U_1, Q as in ClosedForm), so the result
// is never worse than ClosedForm's in the objective of eq. (5). Xi is
// built densely, as in ClosedForm.
func Refine(seqs [][]float64, k, p int, cfg RefineConfig) (*RefineResult, error) {
	if cfg.MaxIter == 0 {
		cfg.MaxIter = 200
	}
	if cfg.Tol == 0 {
		cfg.Tol = 1e-10
	}
	if cfg.MaxIter < 0 || cfg.Tol < 0 {
		return nil, errors.Errorf("autoenc: refine MaxIter %d, Tol %g: want both >= 0", cfg.MaxIter, cfg.Tol)
	}
	m0, err := ClosedForm(seqs, k, p)
	if err != nil {
		return nil, err
	}
	d, _ := newData(seqs, k)
	v, lambda, _, err := exactSVD(d)
	if err != nil {
		return nil, err
	}
	blocks := uBlocks(d.dense(), v.Slice(0, d.rows, 0, p).(*mat.Dense), lambda[:p], k, d.maxLen)
	w := mat.DenseCopyOf(m0.A.T())
	q := mat.DenseCopyOf(m0.B.T())
	f := slackObjective(blocks, w, q)
	res := &RefineResult{Initial: f}
	for res.Iterations < cfg.MaxIter {
		w2, err := optimalW(blocks, q)
		if err != nil {
			break
		}
		f2 := slackObjective(blocks, w2, q)
		if f2 <= f {
			w, f = w2, f2
		}
		qt, err := shiftedQ(blocks, w, q)
		if err != nil {
			break
		}
		improved := false
		for alpha := 1.0; alpha >= 1.0/64; alpha /= 2 {
			var cand mat.Dense
			cand.Sub(qt, q)
			cand.Scale(alpha, &cand)
			cand.Add(&cand, q)
			if fc := slackObjective(blocks, w, &cand); fc < f {
				q, f, improved = &cand, fc, true
				break
			}
		}
		old := res.Final
		res.Final = f
		res.Iterations++
		if !improved || (res.Iterations > 1 && old-f <= cfg.Tol*old) {
			break
		}
	}
	res.Final = f
	var a, b mat.Dense
	a.CloneFrom(w.T())
	b.CloneFrom(q.T())
	res.Model = &Model{K: k, P: p, A: &a, B: &b, Lambda: append([]float64(nil), lambda[:p]...)}
	if res.ReconstructionError, err = res.Model.ReconstructionError(seqs); err != nil {
		return nil, err
	}
	return res, nil
}

// uBlocks returns the k x p blocks U_1 .. U_n of U^(p) = Xi^T V Lambda^{-1}.
func uBlocks(xi, v *mat.Dense, lambda []float64, k, n int) []*mat.Dense {
	var u mat.Dense
	u.Mul(xi.T(), v)
	p := len(lambda)
	for j, l := range lambda {
		col := make([]float64, n*k)
		mat.Col(col, j, &u)
		for i := range col {
			col[i] /= l
		}
		u.SetCol(j, col)
	}
	blocks := make([]*mat.Dense, n)
	for i := range n {
		blocks[i] = mat.DenseCopyOf(u.Slice(i*k, (i+1)*k, 0, p))
	}
	return blocks
}

// slackObjective is f(W, Q) = sum_{i=1}^{n+1} ||W Q^{i-1} - U_i||_F^2 with
// U_{n+1} = 0, the objective of eq. (5) once the constraints are used to
// eliminate E_2 .. E_{n+1}.
func slackObjective(blocks []*mat.Dense, w, q *mat.Dense) float64 {
	cur := mat.DenseCopyOf(w)
	var diff, next mat.Dense
	f := 0.0
	for _, u := range blocks {
		diff.Sub(cur, u)
		n := mat.Norm(&diff, 2)
		f += n * n
		next.Mul(cur, q)
		cur.Copy(&next)
	}
	n := mat.Norm(cur, 2)
	f += n * n
	if math.IsNaN(f) {
		return math.Inf(1)
	}
	return f
}

// optimalW minimises f(W, Q) over W for fixed Q: the normal equations
// W (sum_{i=1}^{n+1} P_i P_i^T) = sum_{i=1}^{n} U_i P_i^T with P_i = Q^{i-1};
// the Gram matrix is at least the identity, so the solve is safe.
func optimalW(blocks []*mat.Dense, q *mat.Dense) (*mat.Dense, error) {
	k, p := blocks[0].Dims()
	gram := mat.NewDense(p, p, nil)
	rhs := mat.NewDense(k, p, nil)
	pow := eye(p)
	var t, tr, next mat.Dense
	for _, u := range blocks {
		t.Mul(pow, pow.T())
		gram.Add(gram, &t)
		tr.Mul(u, pow.T())
		rhs.Add(rhs, &tr)
		next.Mul(pow, q)
		pow.Copy(&next)
	}
	t.Mul(pow, pow.T())
	gram.Add(gram, &t)
	// W G = R  <=>  G^T W^T = R^T (G symmetric).
	var wt mat.Dense
	if err := wt.Solve(gram, rhs.T()); err != nil {
		return nil, err
	}
	return mat.DenseCopyOf(wt.T()), nil
}

// shiftedQ is the Q-tilde update: the least-squares Q with
// (W Q^{i-1}) Q ~ U_{i+1} for i = 1..n (U_{n+1} = 0), solved by QR on the
// stacked blocks.
func shiftedQ(blocks []*mat.Dense, w, q *mat.Dense) (*mat.Dense, error) {
	k, p := blocks[0].Dims()
	n := len(blocks)
	lhs := mat.NewDense(n*k, p, nil)
	rhs := mat.NewDense(n*k, p, nil)
	cur := mat.DenseCopyOf(w)
	var next mat.Dense
	for i := range n {
		lhs.Slice(i*k, (i+1)*k, 0, p).(*mat.Dense).Copy(cur)
		if i+1 < n {
			rhs.Slice(i*k, (i+1)*k, 0, p).(*mat.Dense).Copy(blocks[i+1])
		}
		next.Mul(cur, q)
		cur.Copy(&next)
	}
	var out mat.Dense
	if err := out.Solve(lhs, rhs); err != nil {
		return nil, err
	}
	return &out, nil
}

// eye is the p x p identity.
func eye(p int) *mat.Dense {
	m := mat.NewDense(p, p, nil)
	for i := range p {
		m.Set(i, i, 1)
	}
	return m
}
