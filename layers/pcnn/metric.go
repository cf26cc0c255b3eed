package pcnn

import (
	"math"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/blas"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
)

// WritingMethod is the metric used for the writing weights w.
type WritingMethod int

const (
	// QDH is the quasi-diagonal inverse Hessian (eqs. 16-19): invariant
	// under affine changes of each unit's activity.
	QDH WritingMethod = iota
	// DH is the inverse diagonal Hessian (w_iy += eta W_iy / h_ii^y), the
	// non-invariant baseline of Table 1.
	DH
)

// String is the flag name ("qdh", "dh").
func (w WritingMethod) String() string {
	if w == DH {
		return "dh"
	}
	return "qdh"
}

// ParseWriting is the inverse of WritingMethod.String.
func ParseWriting(s string) (WritingMethod, error) {
	switch s {
	case "qdh":
		return QDH, nil
	case "dh":
		return DH, nil
	}
	return 0, errors.Errorf("pcnn: unknown writing metric %q (want qdh or dh)", s)
}

// TransitionMethod is the metric used for the transition weights (tau,
// rho) and the starting values V0.
type TransitionMethod int

const (
	// RBPM is the recurrent backpropagated metric (eqs. 22, 24-27).
	RBPM TransitionMethod = iota
	// RUTSD is the recurrent unitwise tensor-square differential metric
	// (eqs. 21, 24-27).
	RUTSD
	// QDRBPM is the quasi-diagonal reduction of RBPM (eqs. 32-33).
	QDRBPM
	// QDRUTSD is the quasi-diagonal reduction of RUTSD (eqs. 32-33).
	QDRUTSD
	// FB is frequency-adjusted backpropagation: the plain gradient, with
	// the parameters of symbol y divided by its frequency (Table 1).
	FB
)

var transitionNames = []string{"rbpm", "rutsd", "qdrbpm", "qdrutsd", "fb"}

// String is the flag name.
func (t TransitionMethod) String() string {
	if t < 0 || int(t) >= len(transitionNames) {
		return "unknown"
	}
	return transitionNames[t]
}

// ParseTransition is the inverse of TransitionMethod.String.
func ParseTransition(s string) (TransitionMethod, error) {
	for k, n := range transitionNames {
		if n == s {
			return TransitionMethod(k), nil
		}
	}
	return 0, errors.Errorf("pcnn: unknown transition metric %q (want rbpm, rutsd, qdrbpm, qdrutsd or fb)", s)
}

// quasiDiagonal reports whether t uses only the M_00, M_ii, M_0i terms.
func (t TransitionMethod) quasiDiagonal() bool { return t == QDRBPM || t == QDRUTSD }

// Damping scales the paper's damping terms; the zero value gives the
// paper's values. Smaller scales make the metrics closer to invariant
// (section 3.8, item 3).
type Damping struct {
	// Writing multiplies eps_y of eq. (16) (the frequency of y plus the
	// machine epsilon). If 0, it will be defaulted to 1.
	Writing float64
	// Transition is the eps added to the diagonal of M~ (eq. 24) and to
	// m~_j^0 (eq. 27). If 0, it will be defaulted to 1.
	Transition float64
}

func (d Damping) withDefaults() Damping {
	if d.Writing == 0 {
		d.Writing = 1
	}
	if d.Transition == 0 {
		d.Transition = 1
	}
	return d
}

// WritingDirection writes into dir (laid out like m.P; every tensor but
// "W" is zeroed) the update direction of the writing weights for the
// trace tr of s: the quasi-diagonal inverse Hessian of eqs. (16)-(19)
// applied to the gradient W (eq. 15) for QDH, or W_iy / h_ii^y for DH.
// w + eta*dir is the paper's update. Cost O(T N A).
func (m *Model) WritingDirection(s datasets.Stream, tr *Trace, method WritingMethod, damp Damping, dir *graph.Params) error {
	if err := m.checkTrace(s, tr, dir); err != nil {
		return err
	}
	damp = damp.withDefaults()
	N, A := m.Net.N, m.A
	dir.Zero()
	// g [N+1, A]: gradient W = Act^T D; h [N+1, A]: h_ii^y = (Act^2)^T Q;
	// h0 [N+1, A]: h_0i^y = Act^T Q, with D_t = e_{x_t} - pi_t and
	// Q_t = pi_t (1 - pi_t): three GEMMs over the predicted steps (the
	// others add exact zeros).
	act, pi, P := tr.predictedRows()
	d := tr.residuals(s, pi, P)
	tr.q, tr.sq = grow(tr.q, P*A), grow(tr.sq, P*(N+1))
	q, sq := tr.q, tr.sq
	for k, p := range pi[:P*A] {
		q[k] = p * (1 - p)
	}
	for k, a := range act[:P*(N+1)] {
		sq[k] = a * a
	}
	tr.h, tr.h0 = grow(tr.h, (N+1)*A), grow(tr.h0, (N+1)*A)
	g, h, h0 := dir.Data("W"), tr.h, tr.h0
	gemm(blas.Trans, blas.NoTrans, N+1, A, P, act, d, g, 0)
	gemm(blas.Trans, blas.NoTrans, N+1, A, P, sq, q, h, 0)
	gemm(blas.Trans, blas.NoTrans, N+1, A, P, act, q, h0, 0)
	f := freqs(s, A)
	for y := range A {
		eps := damp.Writing * (f[y] + 0x1p-52)
		for i := 0; i <= N; i++ {
			h[i*A+y] += eps
		}
	}
	if method == DH {
		for k := range g {
			g[k] /= h[k]
		}
		return finite(g, "writing direction")
	}
	// Quasi-diagonal solve (eqs. 18-19), per symbol y.
	for y := range A {
		h00, g0 := h[y], g[y]
		d0 := g0 / h00
		for i := 1; i <= N; i++ {
			c := h0[i*A+y] / h00
			di := (g[i*A+y] - g0*c) / (h[i*A+y] - h0[i*A+y]*c)
			g[i*A+y] = di
			d0 -= c * di
		}
		g[y] = d0
	}
	return finite(g, "writing direction")
}

