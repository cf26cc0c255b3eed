package spectral

import (
	"github.com/pkg/errors"

	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
)

// IHTConfig configures IHT and TIHT. The zero value gives the defaults.
//
// Step-size rule. The paper's update is T <- P_R(T + mu X^T (Y - X T))
// (Algorithm 1, line 10). The authors' code uses a fixed mu = 0.1, which
// makes the effective step grow with N (X^T X is about N I for Gaussian
// inputs) and needs restarts when it diverges. Here mu is chosen per
// iteration, with no dependence on N and nothing to tune: the normalised
// IHT step of Blumensath and Davies (2010) in the matrix form of Tanner
// and Wei (2013), mu = ||P g||^2 / ||X P g||^2, where g = X^T (Y - X T) is
// the gradient and P the projection onto the tangent space, at the current
// iterate, of the rank-R matrices of the balanced matricisation (for TIHT
// too: a step-length heuristic, the update itself is the full gradient
// step). The step is the exact line search along P g, so it scales like
// 1/N when X^T X ~ N I and grows in the underdetermined regime N < d^l.
// It is then halved until the projected candidate P_R(T + mu g) does not increase
// the residual ||X T - Y||^2 (backtracking). The iteration is therefore
// monotone and cannot diverge. When N > d^l all products go through the
// Gram matrix X^T X (d^l x d^l, one symmetric rank-N update, BLAS) and
// X^T Y, so an iteration costs O(d^(2l) p) whatever N is; with fewer
// examples X itself is used (cheaper, and exact near a zero residual).
//
// Stopping rule: stop when the relative change ||T_new - T||_F / ||T_new||_F
// falls below Tol, when an accepted step lowers the residual by less than
// FTol times its value (the residual has reached its floor, the noise
// level, while on noiseless data the linear convergence of IHT keeps the
// relative decrease far above FTol until the residual vanishes), when no
// step in MaxHalvings halvings decreases the
// residual (a stationary point of the projected iteration), when the
// residual is exactly zero, or after MaxIter iterations.
type IHTConfig struct {
	// MaxIter caps the iterations; if 0 it defaults to 5,000 (the authors ran 5,000 to 10,000).
	MaxIter int
	// Tol is the relative-change threshold; if 0 it defaults to 1e-12.
	Tol float64
	// FTol is the relative-decrease threshold; if 0 it defaults to 1e-7.
	FTol float64
	// MaxHalvings caps the backtracking halvings per iteration; if 0 it
	// defaults to 40.
	MaxHalvings int
}

func (c IHTConfig) withDefaults() IHTConfig {
	if c.MaxIter == 0 {
		c.MaxIter = 5000
	}
	if c.Tol == 0 {
		c.Tol = 1e-12
	}
	if c.MaxHalvings == 0 {
		c.MaxHalvings = 40
	}
	if c.FTol == 0 {
		c.FTol = 1e-7
	}
	return c
}

// IHTStats reports how an IHT or TIHT run ended.
type IHTStats struct {
	// Iterations is the number of accepted steps.
	Iterations int
	// Residual is the final mean squared residual ||X T - Y||^2 / (N p).
	Residual float64
	// Converged is false when MaxIter stopped the run.
	Converged bool
}

// ErrDiverged reports a non-finite iterate of IHT, TIHT, nuclear-norm
// ADMM, ALS or TT-TIHT (with the monotone IHT steps only possible with
// data so large that the Gram matrix overflows). Learn and LearnTT turn
// it into the zero-function fallback.
var ErrDiverged = errors.New("spectral: recovery diverged (non-finite iterate)")

// IHT recovers H^(l) from the examples of s by iterative hard
// thresholding: projected gradient steps onto the matrices of rank at most
// rank of the balanced matricisation H<<ceil(l/2), l-ceil(l/2)+1>>, the
// projection being a truncated SVD (Algorithm 1, lines 8-12; Jain et al.
// 2010). See IHTConfig for the step and stopping rules.
func IHT(s datasets.TwoRNNData, rank int, cfg IHTConfig) (Hankel, IHTStats, error) {
	return iterativeHT(s, rank, false, cfg)
}

// TIHT is IHT with the projection onto tensors of TT-rank at most rank by
// TT-SVD of the order-(l+1) tensor H^(l) (Rauhut, Schneider and Stojanac
// 2017), which keeps the low TT-rank structure of Hankel tensors of linear
// 2-RNNs (Section 4.1: H^(l) = [[A .1 alpha, A, ..., A, Omega^T]]).
func TIHT(s datasets.TwoRNNData, rank int, cfg IHTConfig) (Hankel, IHTStats, error) {
	return iterativeHT(s, rank, true, cfg)
}

