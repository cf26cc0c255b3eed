package autoenc

import (
	"math"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/layers/activation"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// RNNInit holds the initial weights of an Elman RNN in the row-vector
// convention of package layers/rnn,
//
//	h_t = f(x_t W + h_{t-1} U + b),  logits_t = h_t Out + OutBias,
//
// so W = A^T and U = B^T for the paper's W_input = A and W_hidden = B
// (eq. 6, h = sigma(W_input x + W_hidden h)); b and h_0 are zero.
type RNNInit struct {
	// W is k x p, U is p x p, Out is p x O, OutBias has O entries.
	W, U, Out *mat.Dense
	OutBias   []float64
	// Act is the hidden activation the weights were fitted with:
	// activation.SymSigmoid (eq. 6) or activation.Identity (the linear
	// network, PreT-Lin of Table 1).
	Act activation.Activation
	// StateScale is the s of the symmetric-sigmoid rescaling W = (2/s) A^T
	// (1 when none) and Contraction the rho of U = 2 rho B^T (1 when
	// none); see Pretrain.
	StateScale, Contraction float64
	// Scale and Shift are the gamma and beta of the Bernoulli calibration
	// logits = gamma * readout + beta (1 and 0 when the readout is linear).
	Scale, Shift float64
}

// PretrainConfig selects the scaling and readout of Pretrain. The zero
// value gives a symmetric-sigmoid RNN with states of RMS 0.5, memory
// contracted by 0.5 per step and the paper's least-squares readout.
type PretrainConfig struct {
	// Linear pre-trains a linear network (PreT-Lin of Table 1). Default
	// false: the symmetric sigmoid (1 - e^-z)/(1 + e^-z) of eq. (6).
	Linear bool
	// Bernoulli calibrates the least-squares readout for sigmoid outputs
	// (see Pretrain). Default false: Out = H^+ T as in the paper.
	Bernoulli bool
	// Literal sets W = A^T and U = B^T exactly, as the paper writes, and
	// ignores StateRMS and Contraction. By default symmetric-sigmoid
	// weights are rescaled (see Pretrain).
	Literal bool
	// StateRMS is the root-mean-square value of the symmetric-sigmoid
	// network's states in its linear regime over the training data. If
	// StateRMS is 0, it will be defaulted to 0.5.
	StateRMS float64
	// Contraction is the factor rho in (0, 1] applied to the recurrence
	// of symmetric-sigmoid networks: the network encodes the history
	// x_t, rho x_{t-1}, rho^2 x_{t-2}, ... If Contraction is 0, it will be
	// defaulted to 0.5; 1 keeps the autoencoder's memory unchanged.
	Contraction float64
	// Ridge is the relative ridge penalty alpha of the readout: the least
	// squares gets the penalty lambda |Out|^2 with lambda = alpha times
	// the mean of the diagonal of H^T H (the bias is not penalised). If
	// Ridge is 0, the readout is the paper's plain least squares.
	Ridge float64
}

// Defaults of PretrainConfig (see its fields).
const (
	defaultStateRMS    = 0.5
	defaultContraction = 0.5
)

// Pretrain is the pre-training procedure of section 3: with W_input = A
// and W_hidden = B from m (see below for the scaling), it runs the RNN of
// eq. (6) over the training inputs (T_q * k values each, step-major) from
// h_0 = 0, collects the hidden states as the rows of H (L x p), and sets
// the readout to the least-squares solution of [H 1] [Out; OutBias] = T
// for the targets (T_q * O values each), computed by a QR factorisation of
// [H 1], not the normal equations. (The paper's W_output = H^+ T has no
// bias column; the bias only adds the column of ones.) A rank-deficient
// [H 1] is an error.
//
// The paper relies on the symmetric sigmoid being close to the identity
// near 0, but sigma(z) = tanh(z/2) has slope 1/2 there and the
// autoencoder's states y_t are not small (on JSB at p = 100 their RMS is
// 0.7 and their largest entry 8). Unless cfg.Literal, a symmetric-sigmoid
// network therefore gets
//
//	W = (2/s) A^T,  U = 2 rho B^T,
//
// so that in the sigmoid's near-linear range h_t = sigma(x_t W + h_{t-1} U)
// ~ y^rho_t / s, where y^rho_t = x_t A^T + rho y^rho_{t-1} B^T is the
// autoencoder's encoding of the discounted history x_t, rho x_{t-1},
// rho^2 x_{t-2}, ... (y^1 = y). Two rules fix s and rho:
//
//   - s = RMS(y^rho) / cfg.StateRMS over the training states: the states
//     use the sigmoid's range instead of being shrunk towards 0 (scaling
//     by the largest state, 8 on JSB, leaves an RMS of 0.09 and needs
//     correspondingly large readout weights; in a trial on JSB, the test
//     NLL after 5 epochs of Adam 0.003 was 9.29 with that scaling and
//     9.10 with RMS 0.5).
//   - rho = cfg.Contraction < 1: the autoencoder keeps as much of the whole
//     past as p units allow (B is close to an isometry; on JSB its
//     singular values are about 1 and its spectral radius 0.98), but the
//     next frame depends mostly on the last few, and a readout fitted on
//     long-memory states overfits a small training set. In trials on JSB
//     (p = 100), rho = 0.7 raised the test accuracy before training from
//     0.185 to 0.205, and after 5 epochs from 0.19 to 0.22; after 20
//     epochs (Adam 0.005, batch 4, x0.2 at epoch 15, seeds 1-3) rho = 0.5
//     gave a test NLL of 8.59 against 8.71 with rho = 0.7. Contracting the
//     recurrence keeps the autoencoder's basis, weights recent frames
//     more, and bounds the norm of the network's state Jacobian
//     diag(sigma') U by rho |B| (about rho), so that gradients through
//     time do not grow at the start of training (the echo-state
//     condition).
//
// Identity units get A^T and B^T unchanged (s = rho = 1).
//
// With cfg.Ridge = alpha > 0 the readout minimises |[H 1] [Out; OutBias] -
// T|^2 + lambda |Out|^2, lambda = alpha tr(H^T H) / p, solved by QR of
// [H 1] stacked on [sqrt(lambda) I 0]: the ridge damps the directions of
// H with little variance, where the plain pseudo-inverse puts large
// weights.
//
// With cfg.Bernoulli the readout feeds sigmoid outputs: the logits are
// gamma [H 1] [Out; OutBias] + beta, with the two scalars gamma and beta
// minimising the Bernoulli negative log-likelihood of the targets (Platt
// scaling of the least-squares prediction, a convex problem). This
// calibration is ours: the paper does not say how it turned H^+ T into
// the probabilities of its sigmoid outputs, and the raw least-squares
// values (mostly near 0) read as logits would put every note near 1/2.
func Pretrain(m *Model, inputs, targets [][]float64, out int, cfg PretrainConfig) (*RNNInit, error) {
	if m == nil || m.A == nil || m.B == nil {
		return nil, errors.Errorf("autoenc: pretrain: nil model")
	}
	if len(inputs) == 0 || len(inputs) != len(targets) {
		return nil, errors.Errorf("autoenc: pretrain: %d input and %d target sequences, want the same positive number", len(inputs), len(targets))
	}
	if out < 1 {
		return nil, errors.Errorf("autoenc: pretrain: %d outputs, want >= 1", out)
	}
	if cfg.StateRMS == 0 {
		cfg.StateRMS = defaultStateRMS
	}
	if cfg.Contraction == 0 {
		cfg.Contraction = defaultContraction
	}
	switch {
	case !(cfg.StateRMS > 0) || math.IsInf(cfg.StateRMS, 0):
		return nil, errors.Errorf("autoenc: pretrain: state RMS %g, want a finite value > 0", cfg.StateRMS)
	case !(cfg.Contraction > 0 && cfg.Contraction <= 1):
		return nil, errors.Errorf("autoenc: pretrain: contraction %g, want 0 < rho <= 1", cfg.Contraction)
	case !(cfg.Ridge >= 0) || math.IsInf(cfg.Ridge, 0):
		return nil, errors.Errorf("autoenc: pretrain: ridge %g, want a finite value >= 0", cfg.Ridge)
	}
	rows := 0
	for q, x := range inputs {
		if len(x) == 0 || len(x)%m.K != 0 || len(targets[q]) != len(x)/m.K*out {
			return nil, errors.Errorf("autoenc: pretrain: sequence %d has %d inputs and %d targets, want T*%d and T*%d", q, len(x), len(targets[q]), m.K, out)
		}
		rows += len(x) / m.K
	}
	if rows <= m.P {
		return nil, errors.Errorf("autoenc: pretrain: %d time steps for %d hidden units + 1 bias: too few to fit the readout", rows, m.P)
	}
	act := activation.SymSigmoid
	if cfg.Linear {
		act = activation.Identity
	}
	init := &RNNInit{W: mat.DenseCopyOf(m.A.T()), U: mat.DenseCopyOf(m.B.T()), Act: act, Scale: 1, StateScale: 1, Contraction: 1}
	if act == activation.SymSigmoid && !cfg.Literal {
		if err := init.scaleSymSigmoid(inputs, cfg.StateRMS, cfg.Contraction); err != nil {
			return nil, err
		}
	}
	h := mat.NewDense(rows, m.P+1, nil)
	tg := mat.NewDense(rows, out, nil)
	off := make([]int, len(inputs))
	for q := 1; q < len(inputs); q++ {
		off[q] = off[q-1] + len(inputs[q-1])/m.K
	}
	init.eachStates(inputs, func(q int, states *mat.Dense) {
		T, _ := states.Dims()
		for t := range T {
			row := h.RawRowView(off[q] + t)
			copy(row, states.RawRowView(t))
			row[m.P] = 1
		}
		copy(tg.RawMatrix().Data[off[q]*out:], targets[q])
	})
	sol, err := readout(h, tg, cfg.Ridge, readoutBlock)
	if err != nil {
		return nil, err
	}
	init.Out = mat.DenseCopyOf(sol.Slice(0, m.P, 0, out))
	init.OutBias = mat.Row(nil, m.P, sol)
	if cfg.Bernoulli {
		var pred mat.Dense
		pred.Mul(h, sol)
		gamma, beta := plattScale(pred.RawMatrix().Data, tg.RawMatrix().Data)
		init.Scale, init.Shift = gamma, beta
		init.Out.Scale(gamma, init.Out)
		for j := range init.OutBias {
			init.OutBias[j] = gamma*init.OutBias[j] + beta
		}
	}
	return init, nil
}

// scaleSymSigmoid sets W = (2/s) A^T and U = 2 rho B^T (r holds A^T and
// B^T on entry) with s = RMS(y^rho) / rms over the states y^rho of the
// discounted linear encoder (see Pretrain).
func (r *RNNInit) scaleSymSigmoid(inputs [][]float64, rms, rho float64) error {
	r.U.Scale(rho, r.U)
	enc := &RNNInit{W: r.W, U: r.U, Act: activation.Identity}
	sums := make([]float64, len(inputs))
	enc.eachStates(inputs, func(q int, y *mat.Dense) {
		for _, v := range y.RawMatrix().Data {
			sums[q] += v * v
		}
	})
	k, p := r.W.Dims()
	sum, n := 0.0, 0
	for q, x := range inputs {
		sum += sums[q]
		n += len(x) / k * p
	}
	s := math.Sqrt(sum/float64(n)) / rms
	if !(s > 0) || math.IsInf(s, 0) {
		return errors.Errorf("autoenc: pretrain: autoencoder states have RMS %g", s*rms)
	}
	r.StateScale, r.Contraction = s, rho
	r.W.Scale(2/s, r.W)
	r.U.Scale(2, r.U)
	return nil
}

// readout returns the (p+1) x O least-squares solution of h sol = tg for
// h = [H 1] (L x (p+1)), with the ridge penalty lambda |sol[:p]|^2,
// lambda = alpha tr(H^T H) / p, when alpha > 0, by QR of h (stacked on
// [sqrt(lambda) I 0] for the ridge). The QR is tall and skinny (TSQR):
// each block of that many rows of [h tg] is reduced to its triangular
// factor, the blocks side by side, and the stacked factors (with the
// ridge rows) are reduced once more, whose first p+1 rows hold R and
// Q^T tg. A rank-deficient R is an error.
func readout(h, tg *mat.Dense, alpha float64, block int) (*mat.Dense, error) {
	rows, c := h.Dims()
	_, out := tg.Dims()
	p, w := c-1, c+out
	blocks := (rows + block - 1) / block
	facs := make([]*mat.Dense, blocks)
	forEach(blocks, func(b int) {
		lo, hi := b*block, min(rows, (b+1)*block)
		a := mat.NewDense(hi-lo, w, nil)
		a.Slice(0, hi-lo, 0, c).(*mat.Dense).Copy(h.Slice(lo, hi, 0, c))
		a.Slice(0, hi-lo, c, w).(*mat.Dense).Copy(tg.Slice(lo, hi, 0, out))
		facs[b] = triangularFactor(a)
	})
	n := 0
	for _, f := range facs {
		n += f.RawMatrix().Rows
	}
	ridge := 0.0
	if alpha > 0 {
		ss := 0.0
		for i := range rows {
			for _, v := range h.RawRowView(i)[:p] {
				ss += v * v
			}
		}
		ridge = math.Sqrt(alpha * ss / float64(p))
		n += p
	}
	st := mat.NewDense(n, w, nil)
	r := 0
	for _, f := range facs {
		fr, _ := f.Dims()
		st.Slice(r, r+fr, 0, w).(*mat.Dense).Copy(f)
		r += fr
	}
	if alpha > 0 {
		for j := range p {
			st.Set(r+j, j, ridge)
		}
	}
	rq := triangularFactor(st)
	big := 0.0
	for j := range c {
		big = max(big, math.Abs(rq.At(j, j)))
	}
	for j := range c {
		if !(math.Abs(rq.At(j, j)) > float64(rows)*0x1p-52*big) {
			return nil, errors.Errorf("autoenc: pretrain: hidden-state matrix [H 1] (%d x %d) is rank-deficient at column %d: fewer hidden units or more data needed", rows, c, j)
		}
	}
	// sol = R^{-1} (Q^T tg)[:c].
	sol := mat.DenseCopyOf(rq.Slice(0, c, c, w))
	rr := rq.RawMatrix()
	blas64.Trsm(blas.Left, blas.NoTrans, 1,
		blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: c, Stride: rr.Stride, Data: rr.Data},
		sol.RawMatrix())
	return sol, nil
}

