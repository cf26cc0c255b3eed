package autoenc

import (
	"math"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"
)

// Activation is the hidden nonlinearity of the RNN being pre-trained.
type Activation int

const (
	// SymSigmoid is the symmetric sigmoid (1 - e^-z)/(1 + e^-z) = tanh(z/2)
	// of eq. (6).
	SymSigmoid Activation = iota
	// Identity gives the linear network (PreT-Lin of Table 1).
	Identity
)

// apply applies the activation in place.
func (a Activation) apply(z []float64) {
	if a == Identity {
		return
	}
	for i, v := range z {
		z[i] = math.Tanh(v / 2)
	}
}

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
	// Act is the hidden activation the weights were fitted with.
	Act Activation
	// StateScale is the s of the symmetric-sigmoid rescaling (1 when
	// none).
	StateScale float64
	// Scale and Shift are the gamma and beta of the Bernoulli calibration
	// logits = gamma * readout + beta (1 and 0 when the readout is linear).
	Scale, Shift float64
}

// PretrainConfig selects the readout of Pretrain. The zero value gives a
// symmetric-sigmoid RNN with a linear least-squares readout.
type PretrainConfig struct {
	// Act is the hidden activation. Default SymSigmoid.
	Act Activation
	// Bernoulli calibrates the least-squares readout for sigmoid outputs
	// (see Pretrain). Default false: Out = H^+ T as in the paper.
	Bernoulli bool
	// Literal sets W = A^T and U = B^T exactly, as the paper writes. By
	// default symmetric-sigmoid weights are rescaled so that the network
	// reproduces the autoencoder's states in its linear regime (see
	// Pretrain).
	Literal bool
}

// Pretrain is the pre-training procedure of section 3: with W_input = A
// and W_hidden = B from m (see below for the scaling), it runs the RNN of eq. (6) over the training
// inputs (T_q * k values each, step-major) from h_0 = 0, collects the
// hidden states as the rows of H (L x p), and sets the readout to the
// least-squares solution of [H 1] [Out; OutBias] = T for the targets
// (T_q * O values each), computed by a QR factorisation of [H 1], not the
// normal equations. (The paper's W_output = H^+ T has no bias column; the
// bias only adds the column of ones.) A rank-deficient [H 1] is an error.
//
// The paper relies on the symmetric sigmoid being close to the identity
// near 0, but sigma(z) = tanh(z/2) has slope 1/2 there and the
// autoencoder's states y_t are far from 0 (of the order of the largest
// singular value over the square root of the number of rows). Unless
// cfg.Literal, a symmetric-sigmoid network therefore gets W = (2/s) A^T
// and U = 2 B^T with s = max_t |y_t|_inf over the training states, so that
// h_t = sigma(x_t W + h_{t-1} U) ~ y_t / s: the autoencoder's dynamics,
// scaled into the sigmoid's near-linear range. Identity units get A^T and
// B^T unchanged (Scale s = 1).
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
	init := &RNNInit{W: mat.DenseCopyOf(m.A.T()), U: mat.DenseCopyOf(m.B.T()), Act: cfg.Act, Scale: 1, StateScale: 1}
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
	if cfg.Act == SymSigmoid && !cfg.Literal {
		s := 0.0
		for _, x := range inputs {
			y, err := m.Encode(x)
			if err != nil {
				return nil, err
			}
			for _, v := range y.RawMatrix().Data {
				s = max(s, math.Abs(v))
			}
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return nil, errors.Errorf("autoenc: pretrain: autoencoder states have maximum %g", s)
		}
		init.StateScale = s
		init.W.Scale(2/s, init.W)
		init.U.Scale(2, init.U)
	}
	h := mat.NewDense(rows, m.P+1, nil)
	tg := mat.NewDense(rows, out, nil)
	r := 0
	for q, x := range inputs {
		states := init.States(x)
		T, _ := states.Dims()
		for t := range T {
			row := h.RawRowView(r + t)
			copy(row, states.RawRowView(t))
			row[m.P] = 1
		}
		copy(tg.RawMatrix().Data[r*out:], targets[q])
		r += T
	}
	var qr mat.QR
	qr.Factorize(h)
	var rr mat.Dense
	qr.RTo(&rr)
	diag := make([]float64, m.P+1)
	big := 0.0
	for j := range diag {
		diag[j] = math.Abs(rr.At(j, j))
		big = max(big, diag[j])
	}
	for j, v := range diag {
		if !(v > float64(rows)*0x1p-52*big) {
			return nil, errors.Errorf("autoenc: pretrain: hidden-state matrix [H 1] (%d x %d) is rank-deficient at column %d: fewer hidden units or more data needed", rows, m.P+1, j)
		}
	}
	var sol mat.Dense
	if err := qr.SolveTo(&sol, false, tg); err != nil {
		return nil, errors.Errorf("autoenc: pretrain: least squares for the readout: %v", err)
	}
	init.Out = mat.DenseCopyOf(sol.Slice(0, m.P, 0, out))
	init.OutBias = mat.Row(nil, m.P, &sol)
	if cfg.Bernoulli {
		var pred mat.Dense
		pred.Mul(h, &sol)
		gamma, beta := plattScale(pred.RawMatrix().Data, tg.RawMatrix().Data)
		init.Scale, init.Shift = gamma, beta
		init.Out.Scale(gamma, init.Out)
		for j := range init.OutBias {
			init.OutBias[j] = gamma*init.OutBias[j] + beta
		}
	}
	return init, nil
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
		r.Act.apply(row)
	}
	return h
}

// plattScale returns the gamma and beta minimising the Bernoulli NLL of
// targets y under logits gamma*pred + beta (Platt scaling: a logistic
// regression on the one feature pred, convex), by Newton's method with
// step halving from gamma = 1, beta = 0. Each trial point costs one pass
// that yields the NLL, its gradient and its Hessian together.
func plattScale(pred, y []float64) (gamma, beta float64) {
	type point struct{ g, b, f, g1, g2, hgg, hgb, hbb float64 }
	eval := func(g, b float64) point {
		pt := point{g: g, b: b}
		for i, p := range pred {
			z := g*p + b
			e := math.Exp(-math.Abs(z))
			pt.f += math.Max(z, 0) + math.Log1p(e) - y[i]*z
			s := 1 / (1 + e) // sigmoid(z) for z >= 0
			if z < 0 {
				s = e / (1 + e)
			}
			r, w := s-y[i], s*(1-s)
			pt.g1 += r * p
			pt.g2 += r
			pt.hgg += w * p * p
			pt.hgb += w * p
			pt.hbb += w
		}
		return pt
	}
	cur := eval(1, 0)
	for range 50 {
		det := cur.hgg*cur.hbb - cur.hgb*cur.hgb
		if !(det > 0) {
			break
		}
		dg := (cur.hbb*cur.g1 - cur.hgb*cur.g2) / det
		db := (cur.hgg*cur.g2 - cur.hgb*cur.g1) / det
		accepted := false
		for step := 1.0; step > 1.0/1024; step /= 2 {
			if next := eval(cur.g-step*dg, cur.b-step*db); next.f < cur.f {
				accepted = cur.f-next.f > 1e-12*cur.f
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