// iterativeHT runs IHT (tt false) or TIHT (tt true).
func iterativeHT(s datasets.TwoRNNData, rank int, tt bool, cfg IHTConfig) (Hankel, IHTStats, error) {
	c := cfg.withDefaults()
	if rank < 1 {
		return Hankel{}, IHTStats{}, errors.Errorf("spectral: IHT rank %d, want >= 1", rank)
	}
	if c.MaxIter < 1 || !(c.Tol > 0) || !(c.FTol > 0) || c.MaxHalvings < 1 {
		return Hankel{}, IHTStats{}, errors.Errorf("spectral: IHT with MaxIter %d, Tol %g, FTol %g, MaxHalvings %d, want all > 0",
			c.MaxIter, c.Tol, c.FTol, c.MaxHalvings)
	}
	x, err := Design(s)
	if err != nil {
		return Hankel{}, IHTStats{}, err
	}
	h, err := NewHankel(s.Len, s.In, s.Out)
	if err != nil {
		return Hankel{}, IHTStats{}, err
	}
	D, p, N := h.Rows(), s.Out, s.N()
	var q objective = newDirect(x, targets(s))
	if N > D {
		q = newGram(x, targets(s))
	}
	proj := func(t *mat.Dense) (*mat.Dense, error) { return projectRank(h, t.RawMatrix().Data, rank) }
	if tt {
		proj = func(t *mat.Dense) (*mat.Dense, error) { return projectTT(h, t.RawMatrix().Data, rank) }
	}
	t := mat.NewDense(D, p, nil)
	state, cstate := q.newState(), q.newState()
	f := q.value(t, state)
	f0 := f
	grad := mat.NewDense(D, p, nil)
	cand := mat.NewDense(D, p, nil)
	var st IHTStats
	for st.Iterations < c.MaxIter {
		q.grad(grad, state)
		if mat.Norm(grad, 2) == 0 || f == 0 {
			st.Converged = true
			break
		}
		basis := t
		if f == f0 {
			basis = grad // at T = 0, the subspace of H_R(g) (Tanner and Wei)
		}
		dir, err := tangent(h, basis, grad, rank)
		if err != nil {
			return Hankel{}, IHTStats{}, err
		}
		curv := q.curvature(dir)
		if !(curv > 0) {
			st.Converged = true
			break
		}
		dd := mat.Norm(dir, 2)
		mu := dd * dd / curv
		accepted := false
		var fc float64
		var next *mat.Dense
		for range c.MaxHalvings {
			cand.Scale(mu, grad)
			cand.Add(cand, t)
			next, err = proj(cand)
			if err != nil {
				return Hankel{}, IHTStats{}, err
			}
			fc = q.value(next, cstate)
			if math.IsNaN(fc) || math.IsInf(fc, 0) {
				return Hankel{}, IHTStats{}, ErrDiverged
			}
			if fc <= f {
				accepted = true
				break
			}
			mu /= 2
		}
		if !accepted {
			st.Converged = true
			break
		}
		var diff mat.Dense
		diff.Sub(next, t)
		change := mat.Norm(&diff, 2) / math.Max(mat.Norm(next, 2), math.SmallestNonzeroFloat64)
		t.Copy(next)
		state, cstate = cstate, state
		decrease := (f - fc) / f
		f = fc
		st.Iterations++
		if change < c.Tol || decrease < c.FTol {
			st.Converged = true
			break
		}
	}
	copy(h.Data, t.RawMatrix().Data)
	// Report the residual from X directly rather than from the Gram form,
	// which loses digits to cancellation near zero.
	var r mat.Dense
	r.Mul(x, t)
	r.Sub(&r, targets(s))
	st.Residual = mat.Norm(&r, 2) * mat.Norm(&r, 2) / float64(N*p)
	return h, st, nil
}

// objective evaluates the residual ||X T - Y||_F^2, its negative
// gradient X^T (Y - X T) and the curvature ||X V||_F^2 of a direction.
// value leaves in state what grad needs, so the gradient at an accepted
// candidate costs no second product with X.
type objective interface {
	newState() *mat.Dense
	value(t, state *mat.Dense) float64
	grad(dst, state *mat.Dense)
	curvature(v *mat.Dense) float64
}

// direct works with X itself: O(N d^l p) per product, and the residual is
// computed without cancellation. Used when N <= d^l.
type direct struct{ x, y *mat.Dense }

func newDirect(x, y *mat.Dense) direct { return direct{x: x, y: y} }

func (q direct) newState() *mat.Dense {
	n, p := q.y.Dims()
	return mat.NewDense(n, p, nil)
}

// value leaves the residual Y - X t in state.
func (q direct) value(t, state *mat.Dense) float64 {
	state.Mul(q.x, t)
	state.Sub(q.y, state)
	r := mat.Norm(state, 2)
	return r * r
}