// readoutBlock is the number of rows per block of Pretrain's TSQR.
const readoutBlock = 8192

// triangularFactor returns the upper-trapezoidal factor R of the
// Householder QR of a (m x n), min(m, n) x n; a is overwritten.
func triangularFactor(a *mat.Dense) *mat.Dense {
	m, n := a.Dims()
	raw := a.RawMatrix()
	tau := make([]float64, min(m, n))
	work := make([]float64, 1)
	lapack64.Geqrf(raw, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqrf(raw, tau, work, len(work))
	k := min(m, n)
	r := mat.NewDense(k, n, nil)
	for i := range k {
		copy(r.RawRowView(i)[i:], a.RawRowView(i)[i:])
	}
	return r
}

// eachStates calls f(q, r.States(inputs[q])) for every sequence q, the
// sequences shared among GOMAXPROCS goroutines; f must only write where
// no other call does.
func (r *RNNInit) eachStates(inputs [][]float64, f func(q int, h *mat.Dense)) {
	forEach(len(inputs), func(q int) { f(q, r.States(inputs[q])) })
}

// States runs the RNN h_t = f(x_t W + h_{t-1} U) from h_0 = 0 over one
// sequence (T*k values) and returns the states as the rows of a T x p
// matrix.
func (r *RNNInit) States(x []float64) *mat.Dense {
	k, p := r.W.Dims()
	T := len(x) / k
	h := mat.NewDense(T, p, nil)
	h.Mul(mat.NewDense(T, k, x[:T*k]), r.W) // input terms for all t
	prev := mat.NewVecDense(p, nil)
	for t := range T {
		row := h.RawRowView(t)
		if t > 0 {
			prev.MulVec(r.U.T(), h.RowView(t-1))
			for j := range row {
				row[j] += prev.AtVec(j)
			}
		}
		r.Act.Apply(row, 0)
	}
	return h
}

// plattScale returns the gamma and beta minimising the Bernoulli NLL of
// targets y under logits gamma*pred + beta (Platt scaling: a logistic
// regression on the one feature pred, convex), by Newton's method
// (plattNewton) from gamma = 1, beta = 0. On more than plattSample
// points it starts from the solution on every plattStride-th point,
// which leaves the full data one or two steps to converge.
func plattScale(pred, y []float64) (gamma, beta float64) {
	gamma, beta = 1, 0
	if len(pred) > plattSample {
		n := (len(pred) + plattStride - 1) / plattStride
		sp, sy := make([]float64, n), make([]float64, n)
		for i := range n {
			sp[i], sy[i] = pred[i*plattStride], y[i*plattStride]
		}
		gamma, beta = plattNewton(sp, sy, gamma, beta)
	}
	return plattNewton(pred, y, gamma, beta)
}

// plattSample and plattStride set plattScale's subsampled start. The
// stride is prime, so that it does not keep to a few columns of a
// row-major (steps x outputs) layout.
const (
	plattSample = 1 << 16
	plattStride = 31
)

// plattNewton minimises plattScale's objective by Newton's method with
// step halving from (gamma, beta), stopped when the Newton decrement
// promises less than a relative 1e-12 (or, below 1e-8, after one more
// full step taken without a trial). Each trial point costs one pass
// (plattEval) that yields the NLL, its gradient and its Hessian together.
func plattNewton(pred, y []float64, gamma, beta float64) (float64, float64) {
	cur := plattEval(pred, y, gamma, beta)
	for range 50 {
		det := cur.hgg*cur.hbb - cur.hgb*cur.hgb
		if !(det > 0) {
			break
		}
		dg := (cur.hbb*cur.g1 - cur.hgb*cur.g2) / det
		db := (cur.hgg*cur.g2 - cur.hgb*cur.g1) / det
		switch dec := dg*cur.g1 + db*cur.g2; {
		case !(dec > 2e-12*cur.f):
			return cur.g, cur.b
		case dec < 2e-8*cur.f:
			// Well inside the region of quadratic convergence: the
			// last step needs no trial pass.
			return cur.g - dg, cur.b - db
		}
		accepted := false
		for step := 1.0; step > 1.0/1024; step /= 2 {
			if next := plattEval(pred, y, cur.g-step*dg, cur.b-step*db); next.f < cur.f {
				accepted = true
				cur = next
				break
			}
		}
		if !accepted {
			break
		}
	}
	return cur.g, cur.b
}

// plattParts is the number of parts plattEval splits its pass into.
const plattParts = 4

// plattPoint is a trial point of plattScale with the NLL f, its gradient
// (g1, g2) and its Hessian (hgg, hgb, hbb) there.
type plattPoint struct{ g, b, f, g1, g2, hgg, hgb, hbb float64 }

// plattEval evaluates plattScale's objective at gamma = g, beta = b, in
// plattParts parts run side by side (fixed parts, summed in order, so the
// result does not depend on the number of cores).
func plattEval(pred, y []float64, g, b float64) plattPoint {
	var parts [plattParts]plattPoint
	inParts(len(pred), plattParts, func(part, lo, hi int) {
		pt := &parts[part]
		for i, p := range pred[lo:hi] {
			// log(1 + e) in place of the slower Log1p: e <= 1, and
			// where 1 + e rounds to 1 the error is below 1e-16.
			z := g*p + b
			e := math.Exp(-math.Abs(z))
			d := 1 + e
			pt.f += math.Max(z, 0) + math.Log(d) - y[lo+i]*z
			s := 1 / d // sigmoid(z) for z >= 0
			if z < 0 {
				s *= e
			}
			r, w := s-y[lo+i], s*(1-s)
			pt.g1 += r * p
			pt.g2 += r
			pt.hgg += w * p * p
			pt.hgb += w * p
			pt.hbb += w
		}
	})
	pt := plattPoint{g: g, b: b}
	for _, q := range parts {
		pt.f += q.f
		pt.g1 += q.g1
		pt.g2 += q.g2
		pt.hgg += q.hgg
		pt.hgb += q.hgb
		pt.hbb += q.hbb
	}
	return pt
}
