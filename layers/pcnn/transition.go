package pcnn

import (
	"github.com/pkg/errors"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
)

// freqs is the frequency of each symbol in s (nutilde of eq. 30).
func freqs(s datasets.Stream, a int) []float64 {
	f := make([]float64, a)
	for _, x := range s.X {
		f[x] += 1 / float64(len(s.X))
	}
	return f
}

// TransitionDirection writes into dir (laid out like m.P; "W" is zeroed)
// the update direction of the transition weights and starting values,
// from the trace tr of s, the backpropagated values B and the gradient
// grad returned by Backward:
//   - RBPM, RUTSD (CNN and PCNN only): for each unit j and symbol y, the
//     solution of (M~^(jy) + eps I) G = G^(jy) (eqs. 23-26), with
//     M~^(jy)_{kk'} = sum_t 1{x_t=y} a_k^t a_k'^t m~_j^{t+1} (eq. 24);
//   - QDRBPM, QDRUTSD: the quasi-diagonal solve of eqs. (32)-(33); for the
//     RNN the incoming parameters of unit j are tau_{ij} (activity a_i)
//     and rho_{jy} (activity 1{x_t=y}), with the bias tau_{0j} as the
//     always-active input;
//   - FB: the gradient, with tau_{ijy} (CNN, PCNN) or rho_{jy} (RNN)
//     divided by the frequency of y.
//
// V0 moves by B_j^0 / (m~_j^0 + eps) (eq. 27), or by B_j^0 for FB. It
// returns how many (j, y) blocks fell back to the quasi-diagonal solve
// because Cholesky failed. Cost O(T N d^2) for the full metrics,
// O(T N (d + A)) for the others.
func (m *Model) TransitionDirection(s datasets.Stream, tr *Trace, B []float64, grad *graph.Params,
	method TransitionMethod, damp Damping, dir *graph.Params) (fallbacks int, err error) {
	if err := m.checkTrace(s, tr, dir); err != nil {
		return 0, err
	}
	if err := grad.SameLayout(m.P); err != nil {
		return 0, errors.Wrap(err, "pcnn: gradient set")
	}
	if len(B) != (tr.T+1)*m.Net.N {
		return 0, errors.Errorf("pcnn: B has %d entries, want (T+1)*N = %d", len(B), (tr.T+1)*m.Net.N)
	}
	if m.Kind == RNN && (method == RBPM || method == RUTSD) {
		return 0, errors.Errorf("pcnn: the rnn has no %s (quadratic in the alphabet, section 4): use qd%s", method, method)
	}
	if method < RBPM || method > FB {
		return 0, errors.Errorf("pcnn: unknown transition metric %d", method)
	}
	damp = damp.withDefaults()
	dir.Zero()
	N := m.Net.N
	if method == FB {
		m.fbDirection(s, grad, dir)
		return 0, finite(dir.Data("tau"), "transition direction")
	}
	tr.mt = grow(tr.mt, (tr.T+1)*N)
	mt := m.moduli(s, tr, B, method == RBPM || method == QDRBPM, tr.mt)
	v0 := dir.Data("V0")
	for j := range N {
		v0[j] = B[j] / (mt[j] + damp.Transition)
	}
	switch {
	case m.Kind == RNN:
		m.qdRNN(s, tr, mt, grad, damp.Transition, dir)
	case method.quasiDiagonal():
		m.qdContextual(s, tr, mt, grad, damp.Transition, dir, nil)
	default:
		fallbacks = m.fullContextual(s, tr, mt, grad, damp.Transition, dir)
	}
	if err := finite(dir.Data("tau"), "transition direction"); err != nil {
		return fallbacks, err
	}
	return fallbacks, finite(v0, "starting-value direction")
}

