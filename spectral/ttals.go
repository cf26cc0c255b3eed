package spectral

import (
	"github.com/pkg/errors"

	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
)

// ALSConfig configures ALS. The zero value gives the defaults.
type ALSConfig struct {
	// MaxSweeps caps the left-to-right sweeps over the cores; if 0 it
	// defaults to 30.
	MaxSweeps int
	// Tol stops the run when three sweeps in a row fail to lower the best
	// mean squared residual by Tol times its value, or when the residual
	// falls below Tol^2 times the mean of y^2; if 0 it defaults to 1e-6.
	Tol float64
	// Batch, when positive and below N, makes every core update a least
	// squares fit on Batch examples drawn afresh from rng (mini-batch
	// ALS): the cost of an update is then O(Batch p (r d r)^2) instead of
	// O(N p (r d r)^2). 0 uses all examples.
	Batch int
	// Bootstrap makes LearnTT start the ALS of H^(2L) and H^(2L+1) from
	// the shorter tensor's prefix and suffix cores (see bootstrapTT)
	// instead of random cores: needed when d^(2L+1) is large, since ALS
	// from random cores then finds no signal. It requires the prefix and
	// suffix spaces of H^(L) to have full rank n (d >= n and d p >= n
	// generically).
	Bootstrap bool
	// Trace, if set, is called after every sweep with the sweep number
	// and the mean squared residual on all examples (progress reports).
	Trace func(sweep int, residual float64)
}

// ALSStats reports how an ALS run ended.
type ALSStats struct {
	// Sweeps is the number of sweeps done.
	Sweeps int
	// Residual is the final mean squared residual on all examples.
	Residual float64
	// Converged is false when MaxSweeps stopped the run.
	Converged bool
}

// ALS recovers H^(l) in tensor-train form with TT-ranks at most rank from
// the examples of s by alternating least squares on the cores (the
// method of the same authors' later work on tensor-train recovery), never
// forming a tensor of d^l entries: the prediction for an example is the
// contraction of the train with x_1, ..., x_l (TT.ContractKron), linear in
// each core, so each core update is a least-squares problem in its
// r_{k-1} d r_k (or r_l p) entries. Cores are drawn from rng, then swept
// left to right; after each update the core is orthonormalised by QR and
// its R factor pushed into the next core (the function is unchanged).
// Cost per sweep O(N p l (r d r)^2); memory O(N p r d r).
//
// ALS is the tensor-train path for inputs too large for the dense
// methods (d^(2L+1) beyond memory, e.g. d = 10, L = 3); on small problems
// TIHT (dense) is the paper's method.
func ALS(s datasets.TwoRNNData, rank int, cfg ALSConfig, rng *rand.Rand) (TT, ALSStats, error) {
	c, err := cfg.check(s, rank)
	if err != nil {
		return TT{}, ALSStats{}, err
	}
	l, d, p := s.Len, s.In, s.Out
	t := TT{Dims: make([]int, l+1), Ranks: make([]int, l+2), Cores: make([][]float64, l+1)}
	for k := range l {
		t.Dims[k] = d
	}
	t.Dims[l] = p
	// Ranks capped by the unfolding sizes, as TT-SVD would give.
	t.Ranks[0], t.Ranks[l+1] = 1, 1
	left := 1
	for k := 1; k <= l; k++ {
		left = min(left*d, rank)
		t.Ranks[k] = left
	}
	right := p
	for k := l; k >= 1; k-- {
		t.Ranks[k] = min(t.Ranks[k], right)
		right = min(right*d, rank)
	}
	for k := range t.Cores {
		m := t.Ranks[k] * t.Dims[k] * t.Ranks[k+1]
		t.Cores[k] = make([]float64, m)
		std := 1 / math.Sqrt(float64(t.Ranks[k]*t.Dims[k]))
		for i := range t.Cores[k] {
			t.Cores[k][i] = std * rng.NormFloat64()
		}
	}
	return alsFrom(t, s, c, rng)
}

