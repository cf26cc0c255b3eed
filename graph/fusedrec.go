package graph

import (
	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/params"
)

// fusedBlock is the number of steps whose input projections, head losses
// and head input gradients FusedRecurrence computes with one matrix
// product each; it bounds the memory those take.
const fusedBlock = 64

// FusedRecurrence runs a cell's StepKernel and a HeadKernel over sequences
// of any length, in plain Go: the executor Recurrence would be for the
// cell's graph, with the same semantics (full or truncated BPTT,
// checkpoints giving the same bits, learned initial state, gradients added
// into a params.Params) and the same results up to the order of floating
// point additions. Input projections and the head run as one matrix
// product per block of steps; the recurrent products and the parameters'
// gradients go step by step, in reverse order in the backward pass,
// whatever the blocks, so checkpoints change no bit. Its buffers grow to
// the longest sequence seen and are reused: a run over sequences no longer
// than an earlier one allocates nothing.
//
// A FusedRecurrence is for one batch size and is not safe for concurrent
// use.
type FusedRecurrence struct {
	k     StepKernel
	head  HeadKernel
	p     *params.Params
	batch int
	in    int
	cfg   RecurrenceConfig
	sizes []int
	names []string

	all    stateStore // every state (gradients without checkpoints)
	ck     stateStore // every stride-th state (checkpoints)
	seg    stateStore // the states of one segment
	x      []float64  // the inputs of a block, contiguous
	proj   []float64  // their projections
	cache  []float64  // the cell's caches, one slot per stored step
	hcache []float64  // the head's caches, one slot per stored step
	loss   []float64  // the losses of a block's steps
	dh     []float64  // the head's input gradients of a block
	gcarry [][]float64
	gnext  [][]float64
}

// stateStore holds consecutive states with each state tensor of all of
// them in one slice, so state 0 of a run of steps is one matrix.
type stateStore struct {
	flat  [][]float64   // flat[i]: state i of every step, [n*batch*size_i]
	views [][][]float64 // views[t][i]: state i of step t
}

// grow makes room for n states.
func (s *stateStore) grow(n int, sizes []int, batch int) {
	if len(s.views) >= n {
		return
	}
	s.flat = make([][]float64, len(sizes))
	for i, sz := range sizes {
		s.flat[i] = make([]float64, n*batch*sz)
	}
	s.views = make([][][]float64, n)
	for t := range s.views {
		s.views[t] = make([][]float64, len(sizes))
		for i, sz := range sizes {
			s.views[t][i] = s.flat[i][t*batch*sz : (t+1)*batch*sz]
		}
	}
}

// NewFusedRecurrence sets up the executor for cell c's kernel and a head
// kernel for a batch size; p is the set both read their parameters from.
func NewFusedRecurrence(c FusedCell, p *params.Params, batch int, head HeadKernel, cfg RecurrenceConfig) (*FusedRecurrence, error) {
	if batch <= 0 {
		return nil, errors.Errorf("graph: recurrence needs a positive batch size, got %d", batch)
	}
	if cfg.Truncate < 0 || cfg.Checkpoint < 0 {
		return nil, errors.Errorf("graph: recurrence truncation and checkpoint interval must not be negative, got %d, %d", cfg.Truncate, cfg.Checkpoint)
	}
	if head == nil {
		return nil, errors.New("graph: fused recurrence needs a head kernel")
	}
	r := &FusedRecurrence{k: c.StepKernel(batch), head: head, p: p, batch: batch, in: c.InputSize(), cfg: cfg, sizes: c.StateSizes()}
	r.names = append(append(r.names, r.k.Params()...), head.Params()...)
	for _, n := range r.names {
		if p.Data(n) == nil {
			return nil, errors.Errorf("graph: fused kernel reads parameter %q, which the set lacks", n)
		}
	}
	for _, s := range r.sizes {
		r.gcarry = append(r.gcarry, make([]float64, batch*s))
		r.gnext = append(r.gnext, make([]float64, batch*s))
	}
	r.x = make([]float64, fusedBlock*batch*r.in)
	r.proj = make([]float64, fusedBlock*batch*r.k.ProjectionSize())
	r.loss = make([]float64, fusedBlock)
	r.dh = make([]float64, fusedBlock*batch*r.sizes[0])
	return r, nil
}