func (q direct) grad(dst, state *mat.Dense) { dst.Mul(q.x.T(), state) }

func (q direct) curvature(v *mat.Dense) float64 {
	var xv mat.Dense
	xv.Mul(q.x, v)
	r := mat.Norm(&xv, 2)
	return r * r
}

// gram works with G = X^T X (one symmetric rank-N update) and B = X^T Y:
// O(d^(2l) p) per product whatever N is, at the price of cancellation in
// <T, G T> - 2 <T, B> + ||Y||^2 near a zero residual (a floor of about
// 1e-16 ||Y||^2). Used when N > d^l.
type gram struct {
	g  *mat.SymDense
	b  *mat.Dense
	yy float64
}

func newGram(x, y *mat.Dense) gram {
	g := tallGram(x)
	_, D := x.Dims()
	_, p := y.Dims()
	b := mat.NewDense(D, p, nil)
	b.Mul(x.T(), y)
	r := mat.Norm(y, 2)
	return gram{g: g, b: b, yy: r * r}
}

func (q gram) newState() *mat.Dense {
	D, p := q.b.Dims()
	return mat.NewDense(D, p, nil)
}

// value leaves G t in state.
func (q gram) value(t, state *mat.Dense) float64 {
	state.Mul(q.g, t)
	tgt := mat.Sum(elemMul(t, state))
	tb := mat.Sum(elemMul(t, q.b))
	return math.Max(tgt-2*tb+q.yy, 0)
}

func (q gram) grad(dst, state *mat.Dense) { dst.Sub(q.b, state) }

func (q gram) curvature(v *mat.Dense) float64 {
	var gv mat.Dense
	gv.Mul(q.g, v)
	return mat.Sum(elemMul(v, &gv))
}

// elemMul returns the element-wise product of a and b.
func elemMul(a, b *mat.Dense) *mat.Dense {
	var m mat.Dense
	m.MulElem(a, b)
	return &m
}

// tangent returns the projection of g onto the tangent space, at the
// rank-R approximation of basis, of the manifold of rank-R balanced
// matricisations: U U^T G + G V V^T - U U^T G V V^T (as a D x p matrix).
func tangent(h Hankel, basis, g *mat.Dense, rank int) (*mat.Dense, error) {
	view := Hankel{Len: h.Len, In: h.In, Out: h.Out, Data: basis.RawMatrix().Data}
	u, _, vt, _, err := truncSVD(view.Matrix(h.Balanced()), rank, 0)
	if err != nil {
		return nil, err
	}
	gm := Hankel{Len: h.Len, In: h.In, Out: h.Out, Data: g.RawMatrix().Data}.Matrix(h.Balanced())
	rows, cols := gm.Dims()
	var utg, gv, left, right, both mat.Dense
	utg.Mul(u.T(), gm) // R x cols
	left.Mul(u, &utg)  // U U^T G
	gv.Mul(gm, vt.T()) // rows x R
	right.Mul(&gv, vt) // G V V^T
	both.Mul(&left, vt.T())
	var corner mat.Dense
	corner.Mul(&both, vt) // U U^T G V V^T
	out := mat.NewDense(rows, cols, nil)
	out.Add(&left, &right)
	out.Sub(out, &corner)
	return mat.NewDense(h.Rows(), h.Out, out.RawMatrix().Data), nil
}

// projectRank returns the best approximation of the tensor data (shape of
// h) whose balanced matricisation has rank at most rank, as a D x p matrix.
func projectRank(h Hankel, data []float64, rank int) (*mat.Dense, error) {
	view := Hankel{Len: h.Len, In: h.In, Out: h.Out, Data: data}
	m := view.Matrix(h.Balanced())
	u, s, vt, r, err := truncSVD(m, rank, 0)
	if err != nil {
		return nil, err
	}
	scaleRows(vt, s, r)
	rows, cols := m.Dims()
	out := mat.NewDense(rows, cols, nil)
	out.Mul(u, vt)
	return mat.NewDense(h.Rows(), h.Out, out.RawMatrix().Data), nil
}

// projectTT returns the TT-SVD approximation of TT-rank at most rank of
// the tensor data (shape d x ... x d x p), as a D x p matrix.
func projectTT(h Hankel, data []float64, rank int) (*mat.Dense, error) {
	dims := make([]int, h.Len+1)
	for k := range h.Len {
		dims[k] = h.In
	}
	dims[h.Len] = h.Out
	t, err := TTSVD(data, dims, rank, 0)
	if err != nil {
		return nil, err
	}
	return mat.NewDense(h.Rows(), h.Out, t.Dense()), nil
}
