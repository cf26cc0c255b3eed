package pfa

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/rtnlab/rtn/internal/vec"
)

// Stats are the weighted expected counts of a set of strings under a
// model (the E-step of Baum-Welch) with their log-likelihood.
type Stats struct {
	// LogLik is sum_x w(x) log P(x) (nats); Weight is sum_x w(x) and
	// Symbols sum_x w(x) (|x| + 1), the symbols counting the end.
	LogLik, Weight, Symbols float64
	// Impossible is the weight of strings of probability 0 (or one that
	// underflows); they add nothing else.
	Impossible float64
	// Init [n], Stop [n] and M [d, n, n] are the expected counts of the
	// initial state, of stopping in a state and of each move (Probs'
	// layout). They are nil when the counts were not asked for.
	Init, Stop, M []float64
}

func (s *Stats) reset(n, d int, counts bool) {
	s.LogLik, s.Weight, s.Symbols, s.Impossible = 0, 0, 0, 0
	if !counts {
		return
	}
	if len(s.Init) != n || len(s.M) != d*n*n {
		s.Init, s.Stop, s.M = make([]float64, n), make([]float64, n), make([]float64, d*n*n)
		return
	}
	clear(s.Init)
	clear(s.Stop)
	clear(s.M)
}

func (s *Stats) add(o *Stats) {
	s.LogLik += o.LogLik
	s.Weight += o.Weight
	s.Symbols += o.Symbols
	s.Impossible += o.Impossible
	if s.Init == nil {
		return
	}
	for i, v := range o.Init {
		s.Init[i] += v
	}
	for i, v := range o.Stop {
		s.Stop[i] += v
	}
	for i, v := range o.M {
		s.M[i] += v
	}
}

// work is one worker's buffers: the scaled forward vectors of a string,
// its scales and the backward vectors.
type work struct {
	alpha, scale, beta, nb []float64
	// tmp holds moveBack's product M_a b.
	tmp   []float64
	stats Stats
}

// logProb runs the scaled forward pass over x and, with counts, the
// backward pass adding w times the posterior counts into wk.stats. It
// returns log P(x), -Inf when the string is impossible. Symbols must be
// in range (the caller checks).
func (p *Probs) logProb(x []int, w float64, wk *work, counts bool) float64 {
	n := p.N
	T := len(x)
	if need := (T + 1) * n; cap(wk.alpha) < need {
		wk.alpha = make([]float64, need, need+need/2)
	}
	if cap(wk.scale) < T+1 {
		wk.scale = make([]float64, T+1, T+1+T/2)
	}
	wk.alpha, wk.scale = wk.alpha[:(T+1)*n], wk.scale[:T+1]
	alpha, scale := wk.alpha, wk.scale
	copy(alpha[:n], p.Init)
	logc := 0.0
	for t := 1; t <= T; t++ {
		ma := p.M[x[t-1]*n*n:]
		prev, next := alpha[(t-1)*n:t*n], alpha[t*n:(t+1)*n]
		moveForward(next, prev, ma)
		c := 0.0
		for _, v := range next {
			c += v
		}
		if !(c > 0) {
			return math.Inf(-1)
		}
		vec.Scale(next, next, 1/c)
		scale[t] = c
		logc += math.Log(c)
	}
	last := alpha[T*n:]
	z := 0.0
	for q, v := range last {
		z += v * p.Stop[q]
	}
	if !(z > 0) {
		return math.Inf(-1)
	}
	lp := logc + math.Log(z)
	if !counts {
		return lp
	}
	p.backward(x, w, z, wk)
	return lp
}