// fbDirection is frequency-adjusted backpropagation.
func (m *Model) fbDirection(s datasets.Stream, grad, dir *graph.Params) {
	A := m.A
	f := freqs(s, A)
	copy(dir.Data("V0"), grad.Data("V0"))
	perSymbol := func(dst, src []float64) {
		for k := range src {
			if y := k % A; f[y] > 0 {
				dst[k] = src[k] / f[y]
			}
		}
	}
	if m.Kind == RNN {
		copy(dir.Data("tau"), grad.Data("tau"))
		perSymbol(dir.Data("rho"), grad.Data("rho"))
		return
	}
	perSymbol(dir.Data("tau"), grad.Data("tau"))
}

// qdContextual is the quasi-diagonal solve of eqs. (32)-(33) for CNN and
// PCNN. If only is not nil, it restricts the solve to the (j, y) blocks
// with only[j-1][y] set (the fallback of fullContextual).
func (m *Model) qdContextual(s datasets.Stream, tr *Trace, mt []float64, grad *graph.Params, eps float64, dir *graph.Params, only [][]bool) {
	N, A := m.Net.N, m.A
	E := m.Net.Edges()
	// diag[(o+k)*A+y] = M_kk^(jy), zero[(o+k)*A+y] = M_0k^(jy): dot
	// products over bySymbol's chunks.
	tr.h, tr.h0 = grow(tr.h, E*A), grow(tr.h0, E*A)
	diag, zero := tr.h, tr.h0
	clear(diag)
	clear(zero)
	tr.pc = grow(tr.pc, metricChunkSparse)
	m.bySymbol(s, tr, mt, func(y, n int, as, ms []float64) {
		w := tr.pc[:n]
		for e, i := range m.src {
			ai := as[i*n : (i+1)*n]
			mulTo(w, ms[m.dst[e]*n:(m.dst[e]+1)*n], ai)
			zero[e*A+y] += floats.Sum(w)
			diag[e*A+y] += floats.Dot(w, ai)
		}
	}, nil)
	g, d := grad.Data("tau"), dir.Data("tau")
	for j := 1; j <= N; j++ {
		o, L := m.Off[j-1], len(m.Net.In[j-1])
		for y := range A {
			if only != nil && !only[j-1][y] {
				continue
			}
			b := o*A + y
			d[b], _, _ = qdBlock(diag, zero, g, d, b, A, L, eps)
		}
	}
}

// qdBlock is the quasi-diagonal solve of one block of eqs. (32)-(33): the
// block's L parameters sit at b, b+stride, ..., b+(L-1)*stride of diag
// (M_kk), zero (M_0k), the gradient g and the direction d. It writes the
// directions of parameters 1..L-1 into d and returns the direction d0 of
// parameter 0 (not yet written, so the caller can subtract further terms)
// with its damped diagonal m00 and its gradient g0.
func qdBlock(diag, zero, g, d []float64, b, stride, L int, eps float64) (d0, m00, g0 float64) {
	m00 = diag[b] + eps
	g0 = g[b]
	d0 = g0 / m00
	for k := 1; k < L; k++ {
		at := b + k*stride
		c := zero[at] / m00
		dk := (g[at] - g0*c) / (diag[at] + eps - zero[at]*c)
		d[at] = dk
		d0 -= c * dk
	}
	return d0, m00, g0
}

