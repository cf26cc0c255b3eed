package pcnn

import (
	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/graph"
)

// freqs is the frequency of each symbol in s (nutilde of eq. 30).
func freqs(s Sequence, a int) []float64 {
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
func (m *Model) TransitionDirection(s Sequence, tr *Trace, B []float64, grad *graph.Params,
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
	mt := m.Moduli(s, tr, B, method == RBPM || method == QDRBPM)
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
func (m *Model) fbDirection(s Sequence, grad, dir *graph.Params) {
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
func (m *Model) qdContextual(s Sequence, tr *Trace, mt []float64, grad *graph.Params, eps float64, dir *graph.Params, only [][]bool) {
	N, A := m.Net.N, m.A
	E := m.Net.Edges()
	// diag[(o+k)*A+y] = M_kk^(jy), zero[(o+k)*A+y] = M_0k^(jy).
	diag, zero := make([]float64, E*A), make([]float64, E*A)
	m.eachActive(s, tr, mt, func(a []float64, j, y int, c float64) {
		o := m.Off[j-1]
		for k, i := range m.Net.In[j-1] {
			diag[(o+k)*A+y] += c * a[i] * a[i]
			zero[(o+k)*A+y] += c * a[i]
		}
	})
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

// eachActive calls fn for every time t and unit j = 1..N with a non-zero
// modulus c = mt[(t+1)*N+j-1], passing the activities a of step t (a[0]
// the always-active bias) and the symbol y = s.X[t].
func (m *Model) eachActive(s Sequence, tr *Trace, mt []float64, fn func(a []float64, j, y int, c float64)) {
	N := m.Net.N
	for t := range tr.T {
		a := tr.Act[t*(N+1) : (t+1)*(N+1)]
		y := s.X[t]
		for j := 1; j <= N; j++ {
			c := mt[(t+1)*N+j-1]
			if c == 0 {
				continue
			}
			fn(a, j, y, c)
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
// falling back to the quasi-diagonal solve where Cholesky fails.
func (m *Model) fullContextual(s Sequence, tr *Trace, mt []float64, grad *graph.Params, eps float64, dir *graph.Params) int {
	N, A := m.Net.N, m.A
	// Block (j, y) of size L x L starts at base[j-1] + y*L*L.
	base := make([]int, N)
	size := 0
	for j := range N {
		L := len(m.Net.In[j])
		base[j] = size
		size += A * L * L
	}
	M := make([]float64, size)
	m.eachActive(s, tr, mt, func(a []float64, j, y int, c float64) {
		in := m.Net.In[j-1]
		L := len(in)
		blk := M[base[j-1]+y*L*L : base[j-1]+(y+1)*L*L]
		for k, i := range in {
			ck := c * a[i]
			row := blk[k*L : (k+1)*L]
			for k2 := k; k2 < L; k2++ {
				row[k2] += ck * a[in[k2]]
			}
		}
	})
	g, d := grad.Data("tau"), dir.Data("tau")
	var failed [][]bool
	fallbacks := 0
	for j := 1; j <= N; j++ {
		o, L := m.Off[j-1], len(m.Net.In[j-1])
		for y := range A {
			blk := M[base[j-1]+y*L*L : base[j-1]+(y+1)*L*L]
			for k := range L {
				blk[k*L+k] += eps
				for k2 := k + 1; k2 < L; k2++ {
					blk[k2*L+k] = blk[k*L+k2]
				}
			}
			x := make([]float64, L)
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
	if failed != nil {
		m.qdContextual(s, tr, mt, grad, eps, dir, failed)
	}
	return fallbacks
}

// qdRNN is the quasi-diagonal solve for the RNN of eq. (80): the incoming
// parameters of unit j are tau_{ij} for i in In[j] (activity a_i^t, i = 0
// the always-active bias) and rho_{jy} (activity 1{x_t = y}).
func (m *Model) qdRNN(s Sequence, tr *Trace, mt []float64, grad *graph.Params, eps float64, dir *graph.Params) {
	N, A := m.Net.N, m.A
	E := m.Net.Edges()
	diag, zero := make([]float64, E), make([]float64, E)
	// For rho the 0-row term equals the diagonal: sum_t 1{x_t=y} m~.
	rdiag := make([]float64, N*A)
	m.eachActive(s, tr, mt, func(a []float64, j, y int, c float64) {
		o := m.Off[j-1]
		for k, i := range m.Net.In[j-1] {
			diag[o+k] += c * a[i] * a[i]
			zero[o+k] += c * a[i]
		}
		rdiag[(j-1)*A+y] += c
	})
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