// alsFrom runs ALS sweeps from the train t (modified in place) with the
// defaults of c already applied.
func alsFrom(t TT, s datasets.TwoRNNData, c ALSConfig, rng *rand.Rand) (TT, ALSStats, error) {
	l, N := s.Len, s.N()
	zero := meanSquare(s.Y)
	res, err := alsResidual(t, s)
	if err != nil {
		return TT{}, ALSStats{}, err
	}
	var st ALSStats
	best, stale := res, 0
	for st.Sweeps < c.MaxSweeps {
		st.Sweeps++
		idx := allIndices(N)
		for k := 0; k <= l; k++ {
			if c.Batch > 0 && c.Batch < N {
				idx = rng.Perm(N)[:c.Batch]
			}
			if err := alsUpdate(&t, s, idx, k); err != nil {
				return TT{}, ALSStats{}, err
			}
		}
		next, err := alsResidual(t, s)
		if err != nil {
			return TT{}, ALSStats{}, err
		}
		if math.IsNaN(next) || math.IsInf(next, 0) {
			return TT{}, ALSStats{}, ErrDiverged
		}
		if c.Trace != nil {
			c.Trace(st.Sweeps, next)
		}
		// Mini-batch sweeps are noisy: stop after 3 sweeps in a row
		// without a relative improvement of Tol on the best residual.
		if next < best*(1-c.Tol) {
			best, stale = next, 0
		} else {
			stale++
		}
		res = next
		if next <= c.Tol*c.Tol*zero || stale >= 3 {
			st.Converged = true
			break
		}
	}
	st.Residual = res
	return t, st, nil
}

// check applies the defaults and validates the configuration and data.
func (cfg ALSConfig) check(s datasets.TwoRNNData, rank int) (ALSConfig, error) {
	c := cfg
	if c.MaxSweeps == 0 {
		c.MaxSweeps = 30
	}
	if c.Tol == 0 {
		c.Tol = 1e-6
	}
	if err := s.Validate(); err != nil {
		return c, errors.Wrap(err, "spectral")
	}
	if rank < 1 || c.MaxSweeps < 1 || !(c.Tol > 0) || c.Batch < 0 {
		return c, errors.Errorf("spectral: ALS with rank %d, %d sweeps, tolerance %g, batch %d: want rank, sweeps, tolerance > 0 and batch >= 0",
			rank, c.MaxSweeps, c.Tol, c.Batch)
	}
	return c, nil
}