// fullContextual solves (M~^(jy) + eps I) G = G^(jy) for every block,
// falling back to the quasi-diagonal solve where Cholesky fails. The
// blocks are built and solved one symbol at a time, so that they stay in
// cache and take O(N d^2) memory rather than O(A N d^2).
func (m *Model) fullContextual(s datasets.Stream, tr *Trace, mt []float64, grad *graph.Params, eps float64, dir *graph.Params) int {
	N, A := m.Net.N, m.A
	// Block j of size L x L starts at base[j-1] in the symbol's S
	// entries.
	base := make([]int, N)
	S := 0
	for j := range N {
		L := len(m.Net.In[j])
		base[j] = S
		S += L * L
	}
	tr.blk = grow(tr.blk, S)
	M := tr.blk
	g, d := grad.Data("tau"), dir.Data("tau")
	var failed [][]bool
	fallbacks := 0
	xs := make([]float64, 0, N+1)
	// solve solves the blocks of symbol y, whose upper triangles are in M.
	solve := func(y int) {
		for j := 1; j <= N; j++ {
			o, L := m.Off[j-1], len(m.Net.In[j-1])
			blk := M[base[j-1] : base[j-1]+L*L]
			for k := range L {
				blk[k*L+k] += eps
			}
			x := xs[:L]
			for k := range L {
				x[k] = g[(o+k)*A+y]
			}
			if !solveSPD(blk, x, L) {
				if failed == nil {
					failed = make([][]bool, N)
					for jj := range failed {
						failed[jj] = make([]bool, A)
					}
				}
				failed[j-1][y] = true
				fallbacks++
				continue
			}
			for k := range L {
				d[(o+k)*A+y] = x[k]
			}
		}
	}
	if m.Net.full() {
		m.denseMetric(s, tr, mt, M, base, solve)
	} else {
		m.sparseMetric(s, tr, mt, M, base, solve)
	}
	if failed != nil {
		m.qdContextual(s, tr, mt, grad, eps, dir, failed)
	}
	return fallbacks
}

// qdRNN is the quasi-diagonal solve for the RNN of eq. (80): the incoming
// parameters of unit j are tau_{ij} for i in In[j] (activity a_i^t, i = 0
// the always-active bias) and rho_{jy} (activity 1{x_t = y}).
func (m *Model) qdRNN(s datasets.Stream, tr *Trace, mt []float64, grad *graph.Params, eps float64, dir *graph.Params) {
	N, A := m.Net.N, m.A
	E := m.Net.Edges()
	diag, zero := make([]float64, E), make([]float64, E)
	// For rho the 0-row term equals the diagonal: sum_t 1{x_t=y} m~.
	rdiag := make([]float64, N*A)
	for t, y := range s.X[:tr.T] {
		a := tr.Act[t*(N+1) : (t+1)*(N+1)]
		for j, c := range mt[(t+1)*N : (t+2)*N] {
			for e := m.Off[j]; e < m.Off[j+1]; e++ {
				ca := c * a[m.src[e]]
				zero[e] += ca
				diag[e] += ca * a[m.src[e]]
			}
			rdiag[j*A+y] += c
		}
	}
	gt, gr := grad.Data("tau"), grad.Data("rho")
	dt, dr := dir.Data("tau"), dir.Data("rho")
	for j := 1; j <= N; j++ {
		o, L := m.Off[j-1], len(m.Net.In[j-1])
		d0, m00, g0 := qdBlock(diag, zero, gt, dt, o, 1, L, eps)
		for y := range A {
			at := (j-1)*A + y
			c := rdiag[at] / m00
			dy := (gr[at] - g0*c) / (rdiag[at] + eps - rdiag[at]*c)
			dr[at] = dy
			d0 -= c * dy
		}
		dt[o] = d0
	}
}

// metricChunkSparse is the number of steps of one symbol gathered
// together by bySymbol.
const metricChunkSparse = 1024