// Run is Recurrence.Run: the summed step losses over T = len(xs) steps,
// and with grads non-nil their gradient added into grads.
func (r *FusedRecurrence) Run(xs [][]float64, aux [][][]float64, grads *params.Params) (float64, error) {
	T := len(xs)
	if T == 0 || len(aux) != T {
		return 0, errors.Errorf("graph: recurrence over %d steps with %d head inputs", T, len(aux))
	}
	for t, x := range xs {
		if len(x) != r.batch*r.in {
			return 0, errors.Errorf("graph: step %d input has %d values, want batch %d x %d", t, len(x), r.batch, r.in)
		}
	}
	if grads != nil {
		for _, n := range r.names {
			if len(grads.Data(n)) != len(r.p.Data(n)) {
				return 0, errors.Errorf("graph: gradient set has no %q of %d values", n, len(r.p.Data(n)))
			}
		}
	}
	k := max(r.cfg.Checkpoint, 1)
	all := grads != nil && k == 1
	seg := k // the steps run from one stored state
	if !all && k == 1 {
		seg = fusedBlock // evaluation: no state is kept
	}
	seg = min(seg, T)
	slots := seg
	var start [][]float64
	if all {
		slots = T
		r.all.grow(T+1, r.sizes, r.batch)
		start = r.all.views[0]
	} else {
		r.seg.grow(seg+1, r.sizes, r.batch)
		start = r.seg.views[0]
		if grads != nil {
			r.ck.grow((T-1)/k+1, r.sizes, r.batch)
		}
	}
	r.cache = growFlat(r.cache, slots*r.k.CacheSize())
	r.hcache = growFlat(r.hcache, slots*r.head.CacheSize())
	r.k.InitialState(start)

	var total float64
	if all {
		total = r.forward(xs, aux, 0, T, &r.all, 0, total)
	} else {
		for s := 0; s < T; s += seg {
			e := min(s+seg, T)
			if s > 0 {
				copyState(r.seg.views[0], r.seg.views[seg])
			}
			if grads != nil {
				copyState(r.ck.views[s/k], r.seg.views[0])
			}
			total = r.forward(xs, aux, s, e, &r.seg, s, total)
		}
	}
	if grads == nil {
		return total, nil
	}

	for _, g := range r.gcarry {
		clear(g)
	}
	if all {
		r.backward(xs, aux, 0, T, &r.all, 0, grads)
	} else {
		for s := (T - 1) / k * k; s >= 0; s -= k {
			e := min(s+k, T)
			copyState(r.seg.views[0], r.ck.views[s/k])
			r.forward(xs, aux, s, e, &r.seg, s, 0)
			r.backward(xs, aux, s, e, &r.seg, s, grads)
		}
	}
	r.k.InitialStateBack(r.gcarry, grads)
	return total, nil
}

func copyState(dst, src [][]float64) {
	for i := range dst {
		copy(dst[i], src[i])
	}
}

// growFlat returns buf with at least n values.
func growFlat(buf []float64, n int) []float64 {
	if len(buf) < n {
		return make([]float64, n)
	}
	return buf
}

// forward runs steps [s, e) from st.views[0] = the input state of step
// base: step t reads st.views[t-base], writes st.views[t-base+1] and cache
// slot t-base. It returns total plus the steps' losses, added in order.
func (r *FusedRecurrence) forward(xs [][]float64, aux [][][]float64, s, e int, st *stateStore, base int, total float64) float64 {
	B, P, C, HC := r.batch, r.k.ProjectionSize(), r.k.CacheSize(), r.head.CacheSize()
	w := B * r.sizes[0]
	for a := s; a < e; a += fusedBlock {
		b := min(a+fusedBlock, e)
		for t := a; t < b; t++ {
			copy(r.x[(t-a)*B*r.in:], xs[t])
		}
		r.k.Project(r.x[:(b-a)*B*r.in], r.proj[:(b-a)*B*P])
		for t := a; t < b; t++ {
			i := t - base
			r.k.Forward(xs[t], r.proj[(t-a)*B*P:(t-a+1)*B*P], st.views[i], st.views[i+1], r.cache[i*C:(i+1)*C])
		}
		r.head.Forward(st.flat[0][(a-base+1)*w:(b-base+1)*w], aux[a:b], r.hcache[(a-base)*HC:(b-base)*HC], r.loss[:b-a])
		for _, l := range r.loss[:b-a] {
			total += l
		}
	}
	return total
}

// backward runs the vector-Jacobian products of steps e-1 down to s, laid
// out as forward left them, carrying the state's gradient in gcarry
// (cleared at truncation boundaries).
func (r *FusedRecurrence) backward(xs [][]float64, aux [][][]float64, s, e int, st *stateStore, base int, grads *params.Params) {
	C, HC := r.k.CacheSize(), r.head.CacheSize()
	w := r.batch * r.sizes[0]
	for a := s + (e-1-s)/fusedBlock*fusedBlock; a >= s; a -= fusedBlock {
		b := min(a+fusedBlock, e)
		r.head.InputGrad(r.hcache[(a-base)*HC:(b-base)*HC], r.dh[:(b-a)*w])
		for t := b - 1; t >= a; t-- {
			i := t - base
			g0, dh := r.gcarry[0], r.dh[(t-a)*w:(t-a+1)*w]
			for j, v := range dh {
				g0[j] += v
			}
			r.head.ParamGrad(st.views[i+1][0], r.hcache[i*HC:(i+1)*HC], grads)
			r.k.Backward(xs[t], st.views[i], r.cache[i*C:(i+1)*C], r.gcarry, r.gnext, grads)
			r.gcarry, r.gnext = r.gnext, r.gcarry
			if tr := r.cfg.Truncate; tr > 0 && t > 0 && t%tr == 0 {
				for _, g := range r.gcarry {
					clear(g)
				}
			}
		}
	}
}

// Close releases nothing (there are no machines); it makes FusedRecurrence
// interchangeable with Recurrence.
func (r *FusedRecurrence) Close() error { return nil }
