package wfa

import (
	"math"
	"slices"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/internal/vec"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/spectral"
)

// Parameter names of the linear 2-RNN a WFA becomes (Theorem 2 of the
// 2-RNN paper): alpha [n], A [n, d, n] with A[i, s, j] = A_s[i, j], and
// omega [n].
const (
	ParamAlpha = "alpha"
	ParamA     = "A"
	ParamOmega = "omega"
)

// Likelihood is the training problem of Finetune: the mean negative
// log-likelihood of strings under the WFA read as a distribution through
// its next-symbol probabilities (see loss), which equals
//
//	-(1/B) sum_x [log f(x) - log Z],  Z = alpha^T (I - S)^-1 omega,  S = sum_s A_s,
//
// wherever the automaton gives no negative next-symbol weight, Z being the
// exact normaliser (the sum of f over all strings) while the spectral
// radius of S is below 1. Elsewhere each next-symbol weight counts by its
// absolute value, except the last, whose sign is the sign of f(x): a
// string of value not above 0 costs the floor and more (see loss). The
// loss is bounded below by 0 and differentiable wherever no weight is 0
// and no step is floored (see condFloor): the plain form -log f + log Z is
// not bounded, since a signed automaton can push Z to 0 by giving negative
// values to unseen strings.
// Outside the normalisable region (radius >= 1) the loss is +Inf and the
// Trainer stops, keeping the best validated parameters. It implements
// optim.Problem, optim.Evaluator and optim.Validator.
type Likelihood struct {
	n, d   int
	params *params.Params
	train  [][]int
	valid  *EvalSet
	// best holds the parameters of the lowest validation loss seen.
	best     *params.Params
	bestLoss float64
	batch    batchState
}

// NewLikelihood builds the problem from a WFA (its parameters are copied)
// and the training and validation strings.
func NewLikelihood(w spectral.WFA, train, valid [][]int) (*Likelihood, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if w.Out != 1 {
		return nil, errors.Errorf("wfa: fine-tuning a WFA with %d outputs, want 1", w.Out)
	}
	if len(train) == 0 || len(valid) == 0 {
		return nil, errors.Errorf("wfa: fine-tuning on %d training and %d validation strings", len(train), len(valid))
	}
	n, d := w.States, len(w.Trans)
	p := params.New()
	rnn := w.RNN()
	for _, a := range []struct {
		name  string
		shape []int
		v     []float64
	}{{ParamAlpha, []int{n}, rnn.Alpha}, {ParamA, []int{n, d, n}, rnn.A}, {ParamOmega, []int{n}, rnn.Omega}} {
		if _, err := p.Add(a.name, a.shape...); err != nil {
			return nil, err
		}
		if err := p.Set(a.name, a.v); err != nil {
			return nil, err
		}
	}
	return &Likelihood{n: n, d: d, params: p, train: train, valid: NewEvalSet(valid), bestLoss: math.Inf(1)}, nil
}

// Params are alpha, A and omega.
func (l *Likelihood) Params() *params.Params { return l.params }

// NumExamples is the number of training strings.
func (l *Likelihood) NumExamples() int { return len(l.train) }

// WFA returns the automaton of the current parameters.
func (l *Likelihood) WFA() spectral.WFA {
	r := spectral.RNN{States: l.n, In: l.d, Out: 1, Alpha: slices.Clone(l.params.Data(ParamAlpha)),
		A: slices.Clone(l.params.Data(ParamA)), Omega: slices.Clone(l.params.Data(ParamOmega))}
	return r.WFA()
}

// Best returns the automaton of the lowest validation loss seen (the
// current one before any validation).
func (l *Likelihood) Best() spectral.WFA {
	if l.best == nil {
		return l.WFA()
	}
	cur := l.params.Clone()
	_ = l.params.CopyFrom(l.best)
	w := l.WFA()
	_ = l.params.CopyFrom(cur)
	return w
}

// LossGrad is the mean loss over the batch and its gradient.
func (l *Likelihood) LossGrad(batch []int, grads *params.Params) (float64, error) {
	grads.Zero()
	return l.loss(batch, grads)
}

// Loss is the mean loss over the batch.
func (l *Likelihood) Loss(batch []int) (float64, error) { return l.loss(batch, nil) }

// ValidationLoss is the loss (nats per string) on the validation strings,
// each distinct string weighted by its frequency: the training objective,
// a proper likelihood that cannot be lowered by moving mass onto negative
// values. It records the best parameters.
func (l *Likelihood) ValidationLoss() (float64, error) {
	loss := l.lossOn(l.valid.Seqs, l.valid.Weights, nil)
	if loss < l.bestLoss {
		l.bestLoss = loss
		l.best = l.params.Clone()
	}
	return loss, nil
}