// bySymbol takes the steps symbol by symbol (each symbol's steps in
// increasing t, in chunks of up to metricChunkSparse) and calls fn with
// the symbol y, the chunk's n steps, their activities gathered
// unit-major, as[i*n+r] = a_i^t (i = 0..N), and the moduli
// ms[(j-1)*n+r] = m~_j^{t+1}, for the r-th step t, so that the metric
// sums are vectorised products over steps. The rows are packed with
// stride n: rows a fixed power-of-two stride apart fall into the same
// cache sets. If end is not nil, it is called after the last chunk of
// each symbol (also for a symbol that does not occur).
func (m *Model) bySymbol(s datasets.Stream, tr *Trace, mt []float64, fn func(y, n int, as, ms []float64), end func(y int)) {
	N, A, T := m.Net.N, m.A, tr.T
	N1 := N + 1
	// Counting sort of the steps by symbol.
	if cap(tr.xoff) < A+1 {
		tr.xoff = make([]int, A+1)
	}
	xoff := tr.xoff[:A+1]
	clear(xoff)
	for _, x := range s.X[:T] {
		xoff[x+1]++
	}
	for y := range A {
		xoff[y+1] += xoff[y]
	}
	if cap(tr.byX) < T {
		tr.byX = make([]int, T)
	}
	byX := tr.byX[:T]
	for t, x := range s.X[:T] {
		byX[xoff[x]] = t
		xoff[x]++
	}
	for y := A; y > 0; y-- { // xoff[y] was advanced to the end of y
		xoff[y] = xoff[y-1]
	}
	xoff[0] = 0
	const chunk = metricChunkSparse
	tr.pq = grow(tr.pq, N1*chunk)
	tr.pw = grow(tr.pw, N*chunk)
	as, ms := tr.pq, tr.pw
	for y := range A {
		steps := byX[xoff[y]:xoff[y+1]]
		for lo := 0; lo < len(steps); lo += chunk {
			st := steps[lo:min(lo+chunk, len(steps))]
			n := len(st)
			transposeRows(as[:N1*n], tr.Act, st, N1, 0)
			transposeRows(ms[:N*n], mt, st, N, 1)
			fn(y, n, as[:N1*n], ms[:N*n])
		}
		if end != nil {
			end(y)
		}
	}
}

// transposeRows gathers rows t+shift (of width w) of the time-major x
// for the steps t of st into dst unit-major, dst[i*len(st)+r] =
// x[(st[r]+shift)*w+i]: four steps at a time, so that each unit's
// four values go out together.
func transposeRows(dst, x []float64, st []int, w, shift int) {
	n := len(st)
	r := 0
	for ; r+4 <= n; r += 4 {
		t := st[r : r+4 : r+4]
		x0 := x[(t[0]+shift)*w : (t[0]+shift+1)*w]
		x1 := x[(t[1]+shift)*w : (t[1]+shift+1)*w]
		x2 := x[(t[2]+shift)*w : (t[2]+shift+1)*w]
		x3 := x[(t[3]+shift)*w : (t[3]+shift+1)*w]
		x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
		for i, v := range x0 {
			d := dst[i*n+r : i*n+r+4 : i*n+r+4]
			d[0], d[1], d[2], d[3] = v, x1[i], x2[i], x3[i]
		}
	}
	for ; r < n; r++ {
		for i, v := range x[(st[r]+shift)*w : (st[r]+shift+1)*w] {
			dst[i*n+r] = v
		}
	}
}

// sparseMetric accumulates the upper triangles of the blocks M~^(jy) of
// one symbol y (block j of size L x L at base[j-1] in M) over
// bySymbol's chunks, then calls solve(y).
// With w_k = m~_j o a_k over the chunk's steps, row k of the upper
// triangle gains sum_r w_k'[r] a_k[r] for k' >= k, one matrix-vector
// product (the same products as a loop over t, summed in another order).
func (m *Model) sparseMetric(s datasets.Stream, tr *Trace, mt, M []float64, base []int, solve func(y int)) {
	N := m.Net.N
	maxL := 0
	for _, in := range m.Net.In {
		maxL = max(maxL, len(in))
	}
	tr.pc = grow(tr.pc, maxL*metricChunkSparse)
	// The first chunk of a symbol overwrites the upper triangles (beta
	// = 0), so M needs clearing only for a symbol that does not occur.
	seen := -1
	m.bySymbol(s, tr, mt, func(y, n int, as, ms []float64) {
		beta := 1.0
		if y != seen {
			beta, seen = 0, y
		}
		for j := 1; j <= N; j++ {
			in := m.Net.In[j-1]
			L := len(in)
			mj := ms[(j-1)*n : j*n]
			wk := tr.pc[:L*n]
			for k, i := range in {
				mulTo(wk[k*n:(k+1)*n], mj, as[i*n:(i+1)*n])
			}
			blk := M[base[j-1] : base[j-1]+L*L]
			for k, i := range in {
				gemv(L-k, n, wk[k*n:], n, as[i*n:(i+1)*n], blk[k*L+k:(k+1)*L], beta)
			}
		}
	}, func(y int) {
		if y != seen {
			clear(M)
		}
		solve(y)
	})
}