func allIndices(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// alsResidual is the mean squared residual of the train on s.
func alsResidual(t TT, s datasets.TwoRNNData) (float64, error) {
	pred, err := t.ContractKron(s.X, s.Len, s.In)
	if err != nil {
		return 0, err
	}
	pred.Sub(pred, targets(s))
	r := mat.Norm(pred, 2)
	return r * r / float64(len(s.Y)), nil
}

// rightMats returns, for each example of idx, the r_from x p matrix of
// cores from..l-1 contracted with x_{from+1}..x_l, times the output core.
func rightMats(t *TT, s datasets.TwoRNNData, idx []int, from int) []*mat.Dense {
	l, d, p := s.Len, s.In, s.Out
	out := mat.NewDense(t.Ranks[l], p, t.Cores[l])
	rights := make([]*mat.Dense, len(idx))
	for r, i := range idx {
		acc := mat.DenseCopyOf(out)
		for j := l - 1; j >= from; j-- {
			x := s.X[(i*l+j)*d : (i*l+j+1)*d]
			slice := mat.NewDense(t.Ranks[j], t.Ranks[j+1], nil)
			for c, xc := range x {
				for a := range t.Ranks[j] {
					row := slice.RawRowView(a)
					src := t.Cores[j][(a*d+c)*t.Ranks[j+1] : (a*d+c+1)*t.Ranks[j+1]]
					for b, v := range src {
						row[b] += xc * v
					}
				}
			}
			var next mat.Dense
			next.Mul(slice, acc)
			acc = &next
		}
		rights[r] = acc
	}
	return rights
}

// fitBlock solves the least-squares problem for the block of width
// consecutive input cores starting at k, as one supercore of shape
// r_k x d^width x r_{k+width}, the other cores fixed; lv holds the left
// vectors of idx (cores 0..k-1). Design rows
// phi_{i,o}[a, c, b] = lv_i[a] (x_{i,k+1} (x) ... )[c] R_i[b, o].
func fitBlock(t *TT, s datasets.TwoRNNData, idx []int, lv *mat.Dense, k, width int) (*mat.Dense, error) {
	l, d, p := s.Len, s.In, s.Out
	M := len(idx)
	rk, rn := t.Ranks[k], t.Ranks[k+width]
	rights := rightMats(t, s, idx, k+width)
	dw, _ := powInt(d, width)
	m := rk * dw * rn
	phi := mat.NewDense(M*p, m, nil)
	y := mat.NewDense(M*p, 1, nil)
	kx := make([]float64, dw)
	for r, i := range idx {
		kronInto(kx, s.X[(i*l+k)*d:(i*l+k+width)*d], d)
		lrow := lv.RawRowView(r)
		for o := range p {
			row := phi.RawRowView(r*p + o)
			for a, la := range lrow {
				for c, xc := range kx {
					w := la * xc
					base := (a*dw + c) * rn
					for b := range rn {
						row[base+b] = w * rights[r].At(b, o)
					}
				}
			}
			y.Set(r*p+o, 0, s.Y[i*p+o])
		}
	}
	g := mat.NewDense(m, 1, nil)
	if err := ridgeSolve(g, phi, y); err != nil {
		return nil, err
	}
	return g, nil
}

// alsUpdate refits core k on the examples idx, then (for k < l)
// orthonormalises it and pushes the R factor into core k+1.
func alsUpdate(t *TT, s datasets.TwoRNNData, idx []int, k int) error {
	l, d, p := s.Len, s.In, s.Out
	M := len(idx)
	rk, rn := t.Ranks[k], t.Ranks[k+1]
	// Left vectors: the contraction of cores 0..k-1 with x_1..x_k, M x rk.
	lv := mat.NewDense(M, 1, nil)
	for i := range M {
		lv.Set(i, 0, 1)
	}
	for j := 0; j < k; j++ {
		lv = contractStep(lv, t, j, s, idx)
	}
	if k == l {
		// Output core: y_i = lv_i G_out, plain least squares.
		g := mat.NewDense(rk, p, nil)
		y := mat.NewDense(M, p, nil)
		for r, i := range idx {
			y.SetRow(r, s.Y[i*p:(i+1)*p])
		}
		if err := ridgeSolve(g, lv, y); err != nil {
			return err
		}
		t.Cores[l] = g.RawMatrix().Data
		return nil
	}
	g, err := fitBlock(t, s, idx, lv, k, 1)
	if err != nil {
		return err
	}
	// Orthonormalise core k as (rk d) x rn = Q R; push R into core k+1.
	core := mat.NewDense(rk*d, rn, g.RawMatrix().Data)
	rows, _ := core.Dims()
	if rows < rn {
		t.Cores[k] = g.RawMatrix().Data
		return nil
	}
	var qr mat.QR
	qr.Factorize(core)
	var q, rf mat.Dense
	qr.QTo(&q)
	qr.RTo(&rf)
	t.Cores[k] = mat.DenseCopyOf(q.Slice(0, rows, 0, rn)).RawMatrix().Data
	nextCore := mat.NewDense(rn, t.Dims[k+1]*t.Ranks[k+2], nil)
	nextCore.Mul(rf.Slice(0, rn, 0, rn), mat.NewDense(rn, t.Dims[k+1]*t.Ranks[k+2], t.Cores[k+1]))
	t.Cores[k+1] = nextCore.RawMatrix().Data
	return nil
}

// contractStep multiplies the left vectors lv (M x r_j) by core j
// contracted with x_{j+1} of each example: M x r_{j+1}.
func contractStep(lv *mat.Dense, t *TT, j int, s datasets.TwoRNNData, idx []int) *mat.Dense {
	d, l := s.In, s.Len
	rj, rn := t.Ranks[j], t.Ranks[j+1]
	z := mat.NewDense(len(idx), d*rn, nil)
	z.Mul(lv, mat.NewDense(rj, d*rn, t.Cores[j]))
	next := mat.NewDense(len(idx), rn, nil)
	for r, i := range idx {
		x := s.X[(i*l+j)*d : (i*l+j+1)*d]
		zr, nr := z.RawRowView(r), next.RawRowView(r)
		for c, xc := range x {
			for b, w := range zr[c*rn : (c+1)*rn] {
				nr[b] += xc * w
			}
		}
	}
	return next
}

// ridgeSolve solves min ||A g - y||^2 through the normal equations with a
// relative ridge of 1e-12 trace(A^T A)/m that only guards against exact
// rank deficiency.
func ridgeSolve(dst, a, y *mat.Dense) error {
	_, m := a.Dims()
	g := tallGram(a)
	tr := 0.0
	for i := range m {
		tr += g.At(i, i)
	}
	ridge := 1e-12*tr/float64(m) + math.SmallestNonzeroFloat64
	for i := range m {
		g.SetSym(i, i, g.At(i, i)+ridge)
	}
	var chol mat.Cholesky
	if !chol.Factorize(g) {
		return errors.New("spectral: ALS normal equations are not positive definite")
	}
	var b mat.Dense
	b.Mul(a.T(), y)
	return chol.SolveTo(dst, &b)
}