// NLL is the mean negative log-likelihood (nats per string) of the
// strings of e under w read as a distribution by its next-symbol
// probabilities (the loss of Likelihood), +Inf when the spectral radius of
// sum_s A_s is >= 1 or the mass is <= 0.
func NLL(w spectral.WFA, e *EvalSet) float64 {
	l, err := NewLikelihood(w, e.Seqs, e.Seqs)
	if err != nil {
		return math.Inf(1)
	}
	return l.lossOn(e.Seqs, e.Weights, nil)
}

// normaliser returns beta = (I - S)^-1 omega and I - S (row-major n x n,
// for backNormaliser), and whether the automaton is normalisable:
// spectral radius of S below 1 (stable) and mass Z = alpha^T beta positive
// and finite.
func (l *Likelihood) normaliser() (beta, ims []float64, ok bool) {
	n := l.n
	ims = l.iMinusS()
	if !stable(ims, n) {
		return nil, nil, false
	}
	var lu mat.LU
	lu.Factorize(mat.NewDense(n, n, ims))
	var bv mat.VecDense
	if err := lu.SolveVecTo(&bv, false, mat.NewVecDense(n, slices.Clone(l.params.Data(ParamOmega)))); err != nil {
		return nil, nil, false
	}
	beta = bv.RawVector().Data
	z := dot(l.params.Data(ParamAlpha), beta)
	return beta, ims, z > 0 && !math.IsInf(z, 0)
}

// iMinusS returns I - S, S = sum_s A_s, row-major n x n.
func (l *Likelihood) iMinusS() []float64 {
	n, d := l.n, l.d
	a := l.params.Data(ParamA)
	ims := make([]float64, n*n)
	for i := range n {
		row := ims[i*n : (i+1)*n]
		for s := range d {
			for j, v := range a[(i*d+s)*n : (i*d+s+1)*n] {
				row[j] -= v
			}
		}
		row[i]++
	}
	return ims
}

// stableSquarings bounds the repeated squarings of contracts.
const stableSquarings = 10