// mulTo sets dst[r] = x[r] y[r] (x and y at least as long as dst).
func mulTo(dst, x, y []float64) {
	x, y = x[:len(dst)], y[:len(dst)]
	r := 0
	for ; r+4 <= len(dst); r += 4 {
		d, a, b := dst[r:r+4:r+4], x[r:r+4:r+4], y[r:r+4:r+4]
		d[0], d[1], d[2], d[3] = a[0]*b[0], a[1]*b[1], a[2]*b[2], a[3]*b[3]
	}
	for ; r < len(dst); r++ {
		dst[r] = x[r] * y[r]
	}
}

// full reports whether every unit has every other unit as input.
func (n *Network) full() bool {
	for _, in := range n.In {
		if len(in) != n.N+1 {
			return false
		}
	}
	return true
}

// metricChunk is the number of steps of one symbol gathered before their
// GEMM in denseMetric.
const metricChunk = 128

// denseMetric is sparseMetric for a fully connected network, where every
// unit reads the same activities: with P_t the upper triangle of
// a^t a^t^T (Q = (N+1)(N+2)/2 products), the blocks of symbol y are the
// rows of C_y [N, Q] = sum_{t: x_t = y} m~^{t+1} P_t^T, a GEMM over
// chunks of steps. The sums run over t in the same order; each term is
// m (a_k a_k') instead of (m a_k) a_k'. The upper triangles of symbol
// y are copied into M before solve(y).
func (m *Model) denseMetric(s datasets.Stream, tr *Trace, mt, M []float64, base []int, solve func(y int)) {
	N, A := m.Net.N, m.A
	N1 := N + 1
	Q := N1 * (N1 + 1) / 2
	tr.pq = grow(tr.pq, A*metricChunk*Q)
	tr.pw = grow(tr.pw, A*metricChunk*N)
	tr.pc = grow(tr.pc, A*N*Q)
	clear(tr.pc)
	cnt := make([]int, A)
	flush := func(y int) {
		gemm(blas.Trans, blas.NoTrans, N, Q, cnt[y], tr.pw[y*metricChunk*N:], tr.pq[y*metricChunk*Q:], tr.pc[y*N*Q:], 1)
		cnt[y] = 0
	}
	for t := range tr.T {
		a := tr.Act[t*N1 : (t+1)*N1]
		y := s.X[t]
		r := cnt[y]
		copy(tr.pw[(y*metricChunk+r)*N:(y*metricChunk+r+1)*N], mt[(t+1)*N:(t+2)*N])
		prow := tr.pq[(y*metricChunk+r)*Q : (y*metricChunk+r+1)*Q]
		idx := 0
		for k, ak := range a {
			for _, v := range a[k:] {
				prow[idx] = ak * v
				idx++
			}
		}
		cnt[y]++
		if cnt[y] == metricChunk {
			flush(y)
		}
	}
	for y := range A {
		if cnt[y] > 0 {
			flush(y)
		}
	}
	pair := func(i, i2 int) int {
		if i > i2 {
			i, i2 = i2, i
		}
		return i*N1 - i*(i-1)/2 + i2 - i
	}
	for y := range A {
		for j := 1; j <= N; j++ {
			in := m.Net.In[j-1]
			L := len(in)
			c := tr.pc[(y*N+j-1)*Q : (y*N+j)*Q]
			blk := M[base[j-1] : base[j-1]+L*L]
			for k, i := range in {
				for k2 := k; k2 < L; k2++ {
					blk[k*L+k2] = c[pair(i, in[k2])]
				}
			}
		}
		solve(y)
	}
}