// finite fails on a NaN or Inf, naming what.
func finite(x []float64, what string) error {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.Errorf("pcnn: the %s is not finite (singular metric?)", what)
		}
	}
	return nil
}

// checkTrace validates the arguments shared by the direction kernels.
func (m *Model) checkTrace(s datasets.Stream, tr *Trace, dir *graph.Params) error {
	if err := checkSeq(s, m.A); err != nil {
		return err
	}
	if tr == nil || tr.T != len(s.X) || tr.N != m.Net.N || tr.A != m.A {
		return errors.New("pcnn: the direction needs the trace of Forward on the same sequence")
	}
	if err := dir.SameLayout(m.P); err != nil {
		return errors.Wrap(err, "pcnn: direction set")
	}
	return nil
}

// Moduli computes m~_j^t [T+1, N] for the transition metric: (B_j^t)^2 for
// RUTSD (eq. 21), the backpropagated modulus of eqs. (22)/(74) for RBPM,
// where dV_j^{t+1}/dV_i^t = [PCNN: 1{i=j}] + tau_{ijx_t} s'(V_i^t) (RNN:
// tau_{ij} s'(V_i^t)). B is the output of Backward on the trace tr.
// Cost O(T N (d + A)).
func (m *Model) Moduli(s datasets.Stream, tr *Trace, B []float64, rbpm bool) []float64 {
	return m.moduli(s, tr, B, rbpm, make([]float64, (tr.T+1)*m.Net.N))
}

// moduli is Moduli writing into mt [(T+1)*N].
func (m *Model) moduli(s datasets.Stream, tr *Trace, B []float64, rbpm bool, mt []float64) []float64 {
	T, N, A := tr.T, m.Net.N, m.A
	if !rbpm {
		for k, b := range B {
			mt[k] = b * b
		}
		return mt
	}
	w := m.w()
	// The output source term: s'(V_i^t)^2 Var_{pi_t}(w_i), with
	// E_pi w_i = (Pi W^T)_{ti} and E_pi w_i^2 = ((W o W) pi_t)_i, on the
	// predicted steps. Backward left Pi W^T in tr.wp; it is recomputed
	// only if absent. E_pi w_i^2 is one matrix-vector product per step,
	// taken in the loop below.
	P := tr.Predicted
	if len(tr.wp) != P*(N+1) {
		_, pi, _ := tr.predictedRows()
		tr.wp = grow(tr.wp, P*(N+1))
		gemm(blas.NoTrans, blas.Trans, P, N+1, A, pi, w, tr.wp, 0)
	}
	tr.msq, tr.h = grow(tr.msq, 2*N), grow(tr.h, len(w))
	sq, osum, w2 := tr.msq[:N], tr.msq[N:], tr.h
	for k, v := range w {
		w2[k] = v * v
	}
	// Eq. (22) as a sum over the edges leaving each unit i:
	// m~_i^t = s'_i^2 (chi_t Var + sum_{j != i} tau_ij^2 m~_j^{t+1})
	// + (p + tau_ii s'_i)^2 m~_i^{t+1}, p = 1 for the PCNN's persistence
	// and 0 otherwise.
	So, dense := m.squaredWeights(tr)
	var persist float64
	if m.Kind == PCNN {
		persist = 1
	}
	outOff, outDst := m.outOff, m.outDst
	clear(mt[T*N:])
	r := P
	for t := T - 1; t >= 0; t-- {
		a := tr.Act[t*(N+1)+1 : (t+1)*(N+1)]
		mn := mt[(t+1)*N : (t+2)*N]
		cur := mt[t*N : (t+1)*N]
		x := 0
		if m.Kind != RNN {
			x = s.X[t]
		}
		o2, lw := tr.o2[x*So:(x+1)*So], tr.lw[x*N:(x+1)*N]
		if dense {
			gemv(N, N, o2, N, mn, osum, 0)
		}
		var mean []float64
		if chi(s, t) {
			r--
			mean = tr.wp[r*(N+1)+1 : (r+1)*(N+1)]
			gemv(N, A, w2[A:], A, tr.Pi[t*A:(t+1)*A], sq, 0) // rows i = 1..N
		}
		for i, ai := range a {
			var sum float64
			if dense {
				sum = osum[i]
			} else {
				lo, hi := outOff[i], outOff[i+1]
				sum = gatherSum(o2[lo:hi], outDst[lo:hi], mn)
			}
			// sum += max(Var, 0), by a branch that gives the same sum (a
			// NaN stays NaN; adding a zero changes nothing).
			if mean != nil {
				if v := sq[i] - mean[i]*mean[i]; v > 0 || v != v {
					sum += v
				}
			}
			ds := m.Act.DerivOut(ai, 0)
			c := persist + lw[i]*ds
			cur[i] = ds*ds*sum + c*c*mn[i]
		}
	}
	return mt
}

