package graph

import (
	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/params"
)

// FusedRecurrence runs a cell's StepKernel and a HeadKernel over sequences
// of any length, in plain Go: the executor Recurrence would be for the
// cell's graph, with the same semantics (full or truncated BPTT,
// checkpoints giving the same bits, learned initial state, gradients added
// into a params.Params) and the same results up to the order of floating
// point additions. Its buffers grow to the longest sequence seen and are
// reused, so a run over sequences no longer than an earlier one allocates
// nothing.
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

	states [][][]float64 // stored input states (every step, or every stride-th)
	seg    [][][]float64 // with checkpoints: the states of one segment
	cache  []float64     // the cell's caches, one slot per stored step
	hcache []float64     // the head's caches, one slot per stored step
	gcarry [][]float64
	gnext  [][]float64
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
	k := r.stride()
	kept := 1 // evaluation keeps no state
	switch {
	case grads != nil && k == 1:
		kept = T + 1
	case grads != nil:
		kept = (T+k-1)/k + 1
	}
	r.states = grow(r.states, kept, r.sizes, r.batch)
	slots := T
	if k > 1 || grads == nil {
		slots = min(k, T)
		r.seg = grow(r.seg, slots+1, r.sizes, r.batch)
	}
	r.cache = growFlat(r.cache, slots*r.k.CacheSize())
	r.hcache = growFlat(r.hcache, slots*r.head.CacheSize())
	r.k.InitialState(r.states[0])
	total := r.forward(xs, aux, grads != nil)
	if grads == nil {
		return total, nil
	}
	r.backward(xs, aux, grads)
	return total, nil
}

// stride is the distance between stored states.
func (r *FusedRecurrence) stride() int { return max(r.cfg.Checkpoint, 1) }

// growFlat returns buf with at least n values.
func growFlat(buf []float64, n int) []float64 {
	if len(buf) < n {
		return make([]float64, n)
	}
	return buf
}

func (r *FusedRecurrence) slot(i int) (cell, head []float64) {
	c, h := r.k.CacheSize(), r.head.CacheSize()
	return r.cache[i*c : (i+1)*c], r.hcache[i*h : (i+1)*h]
}

// forward runs every step and returns the summed loss. With every state
// stored (store without checkpoints) it keeps each step's caches for the
// backward pass; otherwise it stores every stride-th state and cycles
// through the segment buffers.
func (r *FusedRecurrence) forward(xs [][]float64, aux [][][]float64, store bool) float64 {
	k := r.stride()
	all := store && k == 1
	var total float64
	in := r.states[0]
	for t := range xs {
		var out [][]float64
		slot := 0
		if all {
			out, slot = r.states[t+1], t
		} else {
			out = r.seg[(t+1)%2]
		}
		c, h := r.slot(slot)
		r.k.Forward(xs[t], in, out, c)
		total += r.head.Forward(out[0], aux[t], h)
		if store && !all && (t+1)%k == 0 {
			for i := range out {
				copy(r.states[(t+1)/k][i], out[i])
			}
		}
		in = out
	}
	return total
}

// backward runs the steps' vector-Jacobian products in reverse; with
// checkpoints each segment's steps are first recomputed from its stored
// state, their caches kept for the segment. The parameters' gradients are
// added step by step in reverse order either way, so checkpoints change
// no bit.
func (r *FusedRecurrence) backward(xs [][]float64, aux [][][]float64, grads *params.Params) {
	for _, g := range r.gcarry {
		clear(g)
	}
	k := r.stride()
	for s := (len(xs) - 1) / k * k; s >= 0; s -= k {
		e := min(s+k, len(xs))
		states, base := r.states, 0 // step t's input state is states[t-base]
		if k > 1 {
			for i := range r.seg[0] {
				copy(r.seg[0][i], r.states[s/k][i])
			}
			for t := s; t < e; t++ {
				c, h := r.slot(t - s)
				r.k.Forward(xs[t], r.seg[t-s], r.seg[t-s+1], c)
				r.head.Forward(r.seg[t-s+1][0], aux[t], h)
			}
			states, base = r.seg, s
		}
		for t := e - 1; t >= s; t-- {
			c, h := r.slot(t - base)
			r.head.Backward(states[t+1-base][0], aux[t], h, r.gcarry[0], grads)
			r.k.Backward(xs[t], states[t-base], c, r.gcarry, r.gnext, grads)
			r.gcarry, r.gnext = r.gnext, r.gcarry
			if tr := r.cfg.Truncate; tr > 0 && t > 0 && t%tr == 0 {
				for _, g := range r.gcarry {
					clear(g)
				}
			}
		}
	}
	r.k.InitialStateBack(r.gcarry, grads)
}

// Close releases nothing (there are no machines); it makes FusedRecurrence
// interchangeable with Recurrence.
func (r *FusedRecurrence) Close() error { return nil }
