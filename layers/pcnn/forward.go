package pcnn

import (
	"math"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
)

// Trace holds the forward pass of a model over a sequence of T symbols,
// time-major; it is reused between passes when large enough.
type Trace struct {
	T, N, A int
	// V [T+1, N]: V_j^t at V[t*N + j-1].
	V []float64
	// Act [T+1, N+1]: a_i^t at Act[t*(N+1) + i], a_0^t = 1.
	Act []float64
	// Pi [T, A]: pi_t(y) (eq. 12). With PredictedOnly, the rows of the
	// steps with chi_t = 0 are zero.
	Pi []float64
	// LogLik is sum_t chi_t log pi_t(x_t) in nats (eq. 14).
	LogLik float64
	// Predicted is the number of t with chi_t = 1.
	Predicted int
	// PredictedOnly, set before Forward, computes pi_t only at the
	// predicted steps (chi_t = 1): the log-likelihood, Backward and the
	// directions read no other row, so their results do not change, and
	// a sparse mask (distant XOR predicts one symbol in 200) saves most
	// of the output work. Problem sets it on its own trace.
	PredictedOnly bool

	// all is true when every step is predicted; otherwise rows lists
	// the predicted steps.
	all  bool
	rows []int
	// byX lists the steps symbol by symbol, those of y at
	// byX[xoff[y]:xoff[y+1]] (sparseMetric's workspace).
	byX, xoff []int
	// Workspaces: tx [A, E] the transition weights symbol-major (CNN,
	// PCNN), wp [P, N+1] = Pi W^T on the P predicted rows, d [P, A] =
	// e_{x_t} - pi_t and q [P, A] = pi_t (1 - pi_t) on them, gx [A, E] the
	// symbol-major transition gradient, actP [P, N+1] and piP [P, A] the
	// predicted rows of Act and Pi (unused when every step is predicted),
	// sq [P, N+1] their squared activities, msq [2N] the sums
	// ((W o W) pi_t)_i and sum_j tau_ijx^2 m~_j^{t+1} of one step (i =
	// 1..N), mt [T+1, N] the moduli, o2 and lw [A, N] the squared outgoing
	// and the loop weights per symbol (moduli's; see squaredWeights), blk
	// the metric blocks of one symbol, and small per-pass buffers.
	tx, wp, d, q, gx, actP, piP, sq, msq, mt, o2, lw []float64
	back, blk, h, h0, pq, pw, pc                     []float64
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// Forward runs the model over s, filling tr (allocated when nil), and
// returns the log-likelihood sum_t chi_t log pi_t(x_t) in nats.
// Cost O(T N (d + A)).
func (m *Model) Forward(s datasets.Stream, tr *Trace) (*Trace, error) {
	if err := checkSeq(s, m.A); err != nil {
		return nil, err
	}
	if tr == nil {
		tr = &Trace{}
	}
	m.forward(s, tr)
	if math.IsNaN(tr.LogLik) {
		return tr, errors.New("pcnn: the log-likelihood is NaN")
	}
	return tr, nil
}

// LogLik is the log-likelihood of s in nats.
func (m *Model) LogLik(s datasets.Stream) (float64, error) {
	tr, err := m.Forward(s, nil)
	if err != nil {
		return 0, err
	}
	return tr.LogLik, nil
}

// forward is the kernel of Forward (s already checked).
func (m *Model) forward(s datasets.Stream, tr *Trace) {
	T, N := len(s.X), m.Net.N
	tr.T, tr.N, tr.A = T, N, m.A
	tr.V = grow(tr.V, (T+1)*N)
	tr.Act = grow(tr.Act, (T+1)*(N+1))
	// The writing weights do not act on the dynamics: run the recurrence
	// first, then the outputs.
	copy(tr.V[:N], m.v0())
	if m.Kind != RNN {
		tr.tx = m.tauByX(tr.tx)
	}
	for t := 0; ; t++ {
		v := tr.V[t*N : (t+1)*N]
		a := tr.Act[t*(N+1) : (t+1)*(N+1)]
		m.activate(v, a)
		if t == T {
			break
		}
		m.advance(v, a, s.X[t], tr.tx, tr.V[(t+1)*N:(t+2)*N])
	}
	m.outputs(s, tr)
}

// outputs computes Pi and the log-likelihood from the activities of tr
// (the recurrence already run): every output at once, E = Act W, as one
// GEMM, or, with PredictedOnly and a mask, the predicted rows alone (each
// row is summed over i in the same order as the GEMM's kernel).
func (m *Model) outputs(s datasets.Stream, tr *Trace) {
	T, N, A := tr.T, m.Net.N, m.A
	tr.Pi = grow(tr.Pi, T*A)
	tr.LogLik, tr.Predicted = 0, 0
	tr.wp = tr.wp[:0] // Pi W^T belongs to Backward on this pass
	tr.rows = tr.rows[:0]
	if s.Mask != nil {
		for t, c := range s.Mask {
			if c {
				tr.rows = append(tr.rows, t)
			}
		}
	}
	tr.all = s.Mask == nil || len(tr.rows) == T
	w := m.w()
	if !tr.PredictedOnly || tr.all {
		gemm(blas.NoTrans, blas.NoTrans, T, A, N+1, tr.Act, w, tr.Pi, 0)
		for t, x := range s.X {
			lp := softmaxRow(tr.Pi[t*A:(t+1)*A], x)
			if chi(s, t) {
				tr.LogLik += lp
				tr.Predicted++
			}
		}
	} else {
		clear(tr.Pi)
		for _, t := range tr.rows {
			row, a := tr.Pi[t*A:(t+1)*A], tr.Act[t*(N+1):(t+1)*(N+1)]
			for i, ai := range a {
				wi := w[i*A : (i+1)*A]
				for y := range row {
					row[y] += ai * wi[y]
				}
			}
			tr.LogLik += softmaxRow(row, s.X[t])
			tr.Predicted++
		}
	}
}

// predictedRows returns the predicted rows of Act [P, N+1] and Pi [P, A]
// (the trace's own slices, without their last row of Act, when every
// step is predicted) and P.
func (tr *Trace) predictedRows() (act, pi []float64, P int) {
	N, A := tr.N, tr.A
	if tr.all {
		return tr.Act[:tr.T*(N+1)], tr.Pi, tr.T
	}
	P = len(tr.rows)
	tr.actP, tr.piP = grow(tr.actP, P*(N+1)), grow(tr.piP, P*A)
	for r, t := range tr.rows {
		copy(tr.actP[r*(N+1):(r+1)*(N+1)], tr.Act[t*(N+1):(t+1)*(N+1)])
		copy(tr.piP[r*A:(r+1)*A], tr.Pi[t*A:(t+1)*A])
	}
	return tr.actP, tr.piP, P
}

// residuals fills tr.d [P, A] with e_{x_t} - pi_t on the P predicted
// rows (pi the rows predictedRows returned) and returns it.
func (tr *Trace) residuals(s datasets.Stream, pi []float64, P int) []float64 {
	A := tr.A
	tr.d = grow(tr.d, P*A)
	for r := range P {
		t := r
		if !tr.all {
			t = tr.rows[r]
		}
		row := tr.d[r*A : (r+1)*A]
		for y, p := range pi[r*A : (r+1)*A] {
			row[y] = -p
		}
		row[s.X[t]]++
	}
	return tr.d
}

// gemm sets c = beta c + op(a) op(b) for row-major a, b, c with op(a)
// m x k and op(b) k x n.
func gemm(ta, tb blas.Transpose, m, n, k int, a, b, c []float64, beta float64) {
	if k == 0 { // no terms (no predicted step): c = beta c
		if beta == 0 {
			clear(c[:m*n])
		} else {
			floats.Scale(beta, c[:m*n])
		}
		return
	}
	lda, ldb := k, n
	if ta == blas.Trans {
		lda = m
	}
	if tb == blas.Trans {
		ldb = k
	}
	ra, ca := m, k
	if ta == blas.Trans {
		ra, ca = k, m
	}
	rb, cb := k, n
	if tb == blas.Trans {
		rb, cb = n, k
	}
	blas64.Gemm(ta, tb, 1,
		blas64.General{Rows: ra, Cols: ca, Stride: lda, Data: a[:ra*ca]},
		blas64.General{Rows: rb, Cols: cb, Stride: ldb, Data: b[:rb*cb]},
		beta, blas64.General{Rows: m, Cols: n, Stride: n, Data: c[:m*n]})
}

// gemv sets y = beta y + A x for a row-major m x n matrix a with row
// stride lda: gonum's kernel takes four rows at a time with packed
// products, about twice the throughput of one dot product per row.
func gemv(m, n int, a []float64, lda int, x, y []float64, beta float64) {
	blas64.Implementation().Dgemv(blas.NoTrans, m, n, 1, a, lda, x, 1, beta, y, 1)
}

// softmaxRow turns the scores E in row into pi = exp(E)/sum exp(E)
// (eq. 12) in place and returns log pi_x, computed from E so that it
// stays finite when pi_x underflows.
func softmaxRow(row []float64, x int) float64 {
	mx := floats.Max(row)
	ex := row[x]
	var z float64
	for y, e := range row {
		row[y] = math.Exp(e - mx)
		z += row[y]
	}
	floats.Scale(1/z, row)
	return ex - mx - math.Log(z)
}

// activate sets a = (1, s(v_1), ..., s(v_N)).
func (m *Model) activate(v, a []float64) {
	a[0] = 1
	for j := range v {
		a[j+1] = m.Act.F(v[j], 0)
	}
}

// advance computes V^{t+1} into next from V^t = v, a^t = a and the symbol
// x = x_t: eq. (80) for RNN, eq. (8) for CNN, eq. (11) for PCNN; tx is
// tauByX's output (unused for the RNN).
func (m *Model) advance(v, a []float64, x int, tx, next []float64) {
	A, N, E, src := m.A, m.Net.N, len(m.src), m.src
	if m.Kind == RNN {
		tau, rho := m.tau(), m.rho()
		for j := 1; j <= N; j++ {
			sum := rho[(j-1)*A+x]
			for e := m.Off[j-1]; e < m.Off[j]; e++ {
				sum += tau[e] * a[src[e]]
			}
			next[j-1] = sum
		}
		return
	}
	row := tx[x*E : (x+1)*E]
	for j := 1; j <= N; j++ {
		var sum float64
		lo, hi := m.Off[j-1], m.Off[j]
		tw := row[lo:hi]
		for k, i := range src[lo:hi] {
			sum += tw[k] * a[i]
		}
		if m.Kind == PCNN {
			sum += v[j-1]
		}
		next[j-1] = sum
	}
}

// Backward backpropagates through time over the trace tr of s: it writes
// the gradient of the log-likelihood into grad (laid out like m.P; it is
// overwritten) and, when B is not nil, the backpropagated values
// B_j^t = d logLik / d V_j^t into B [T+1, N] (eq. 20 for PCNN; CNN and
// RNN drop the persistence term B_j^{t+1}). W_iy follows eq. (15),
// tau_{ijy} eq. (23), rho_{jy} = sum_t 1{x_t=y} B_j^{t+1}, V0_j = B_j^0.
func (m *Model) Backward(s datasets.Stream, tr *Trace, grad *graph.Params, B []float64) error {
	if err := checkSeq(s, m.A); err != nil {
		return err
	}
	if tr == nil || tr.T != len(s.X) || tr.N != m.Net.N || tr.A != m.A {
		return errors.New("pcnn: Backward needs the trace of Forward on the same sequence")
	}
	if err := grad.SameLayout(m.P); err != nil {
		return errors.Wrap(err, "pcnn: gradient set")
	}
	N := m.Net.N
	if B == nil {
		B = make([]float64, (tr.T+1)*N)
	} else if len(B) != (tr.T+1)*N {
		return errors.Errorf("pcnn: B has %d entries, want (T+1)*N = %d", len(B), (tr.T+1)*N)
	}
	grad.Zero()
	m.backward(s, tr, grad, B)
	return nil
}

// backward is the kernel of Backward. The output terms are GEMMs over
// the predicted steps: sum_y pi_t(y) w_iy = (Pi W^T)_{ti}, and the
// writing gradient of eq. (15) is W = Act^T D with D_t = e_{x_t} - pi_t
// (the steps with chi_t = 0 add exact zeros to both, so they are left out).
func (m *Model) backward(s datasets.Stream, tr *Trace, grad *graph.Params, B []float64) {
	T, N, A := tr.T, m.Net.N, m.A
	w, tau := m.w(), m.tau()
	gtau, grho := grad.Data("tau"), grad.Data("rho")
	act, pi, P := tr.predictedRows()
	tr.wp = grow(tr.wp, P*(N+1))
	gemm(blas.NoTrans, blas.Trans, P, N+1, A, pi, w, tr.wp, 0)
	tr.back = grow(tr.back, N+1)
	back := tr.back
	clear(B[T*N:])
	E, src, off := len(m.src), m.src, m.Off
	if m.Kind != RNN {
		tr.gx = grow(tr.gx, A*E)
		clear(tr.gx)
	}
	// On a fully connected network the gradient of symbol y,
	// G_y [N, N+1] = sum_{t: x_t = y} B^{t+1} a^t^T, is a GEMM over chunks
	// of steps, gathered in the loop's (descending) order of t, so that
	// every entry sums the same products in the same order.
	dense := m.Kind != RNN && m.Net.full()
	var cnt []int
	flush := func(y int) {}
	if dense {
		tr.pw = grow(tr.pw, A*metricChunk*N)
		tr.pq = grow(tr.pq, A*metricChunk*(N+1))
		tr.pc = grow(tr.pc, A*N*(N+1))
		clear(tr.pc)
		cnt = make([]int, A)
		flush = func(y int) {
			gemm(blas.Trans, blas.NoTrans, N, N+1, cnt[y], tr.pw[y*metricChunk*N:], tr.pq[y*metricChunk*(N+1):], tr.pc[y*N*(N+1):], 1)
			cnt[y] = 0
		}
	}
	r := P // predicted rows above t
	for t := T - 1; t >= 0; t-- {
		x := s.X[t]
		a := tr.Act[t*(N+1) : (t+1)*(N+1)]
		bn := B[(t+1)*N : (t+2)*N]
		clear(back)
		// Transition terms: scatter sum_j tau_{i j x} B_j^{t+1} to the
		// sources i, and accumulate the tau (and rho) gradients.
		if m.Kind == RNN {
			for j := 1; j <= N; j++ {
				bj := bn[j-1]
				grho[(j-1)*A+x] += bj
				lo, hi := off[j-1], off[j]
				tw, gw := tau[lo:hi], gtau[lo:hi]
				for k, i := range src[lo:hi] {
					back[i] += tw[k] * bj
					gw[k] += a[i] * bj
				}
			}
		} else if dense {
			// The sources only; the gradient waits for its GEMM.
			row := tr.tx[x*E : (x+1)*E]
			for j := 1; j <= N; j++ {
				bj := bn[j-1]
				lo, hi := off[j-1], off[j]
				tw := row[lo:hi]
				for k, i := range src[lo:hi] {
					back[i] += tw[k] * bj
				}
			}
			c := cnt[x]
			copy(tr.pw[(x*metricChunk+c)*N:(x*metricChunk+c+1)*N], bn)
			copy(tr.pq[(x*metricChunk+c)*(N+1):(x*metricChunk+c+1)*(N+1)], a)
			if cnt[x]++; cnt[x] == metricChunk {
				flush(x)
			}
		} else {
			row, gr := tr.tx[x*E:(x+1)*E], tr.gx[x*E:(x+1)*E]
			for j := 1; j <= N; j++ {
				bj := bn[j-1]
				lo, hi := off[j-1], off[j]
				tw, gw := row[lo:hi], gr[lo:hi]
				for k, i := range src[lo:hi] {
					back[i] += tw[k] * bj
					gw[k] += a[i] * bj
				}
			}
		}
		bt := B[t*N : (t+1)*N]
		if chi(s, t) {
			r--
			wp := tr.wp[r*(N+1) : (r+1)*(N+1)]
			for i := 1; i <= N; i++ {
				back[i] += w[i*A+x] - wp[i]
			}
		}
		for i := 1; i <= N; i++ {
			bt[i-1] = m.Act.DerivOut(a[i], 0) * back[i]
			if m.Kind == PCNN {
				bt[i-1] += bn[i-1]
			}
		}
	}
	copy(grad.Data("V0"), B[:N])
	if dense {
		for y := range A {
			if cnt[y] > 0 {
				flush(y)
			}
			for j := 1; j <= N; j++ {
				g := tr.pc[(y*N+j-1)*(N+1) : (y*N+j)*(N+1)]
				for e := off[j-1]; e < off[j]; e++ {
					tr.gx[y*E+e] = g[src[e]]
				}
			}
		}
	}
	if m.Kind != RNN {
		for e := range E {
			for x := range A {
				gtau[e*A+x] = tr.gx[x*E+e]
			}
		}
	}
	d := tr.residuals(s, pi, P)
	gemm(blas.Trans, blas.NoTrans, N+1, A, P, act, d, grad.Data("W"), 0)
}
