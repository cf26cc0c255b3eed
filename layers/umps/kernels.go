package umps

import (
	"math"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/graph"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// This file holds the plain-Go kernels behind the fused graph ops: the
// batched log-amplitude chain and the log-normalisers Z_n, each with its
// exact gradient. Gradients are written as ratios of rescaled quantities
// (l r^T / l^T A r and the like), so they never overflow either.

// Pad marks the end of a sequence in a padded batch of symbols.
const Pad = -1

// view is a read-only view of a model's tensors for the kernels.
type view struct {
	D, d         int
	mats         [][]float64
	alpha, omega []float64
}

func viewOf(A, alpha, omega []float64, D, d int) view {
	m := &MPS{Bond: D, Symbols: d, A: A}
	return view{D: D, d: d, mats: m.Matrices(), alpha: alpha, omega: omega}
}

// mm is c = alpha op(a) op(b) + beta c for D x D row-major matrices, on
// graph.Gemm (the AVX+FMA kernel where the CPU has it).
func mm(D int, transA, transB bool, alpha float64, a, b []float64, beta float64, c []float64) {
	graph.Gemm(transA, transB, D, D, D, alpha, a, D, b, D, beta, c, D)
}

func gen(D int, x []float64) blas64.General {
	return blas64.General{Rows: D, Cols: D, Stride: D, Data: x}
}

func vec(x []float64) blas64.Vector { return blas64.Vector{N: len(x), Data: x, Inc: 1} }

// decodeBatch reads a padded batch of symbols (B x T, row-major, each row
// symbols then Pad) and returns the sequences.
func decodeBatch(x []float64, B, T, d int) ([][]int, error) {
	out := make([][]int, B)
	for b := 0; b < B; b++ {
		row := x[b*T : (b+1)*T]
		n := T
		for t, v := range row {
			if v == Pad {
				n = t
				break
			}
		}
		s := make([]int, n)
		for t, v := range row {
			c := int(v)
			switch {
			case t >= n && v != Pad:
				return nil, errors.Errorf("umps: batch row %d has symbol %v after the padding", b, v)
			case t < n && (float64(c) != v || c < 0 || c >= d):
				return nil, errors.Errorf("umps: batch row %d has %v at position %d, want a symbol in 0..%d", b, v, t, d-1)
			case t < n:
				s[t] = c
			}
		}
		out[b] = s
	}
	return out, nil
}

// EncodeBatch pads sequences to length T with Pad into a B x T row-major
// batch, the input of the fused amplitude op.
func EncodeBatch(seqs [][]int, T int) ([]float64, error) {
	out := make([]float64, len(seqs)*T)
	for b, s := range seqs {
		if len(s) > T {
			return nil, errors.Errorf("umps: sequence %d has length %d > %d", b, len(s), T)
		}
		for t := range T {
			out[b*T+t] = Pad
			if t < len(s) {
				out[b*T+t] = float64(s[t])
			}
		}
	}
	return out, nil
}

// states holds the rescaled states of one string, (n+1) x D each, in
// buffers reused from string to string: the chain allocates nothing per
// symbol.
type states struct {
	D    int
	l, r []float64
}

// grow makes room for the states of a string of n symbols.
func (st *states) grow(n int) {
	if need := (n + 1) * st.D; len(st.l) < need {
		st.l, st.r = make([]float64, need), make([]float64, need)
	}
}

// left is l_t and right r_t (r_{n+1} at index n).
func (st *states) left(t int) []float64  { return st.l[t*st.D : (t+1)*st.D] }
func (st *states) right(t int) []float64 { return st.r[t*st.D : (t+1)*st.D] }

// leftStates writes the rescaled row states l_0 = alpha, l_t = l_{t-1}
// A(s_t) / 2^e, t = 0..n, into st and returns the total exponent.
func (p view) leftStates(s []int, st *states) int {
	st.grow(len(s))
	copy(st.left(0), p.alpha)
	exp := 0
	for t, c := range s {
		h := st.left(t + 1)
		blas64.Gemv(blas.Trans, 1, gen(p.D, p.mats[c]), vec(st.left(t)), 0, vec(h))
		e, _ := normalise(h)
		exp += e
	}
	return exp
}

// rightStates writes r_{n+1} = omega and r_t = A(s_t) r_{t+1} / 2^e (index
// t-1, so that index n is omega) into st.
func (p view) rightStates(s []int, st *states) {
	n := len(s)
	st.grow(n)
	copy(st.right(n), p.omega)
	for t := n - 1; t >= 0; t-- {
		h := st.right(t)
		blas64.Gemv(blas.NoTrans, 1, gen(p.D, p.mats[s[t]]), vec(st.right(t+1)), 0, vec(h))
		normalise(h)
	}
}

// logAmp2 returns 2 log|f(s)| for each sequence.
func (p view) logAmp2(seqs [][]int) []float64 {
	y := make([]float64, len(seqs))
	st := &states{D: p.D}
	for b, s := range seqs {
		exp := p.leftStates(s, st)
		la, _ := finish(dot(st.left(len(s)), p.omega), exp)
		y[b] = 2 * la
	}
	return y
}

// logAmp2Grad accumulates sum_b dy_b d(2 log|f(s_b)|)/d(A, alpha, omega)
// into gA (D, d, D), ga and gw: with l, r the rescaled states around
// position t, d f / d A(s_t) divided by f is l r^T / (l^T A(s_t) r).
func (p view) logAmp2Grad(seqs [][]int, dy, gA, ga, gw []float64) {
	D, d := p.D, p.d
	tmp := make([]float64, D)
	st := &states{D: D}
	for b, s := range seqs {
		if dy[b] == 0 {
			continue
		}
		p.leftStates(s, st)
		p.rightStates(s, st)
		for t, c := range s {
			l, r := st.left(t), st.right(t+1)
			blas64.Gemv(blas.NoTrans, 1, gen(D, p.mats[c]), vec(r), 0, vec(tmp))
			w := 2 * dy[b] / dot(l, tmp)
			for i := 0; i < D; i++ {
				row := gA[(i*d+c)*D : (i*d+c+1)*D]
				li := w * l[i]
				for j := 0; j < D; j++ {
					row[j] += li * r[j]
				}
			}
		}
		wa := 2 * dy[b] / dot(p.alpha, st.right(0))
		ww := 2 * dy[b] / dot(st.left(len(s)), p.omega)
		for i := 0; i < D; i++ {
			ga[i] += wa * st.right(0)[i]
			gw[i] += ww * st.left(len(s))[i]
		}
	}
}

// transferSweep applies E^r (right) or E^l to q0 = v v^T maxN times,
// dividing by the trace each time; it returns the normalised matrices and
// their log scales (log of the trace products).
func (p view) transferSweep(v []float64, maxN int, right bool) ([][]float64, []float64) {
	D := p.D
	qs := make([][]float64, maxN+1)
	logs := make([]float64, maxN+1)
	store := make([]float64, (maxN+1)*D*D) // the matrices, one allocation per sweep
	q := store[:D*D]
	copy(q, outer(v))
	tmp := make([]float64, D*D)
	acc := 0.0
	for n := 0; n <= maxN; n++ {
		if n > 0 {
			next := store[n*D*D : (n+1)*D*D]
			for _, a := range p.mats {
				if right {
					mm(D, false, false, 1, a, q, 0, tmp)
					mm(D, false, true, 1, tmp, a, 1, next)
				} else {
					mm(D, true, false, 1, a, q, 0, tmp)
					mm(D, false, false, 1, tmp, a, 1, next)
				}
			}
			q = next
		}
		tr := 0.0
		for i := 0; i < D; i++ {
			tr += q[i*D+i]
		}
		if tr > 0 {
			for i := range q {
				q[i] /= tr
			}
			acc += math.Log(tr)
		} else {
			acc = math.Inf(-1)
		}
		qs[n], logs[n] = q, acc
	}
	return qs, logs
}

// logZn returns log Z_n, n = 0..maxN, with the right sweep it used.
func (p view) logZn(maxN int) (logZ []float64, rq [][]float64, rlog []float64) {
	rq, rlog = p.transferSweep(p.omega, maxN, true)
	logZ = make([]float64, maxN+1)
	for n := range logZ {
		logZ[n] = Mat{Data: rq[n]}.Log(p.alpha) + rlog[n]
	}
	return logZ, rq, rlog
}

// logZnGrad accumulates sum_n dy_n d log Z_n / d(A, alpha, omega). With
// L_k, R_j the unnormalised left and right sweeps, dZ_n/dA(c) =
// 2 sum_{k+j=n-1} L_k A(c) R_j, so the whole gradient for A(c) is
// 2 sum_k L_k A(c) S_k with S_k = sum_{n>k} (dy_n / Z_n) R_{n-1-k}, each
// weight taken in the log domain: O(maxN^2 D^2 + maxN d D^3).
func (p view) logZnGrad(maxN int, dy, gA, ga, gw []float64) {
	D, d := p.D, p.d
	logZ, rq, rlog := p.logZn(maxN)
	lq, llog := p.transferSweep(p.alpha, maxN, false)
	s := make([]float64, D*D)
	t1 := make([]float64, D*D)
	t2 := make([]float64, D*D)
	for k := 0; k < maxN; k++ {
		for i := range s {
			s[i] = 0
		}
		used := false
		for n := k + 1; n <= maxN; n++ {
			if dy[n] == 0 {
				continue
			}
			j := n - 1 - k
			w := dy[n] * math.Exp(llog[k]+rlog[j]-logZ[n])
			for i, v := range rq[j] {
				s[i] += w * v
			}
			used = true
		}
		if !used {
			continue
		}
		for c, a := range p.mats {
			// 2 L_k A(c) S_k into gA[:, c, :].
			mm(D, false, false, 1, lq[k], a, 0, t1)
			mm(D, false, false, 2, t1, s, 0, t2)
			for i := 0; i < D; i++ {
				row := gA[(i*d+c)*D : (i*d+c+1)*D]
				for j := 0; j < D; j++ {
					row[j] += t2[i*D+j]
				}
			}
		}
	}
	tmp := make([]float64, D)
	for n := 0; n <= maxN; n++ {
		if dy[n] == 0 {
			continue
		}
		// Z_n = alpha^T R_n alpha = omega^T L_n omega.
		blas64.Gemv(blas.NoTrans, 1, gen(D, rq[n]), vec(p.alpha), 0, vec(tmp))
		wa := 2 * dy[n] / dot(p.alpha, tmp)
		for i := range ga {
			ga[i] += wa * tmp[i]
		}
		blas64.Gemv(blas.NoTrans, 1, gen(D, lq[n]), vec(p.omega), 0, vec(tmp))
		ww := 2 * dy[n] / dot(p.omega, tmp)
		for i := range gw {
			gw[i] += ww * tmp[i]
		}
	}
}