// backward adds w times the posterior counts of x into wk.stats, after
// logProb's forward pass left the scaled forward vectors and scales in wk
// and the final normaliser z.
func (p *Probs) backward(x []int, w, z float64, wk *work) {
	n, T := p.N, len(x)
	if cap(wk.beta) < n {
		wk.beta, wk.nb, wk.tmp = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	beta, nb := wk.beta[:n], wk.nb[:n]
	alpha, st := wk.alpha, &wk.stats
	last := alpha[T*n : (T+1)*n]
	for q := range beta {
		beta[q] = p.Stop[q] / z
		st.Stop[q] += w * last[q] * beta[q]
	}
	for t := T; t >= 1; t-- {
		a := x[t-1]
		ma := p.M[a*n*n:]
		cm := st.M[a*n*n:]
		prev := alpha[(t-1)*n : t*n]
		inv := 1 / wk.scale[t]
		clear(nb)
		moveBack(nb, prev, beta, ma, cm, wk.tmp[:n], w, inv)
		beta, nb = nb, beta
	}
	for q, v := range p.Init {
		st.Init[q] += w * v * beta[q]
	}
	wk.beta, wk.nb = beta, nb
}

// chunks is the number of parts a set of strings is split into, each with
// its own counts, summed in order: fixed so that the result does not
// depend on the number of workers.
const chunks = 8

// Evaluator computes Stats over sets of strings with a fixed number of
// chunks spread over Jobs workers. It keeps its buffers between calls; it
// is not safe for concurrent use.
type Evaluator struct {
	// Jobs is the number of goroutines; below 1 counts as 1.
	Jobs int
	wk   [chunks]work
	tw   [chunks]trieWork
}

// Stats computes the statistics of the strings seqs[i] for i in idx (all
// of them when idx is nil), each weighted by weights[i] (1 when weights
// is nil), into out; counts asks for the expected counts. Symbols must be
// in [0, p.D).
func (e *Evaluator) Stats(p *Probs, seqs [][]int, weights []float64, idx []int, counts bool, out *Stats) {
	total := len(seqs)
	if idx != nil {
		total = len(idx)
	}
	k := min(chunks, max(total, 1))
	jobs := min(max(e.Jobs, 1), k)
	run := func(c int) {
		wk := &e.wk[c]
		wk.stats.reset(p.N, p.D, counts)
		lo, hi := c*total/k, (c+1)*total/k
		for r := lo; r < hi; r++ {
			i := r
			if idx != nil {
				i = idx[r]
			}
			w := 1.0
			if weights != nil {
				w = weights[i]
			}
			lp := p.logProb(seqs[i], w, wk, counts)
			wk.stats.Weight += w
			wk.stats.Symbols += w * float64(len(seqs[i])+1)
			if math.IsInf(lp, -1) {
				wk.stats.Impossible += w
				continue
			}
			wk.stats.LogLik += w * lp
		}
		if counts {
			p.finishCounts(&wk.stats)
		}
	}
	runChunks(k, jobs, run)
	out.reset(p.N, p.D, counts)
	for c := 0; c < k; c++ {
		out.add(&e.wk[c].stats)
	}
}

// runChunks runs run(0) .. run(k-1) on jobs goroutines (on the caller's
// when jobs is 1); each chunk writes only its own workspace, so the
// results do not depend on jobs.
func runChunks(k, jobs int, run func(c int)) {
	if jobs <= 1 {
		for c := 0; c < k; c++ {
			run(c)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, k)
	for c := 0; c < k; c++ {
		next <- c
	}
	close(next)
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				run(c)
			}
		}()
	}
	wg.Wait()
}

// moveForward sets next to prev M_a, the forward move through symbol a
// (ma: M_a, n x n, row-major).
func moveForward(next, prev, ma []float64) {
	n := len(next)
	blas64.Gemv(blas.Trans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: ma[:n*n]},
		blas64.Vector{N: n, Inc: 1, Data: prev}, 0, blas64.Vector{N: n, Inc: 1, Data: next})
}

// moveBack carries the backward vector b of the state after a move
// through symbol a (ma: M_a) to the state before it, pb += inv M_a b,
// and adds w inv prev b^T to the move's count factors cm (row-major like
// ma): the counts are these factors times M_a entry by entry, which
// finishCounts applies once at the end of a pass. tmp holds n values.
func moveBack(pb, prev, b, ma, cm, tmp []float64, w, inv float64) {
	n := len(b)
	blas64.Gemv(blas.NoTrans, inv, blas64.General{Rows: n, Cols: n, Stride: n, Data: ma[:n*n]},
		blas64.Vector{N: n, Inc: 1, Data: b}, 0, blas64.Vector{N: n, Inc: 1, Data: tmp})
	vec.AddTo(pb, tmp)
	blas64.Ger(w*inv, blas64.Vector{N: n, Inc: 1, Data: prev}, blas64.Vector{N: n, Inc: 1, Data: b},
		blas64.General{Rows: n, Cols: n, Stride: n, Data: cm[:n*n]})
}

// finishCounts turns the move count factors that moveBack accumulated in
// st.M into the expected counts, multiplying them by M entry by entry.
func (p *Probs) finishCounts(st *Stats) {
	vec.Mul(st.M, st.M, p.M)
}