// stable reports whether the spectral radius of S is below 1, given
// I - S (row-major n x n): false for a NaN or infinite entry, true by the
// certificate of contracts when it holds, else by the eigenvalues of I - S
// (each 1 - lambda with |lambda| < 1 required).
func stable(ims []float64, n int) bool {
	for _, v := range ims {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	if contracts(ims, n) {
		return true
	}
	var e mat.Eigen
	if !e.Factorize(mat.NewDense(n, n, slices.Clone(ims)), mat.EigenNone) {
		return false
	}
	for _, v := range e.Values(nil) {
		if lam := complex(1, 0) - v; real(lam)*real(lam)+imag(lam)*imag(lam) >= 1 {
			return false
		}
	}
	return true
}

// contracts reports whether ||S^k||_F <= 1/2 is proved for one of k = 1,
// 2, 4, ..., 2^(stableSquarings-1), given I - S, computing the powers by
// repeated squaring. As rho(S)^k <= ||S^k||_F, true proves rho(S) < 1;
// false proves nothing. The rounding is bounded, not neglected: with P_j
// the computed S^(2^j), f_j >= ||P_j||_F (the computed norm with a margin
// for its own rounding) and u the unit roundoff, ||P_j - S^(2^j)||_F <=
// e_j where e_0 = 0 and e_(j+1) = (2 f_j + e_j) e_j + (n+2) u f_j^2 (a
// product of n terms is off by at most n u / (1 - n u) times the product
// of the magnitudes), and P_j certifies when f_j + e_j <= 1/2. It costs a
// few matrix products where the eigenvalues cost a Hessenberg QR
// iteration.
func contracts(ims []float64, n int) bool {
	const u = 0x1p-53
	p, q := make([]float64, n*n), make([]float64, n*n)
	for i, v := range ims {
		p[i] = -v
	}
	for i := range n {
		p[i*n+i]++
	}
	e := 0.0
	for j := range stableSquarings {
		ss := 0.0
		for _, v := range p {
			ss += v * v
		}
		f := math.Sqrt(ss) * (1 + float64(n*n+2)*u)
		if f+e <= 0.5 {
			return true
		}
		if !(f+e < 1e10) || j == stableSquarings-1 {
			return false
		}
		graph.Gemm(false, false, n, n, n, 1, p, n, p, n, 0, q, n)
		p, q = q, p
		e = (2*f+e)*e + float64(n+2)*u*f*f
	}
	return false
}

// condFloor is the smallest next-symbol probability a term of the loss
// takes: a symbol whose probability is below it costs -log(condFloor) and
// passes no gradient.
const condFloor = 1e-12

// endSlope is the slope, in nats per unit of the relative end weight
// u = g_end / sum |g|, of the cost of a string whose value f(x) is not
// above condFloor of its last step's weights: -log(condFloor) - endSlope u,
// so a string of value <= 0 costs at least the floor's cost, more the
// more negative its value, and its gradient pulls the value back up. The
// slope is the floor's own cost, so a value of -sum |g| costs twice the
// floor.
var endSlope = -math.Log(condFloor)

// loss computes the mean loss over the batch and, when grads is not nil,
// adds its gradient. Each string x_1..x_k costs -sum_t log q_t(x_t) - log
// q_{k+1}(end), with q_t the next-symbol distribution after x_1..x_(t-1):
// g_s = h A_s beta, g_end = h omega, q = |g| / sum |g|, h = alpha^T
// A_x1..A_x(t-1). As sum_s A_s beta + omega = beta, the product of the q_t
// telescopes to f(x) / Z wherever no g is negative. A negative weight is
// the sign noise of a spectral estimate around a small probability, and
// its absolute value keeps that string likely and its gradient alive,
// where clipping it to 0 would cost -log(condFloor) and pass no gradient.
// The last weight is the exception: g_end after the whole string is f(x)
// scaled by a positive number, and its sign is what the floor rule reads,
// so an end weight not above condFloor of its step costs the floor and
// more (see endSlope), never the likelihood of |f(x)|. Read by its
// absolute value, a string whose value crossed 0 would be as likely as
// before, its gradient would push the value further below 0, and the
// scored model would give it the floor.
func (l *Likelihood) loss(batch []int, grads *params.Params) (float64, error) {
	seqs := make([][]int, len(batch))
	weights := make([]float64, len(batch))
	for i, b := range batch {
		seqs[i], weights[i] = l.train[b], 1/float64(len(batch))
	}
	return l.lossOn(seqs, weights, grads), nil
}

// lossOn is the weighted sum of the strings' losses (+Inf outside the
// normalisable region), adding its gradient to grads when not nil. The
// strings run through batchState in chunks of consecutive strings (at
// most lossChunk strings and, bar a single string, lossChunkValues values
// per per-row buffer).
func (l *Likelihood) lossOn(seqs [][]int, weights []float64, grads *params.Params) float64 {
	beta, ims, ok := l.normaliser()
	if !ok {
		return math.Inf(1)
	}
	n, d := l.n, l.d
	a, omega := l.params.Data(ParamA), l.params.Data(ParamOmega)
	// m[:, s] = A_s beta (s < d), m[:, d] = omega; stored row-major n x (d+1).
	m := make([]float64, n*(d+1))
	for i := range n {
		for s := range d {
			m[i*(d+1)+s] = dot(a[(i*d+s)*n:(i*d+s+1)*n], beta)
		}
		m[i*(d+1)+d] = omega[i]
	}
	var gm []float64
	if grads != nil {
		gm = make([]float64, n*(d+1))
	}
	nll, width := 0.0, max(n, d+1)
	for lo := 0; lo < len(seqs); {
		hi, rows := lo+1, len(seqs[lo])+1
		for hi < len(seqs) && hi-lo < lossChunk && (rows+len(seqs[hi])+1)*width <= lossChunkValues {
			rows += len(seqs[hi]) + 1
			hi++
		}
		nll += l.batch.run(seqs[lo:hi], weights[lo:hi], l.params, m, n, d, grads, gm)
		lo = hi
	}
	if grads != nil {
		l.backNormaliser(beta, ims, gm, grads)
	}
	return nll
}

// lossChunk is the most strings batchState runs at once.
const lossChunk = 256

// lossChunkValues bounds a chunk's rows (positions) times the widest of
// its per-row buffers (the states, or the next-symbol weights), unless one
// string alone needs more (a variable for the tests).
var lossChunkValues = 1 << 22

// batchState holds the buffers of a batch of strings run through the
// automaton together, one row per string and position: the rows of
// position t > 0 are those of the strings at least t long, grouped by
// their t-th symbol (so that each symbol's transition is one matrix
// product), and rows off[t] to off[t+1] of each per-row buffer.
type batchState struct {
	off    []int     // first row of each position
	str    []int     // the string (index into the batch) of each row
	src    []int     // the row of the previous position of each row (-1 at position 0)
	count  []int     // rows per symbol at one position
	h      []float64 // states, each row rescaled to a largest magnitude of 1
	c      []float64 // the scale each row was divided by
	g      []float64 // next-symbol weights of each row, then the loss's gradient in them
	direct []float64 // the loss's gradient in each row's state
	tmp    []float64 // the previous position's states, gathered in this one's order
}

// run returns the weighted loss of the strings (see loss) and, when grads
// is not nil, adds its gradient to grads (alpha, A) and gm (the gradient in
// m).
func (st *batchState) run(seqs [][]int, weights []float64, p *params.Params, m []float64, n, d int, grads *params.Params, gm []float64) float64 {
	alpha, a := p.Data(ParamAlpha), p.Data(ParamA)
	rows := 0
	for _, x := range seqs {
		rows += len(x) + 1
	}
	st.str, st.src = grow1i(st.str, rows), grow1i(st.src, rows)
	st.h, st.c = grow1(st.h, rows*n), grow1(st.c, rows)
	st.g = grow1(st.g, rows*(d+1))
	st.count = grow1i(st.count, d)
	st.off = append(st.off[:0], 0)
	for r := range seqs {
		st.str[r], st.src[r] = r, -1
		copy(st.h[r*n:(r+1)*n], alpha)
		st.c[r] = rescale(st.h[r*n : (r+1)*n])
	}
	st.off = append(st.off, len(seqs))
	// Forward: position t's rows from position t-1's, one product per symbol.
	for t := 1; ; t++ {
		prev, end := st.off[t-1], st.off[t]
		clear(st.count)
		for r := prev; r < end; r++ {
			if x := seqs[st.str[r]]; len(x) >= t {
				st.count[x[t-1]]++
			}
		}
		next := end
		for s := range d {
			next, st.count[s] = next+st.count[s], next
		}
		if next == end {
			break
		}
		for r := prev; r < end; r++ {
			if x := seqs[st.str[r]]; len(x) >= t {
				q := st.count[x[t-1]]
				st.count[x[t-1]]++
				st.str[q], st.src[q] = st.str[r], r
			}
		}
		st.off = append(st.off, next)
		for lo := end; lo < next; {
			s := seqs[st.str[lo]][t-1]
			hi := lo
			for hi < next && seqs[st.str[hi]][t-1] == s {
				hi++
			}
			st.gather(lo, hi, n)
			graph.Gemm(false, false, hi-lo, n, n, 1, st.tmp, n, a[s*n:], d*n, 0, st.h[lo*n:hi*n], n)
			lo = hi
		}
		for r := end; r < next; r++ {
			st.c[r] = rescale(st.h[r*n : (r+1)*n])
		}
	}
	// Read-out: every row's next-symbol weights in one product.
	graph.Gemm(false, false, rows, d+1, n, 1, st.h, n, m, d+1, 0, st.g, d+1)
	loss := 0.0
	for t := range len(st.off) - 1 {
		for r := st.off[t]; r < st.off[t+1]; r++ {
			x, w := seqs[st.str[r]], weights[st.str[r]]
			y := d
			if t < len(x) {
				y = x[t]
			}
			g := st.g[r*(d+1) : (r+1)*(d+1)]
			pos := 0.0
			for _, v := range g {
				pos += math.Abs(v)
			}
			if y == d && pos > 0 && !math.IsInf(pos, 0) && !(g[y] > condFloor*pos) {
				u := g[y] / pos
				loss += w * (-math.Log(condFloor) - endSlope*u)
				if grads == nil {
					continue
				}
				signScale(g, w*endSlope*g[y]/(pos*pos))
				g[y] -= w * endSlope / pos
				continue
			}
			if !(pos > 0) || !(math.Abs(g[y]) > condFloor*pos) {
				loss -= w * math.Log(condFloor)
				clear(g)
				continue
			}
			loss -= w * math.Log(math.Abs(g[y])/pos)
			if grads == nil {
				continue
			}
			gy := g[y]
			signScale(g, w/pos)
			g[y] -= w / gy
		}
	}
	if grads == nil {
		return loss
	}
	st.direct = grow1(st.direct, rows*n)
	graph.Gemm(true, false, n, d+1, rows, 1, st.h, n, st.g, d+1, 1, gm, d+1)
	graph.Gemm(false, true, rows, n, d+1, 1, st.g, d+1, m, d+1, 0, st.direct, n)
	st.back(seqs, a, n, d, grads)
	return loss
}

// signScale sets each g[j] to c times its sign (0 for 0): the gradient
// of c sum_j |g_j|.
func signScale(g []float64, c float64) {
	for j, v := range g {
		switch {
		case v > 0:
			g[j] = c
		case v < 0:
			g[j] = -c
		default:
			g[j] = 0
		}
	}
}

// gather copies the states of the previous position of rows lo to hi
// into tmp, in the rows' order.
func (st *batchState) gather(lo, hi, n int) {
	st.tmp = grow1(st.tmp, (hi-lo)*n)
	for r := lo; r < hi; r++ {
		q := st.src[r]
		copy(st.tmp[(r-lo)*n:(r-lo+1)*n], st.h[q*n:(q+1)*n])
	}
}

// back propagates the direct state gradients through the rescaled forward
// chain h_t = h_(t-1) A_(x_t) / c_t (the loss is invariant to the scale of
// each state, so the scales are constants of the chain), position by
// position from the last, each symbol's rows in two products.
func (st *batchState) back(seqs [][]int, a []float64, n, d int, grads *params.Params) {
	gA, ga := grads.Data(ParamA), grads.Data(ParamAlpha)
	for t := len(st.off) - 2; t >= 0; t-- {
		lo, end := st.off[t], st.off[t+1]
		// direct now holds the gradient in each row's state; scale it to
		// the gradient in the unscaled h_(t-1) A_(x_t).
		for r := lo; r < end; r++ {
			for i := range st.direct[r*n : (r+1)*n] {
				st.direct[r*n+i] /= st.c[r]
			}
		}
		if t == 0 {
			for r := lo; r < end; r++ {
				for i, v := range st.direct[r*n : (r+1)*n] {
					ga[i] += v
				}
			}
			break
		}
		for lo < end {
			s := seqs[st.str[lo]][t-1]
			hi := lo
			for hi < end && seqs[st.str[hi]][t-1] == s {
				hi++
			}
			st.gather(lo, hi, n)
			scaled := st.direct[lo*n : hi*n]
			graph.Gemm(true, false, n, n, hi-lo, 1, st.tmp, n, scaled, n, 1, gA[s*n:], d*n)
			graph.Gemm(false, true, hi-lo, n, n, 1, scaled, n, a[s*n:], d*n, 0, st.tmp, n)
			for r := lo; r < hi; r++ {
				q := st.src[r]
				vec.Axpy(1, st.tmp[(r-lo)*n:(r-lo+1)*n], st.direct[q*n:(q+1)*n])
			}
			lo = hi
		}
	}
}

// backNormaliser adds the gradient that flows through m: m[:, s] = A_s beta
// and m[:, d] = omega, with beta = (I - S)^-1 omega (ims is I - S, as
// normaliser returns it).
func (l *Likelihood) backNormaliser(beta, ims, gm []float64, grads *params.Params) {
	n, d := l.n, l.d
	a := l.params.Data(ParamA)
	gA, gw := grads.Data(ParamA), grads.Data(ParamOmega)
	gbeta := make([]float64, n)
	for i := range n {
		for s := range d {
			c := gm[i*(d+1)+s]
			g := gA[(i*d+s)*n : (i*d+s+1)*n]
			row := a[(i*d+s)*n : (i*d+s+1)*n]
			for j := range n {
				g[j] += c * beta[j]
				gbeta[j] += c * row[j]
			}
		}
		gw[i] += gm[i*(d+1)+d]
	}
	// lambda = (I - S)^-T gbeta; d beta = (I - S)^-1 (dS beta + d omega).
	var lam mat.VecDense
	if err := lam.SolveVec(mat.NewDense(n, n, ims).T(), mat.NewVecDense(n, gbeta)); err != nil {
		return
	}
	lv := lam.RawVector().Data
	for i := range n {
		gw[i] += lv[i]
		for s := range d {
			g := gA[(i*d+s)*n : (i*d+s+1)*n]
			for j := range n {
				g[j] += lv[i] * beta[j]
			}
		}
	}
}

func grow1(v []float64, n int) []float64 {
	if cap(v) < n {
		return make([]float64, n)
	}
	return v[:n]
}

func grow1i(v []int, n int) []int {
	if cap(v) < n {
		return make([]int, n)
	}
	return v[:n]
}

// rescale divides v by its largest magnitude and returns that magnitude
// (1, leaving v alone, when it is 0 or infinite).
func rescale(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	if m == 0 || math.IsInf(m, 0) {
		return 1
	}
	for i := range v {
		v[i] /= m
	}
	return m
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