// squaredWeights fills, per symbol x (K = A symbols for CNN and PCNN,
// one for the RNN), tr.lw [K, N] with the loop weights tau_iix and tr.o2
// with the squared weights of the edges between distinct units, and
// returns o2's stride per symbol and its layout: [K, len(out)] in the
// order of out (every unit's edges a contiguous run), or, with more than
// N/4 such edges per unit, dense [K, N, N] with o2[x][i-1][j-1] =
// tau_ijx^2 (zero off the graph and on the diagonal), where one
// matrix-vector product per step costs less than the gather.
func (m *Model) squaredWeights(tr *Trace) (So int, dense bool) {
	N, Eo, tau := m.Net.N, len(m.out), m.tau()
	K := 1
	if m.Kind != RNN {
		K = m.A
	}
	dense = 4*Eo > N*N
	So = Eo
	if dense {
		So = N * N
	}
	tr.o2, tr.lw = grow(tr.o2, K*So), grow(tr.lw, K*N)
	if dense {
		clear(tr.o2)
	}
	// tau is [E] for the RNN and [E, A] otherwise: the K weights of edge
	// e are tau[e*K : (e+1)*K].
	for i := range N {
		for o := m.outOff[i]; o < m.outOff[i+1]; o++ {
			at := o
			if dense {
				at = i*N + m.outDst[o]
			}
			e := m.out[o]
			for x, v := range tau[e*K : (e+1)*K] {
				tr.o2[x*So+at] = v * v
			}
		}
		e := m.loop[i]
		for x, v := range tau[e*K : (e+1)*K] {
			tr.lw[x*N+i] = v
		}
	}
	return So, dense
}

// gatherSum is sum_k ow[k] mn[dst[k]] (len(ow) = len(dst)) in four
// partial sums: one running sum would wait on each addition's latency.
func gatherSum(ow []float64, dst []int, mn []float64) float64 {
	ow = ow[:len(dst)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(dst); k += 4 {
		s0 += ow[k] * mn[dst[k]]
		s1 += ow[k+1] * mn[dst[k+1]]
		s2 += ow[k+2] * mn[dst[k+2]]
		s3 += ow[k+3] * mn[dst[k+3]]
	}
	for ; k < len(dst); k++ {
		s0 += ow[k] * mn[dst[k]]
	}
	return (s0 + s1) + (s2 + s3)
}

// solveSPD solves M x = g in place in g for a symmetric positive
// definite M (n x n, row-major, of which only the upper triangle is
// read; it is overwritten by the Cholesky factor U, M = U^T U); false
// when M is not numerically positive definite. The factorisation is
// right-looking, so that every update is a row operation without a chain
// of dependent additions, and every entry subtracts the same products in
// the same order as the left-looking loops. The blocks are small (d+1),
// so a plain loop beats a general factorisation with its condition
// estimate.
func solveSPD(M, g []float64, n int) bool {
	g = g[:n]
	for j := range n {
		rj := M[j*n : (j+1)*n]
		d := rj[j]
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		rj[j] = d
		for i := j + 1; i < n; i++ {
			rj[i] /= d
		}
		for k := j + 1; k < n; k++ {
			u, uj := rj[k], rj[k:]
			rk := M[k*n+k : (k+1)*n][:len(uj)]
			for i, v := range uj {
				rk[i] -= u * v
			}
		}
	}
	for k := range n { // U^T y = g
		rk := M[k*n : (k+1)*n]
		g[k] /= rk[k]
		for i := k + 1; i < n; i++ {
			g[i] -= rk[i] * g[k]
		}
	}
	for i := n - 1; i >= 0; i-- { // U x = y
		ri := M[i*n : (i+1)*n]
		v := g[i]
		for k := i + 1; k < n; k++ {
			v -= ri[k] * g[k]
		}
		g[i] = v / ri[i]
	}
	return true
}
