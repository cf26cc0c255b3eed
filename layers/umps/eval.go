package umps

import (
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// This file evaluates amplitudes f(s) = alpha^T A(s_1)...A(s_n) omega in the
// log domain, sequentially and by the log-depth pairwise product of
// Section 3 (Figure 2). Both rescale by powers of two, which is exact in
// floating point, and carry the exponents as integers, so neither
// overflows nor underflows at any length.

// ln2 is log(2), the unit of the carried exponents.
var ln2 = math.Log(2)

// normalise divides x in place by 2^e, e the binary exponent of its largest
// magnitude, and returns e; x holds values of magnitude in [0.5, 1) at its
// largest. An all-zero x is left alone and gives ok = false.
func normalise(x []float64) (e int, ok bool) {
	mx := 0.0
	for _, v := range x {
		if a := math.Abs(v); a > mx {
			mx = a
		}
	}
	if mx == 0 {
		return 0, false
	}
	_, e = math.Frexp(mx)
	s := math.Ldexp(1, -e)
	for i := range x {
		x[i] *= s
	}
	return e, true
}

// LogAmplitude returns log|f(s)| and the sign of f(s) (+1, -1, or 0 with
// log|f| = -Inf) by sequential vector-matrix products, O(n D^2). s holds
// symbols in 0..d-1; the empty sequence gives alpha^T omega.
func (m *MPS) LogAmplitude(s []int) (logAbs, sign float64, err error) {
	if err := m.Validate(); err != nil {
		return 0, 0, err
	}
	if err := m.checkSeq(s); err != nil {
		return 0, 0, err
	}
	la, sg := m.logAmplitude(m.Matrices(), s, make([]float64, 2*m.Bond))
	return la, sg, nil
}

// logAmplitude is LogAmplitude's kernel; buf has room for 2D values.
func (m *MPS) logAmplitude(mats [][]float64, s []int, buf []float64) (float64, float64) {
	D := m.Bond
	h, next := buf[:D], buf[D:2*D]
	copy(h, m.Alpha)
	exp := 0
	for _, c := range s {
		blas64.Gemv(blas.Trans, 1, blas64.General{Rows: D, Cols: D, Stride: D, Data: mats[c]},
			blas64.Vector{N: D, Data: h, Inc: 1}, 0, blas64.Vector{N: D, Data: next, Inc: 1})
		h, next = next, h
		e, ok := normalise(h)
		if !ok {
			return math.Inf(-1), 0
		}
		exp += e
	}
	return finish(dot(h, m.Omega), exp)
}

// finish turns v 2^exp into (log|.|, sign).
func finish(v float64, exp int) (float64, float64) {
	if v == 0 {
		return math.Inf(-1), 0
	}
	sg := 1.0
	if v < 0 {
		sg = -1
	}
	return math.Log(math.Abs(v)) + float64(exp)*ln2, sg
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// LogAmplitudes evaluates LogAmplitude for each sequence, sequentially.
func (m *MPS) LogAmplitudes(seqs [][]int) (logAbs, sign []float64, err error) {
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	for _, s := range seqs {
		if err := m.checkSeq(s); err != nil {
			return nil, nil, err
		}
	}
	mats := m.Matrices()
	buf := make([]float64, 2*m.Bond)
	logAbs, sign = make([]float64, len(seqs)), make([]float64, len(seqs))
	for b, s := range seqs {
		logAbs[b], sign[b] = m.logAmplitude(mats, s, buf)
	}
	return logAbs, sign, nil
}

// scaledMat is the matrix data 2^exp; nil data stands for the identity
// (padding) and zero for an exactly zero product.
type scaledMat struct {
	data []float64
	exp  int
	zero bool
}

// LogAmplitudesParallel evaluates the same quantities as LogAmplitudes by
// the parallel method of Section 3 (Figure 2): the matrices A(s_t) of all
// sequences are multiplied in nearest-neighbour pairs, ceil(log2 n) rounds
// of batched products over all cores, each product rescaled by a power of
// two; shorter sequences are padded with identity matrices; the boundary
// vectors enter only at the end. Cost O(n D^3) against O(n D^2) for the
// sequential path, depth O(log n).
func (m *MPS) LogAmplitudesParallel(seqs [][]int) (logAbs, sign []float64, err error) {
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	n := 0
	for _, s := range seqs {
		if err := m.checkSeq(s); err != nil {
			return nil, nil, err
		}
		n = max(n, len(s))
	}
	mats := m.Matrices()
	level := make([][]scaledMat, len(seqs))
	for b, s := range seqs {
		level[b] = make([]scaledMat, n)
		for t, c := range s {
			level[b][t] = scaledMat{data: mats[c]}
		}
	}
	for width := n; width > 1; width = (width + 1) / 2 {
		half := (width + 1) / 2
		next := make([][]scaledMat, len(seqs))
		for b := range next {
			next[b] = make([]scaledMat, half)
		}
		parallelFor(len(seqs)*half, func(k int) {
			b, i := k/half, k%half
			l := level[b][2*i]
			if 2*i+1 >= width {
				next[b][i] = l
				return
			}
			next[b][i] = m.mulScaled(l, level[b][2*i+1])
		})
		level = next
	}
	logAbs, sign = make([]float64, len(seqs)), make([]float64, len(seqs))
	D := m.Bond
	tmp := make([]float64, D)
	for b := range seqs {
		if n == 0 || level[b][0].data == nil && !level[b][0].zero {
			logAbs[b], sign[b] = finish(dot(m.Alpha, m.Omega), 0)
			continue
		}
		p := level[b][0]
		if p.zero {
			logAbs[b], sign[b] = math.Inf(-1), 0
			continue
		}
		blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: D, Cols: D, Stride: D, Data: p.data},
			blas64.Vector{N: D, Data: m.Omega, Inc: 1}, 0, blas64.Vector{N: D, Data: tmp, Inc: 1})
		logAbs[b], sign[b] = finish(dot(m.Alpha, tmp), p.exp)
	}
	return logAbs, sign, nil
}

// mulScaled returns the rescaled product l r.
func (m *MPS) mulScaled(l, r scaledMat) scaledMat {
	switch {
	case l.zero || r.zero:
		return scaledMat{zero: true}
	case l.data == nil:
		return r
	case r.data == nil:
		return l
	}
	D := m.Bond
	out := make([]float64, D*D)
	mm(D, false, false, 1, l.data, r.data, 0, out)
	e, ok := normalise(out)
	if !ok {
		return scaledMat{zero: true}
	}
	return scaledMat{data: out, exp: l.exp + r.exp + e}
}

// parallelFor runs f(0..n-1) on all cores, in contiguous blocks.
func parallelFor(n int, f func(k int)) {
	w := min(runtime.GOMAXPROCS(0), n)
	if w <= 1 {
		for k := 0; k < n; k++ {
			f(k)
		}
		return
	}
	var wg sync.WaitGroup
	for g := 0; g < w; g++ {
		lo, hi := g*n/w, (g+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := lo; k < hi; k++ {
				f(k)
			}
		}()
	}
	wg.Wait()
}
