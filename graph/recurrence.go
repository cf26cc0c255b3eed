package graph

import (
	"fmt"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
	G "gorgonia.org/gorgonia"
)

// Head is the per-step part of a recurrent model on top of a cell: given
// state 0 of the step (h: [batch, StateSizes()[0]]) it builds the step's
// scalar loss, creating the input nodes it needs (targets, masks) with
// Builder.Input, and returns the loss and those inputs in the order
// Recurrence.Run binds their values.
type Head func(b *Builder, h *G.Node) (loss *G.Node, inputs []*G.Node)

// RecurrenceConfig sets a Recurrence. The zero value gives full
// backpropagation through time.
type RecurrenceConfig struct {
	// Truncate, when positive, stops gradients every Truncate steps: the
	// sequence is cut into chunks of Truncate steps, the state carried
	// from one to the next, and no gradient crosses a chunk boundary
	// (truncated BPTT). The initial state's parameters get gradients from
	// the first chunk only. If Truncate is 0, gradients flow through every
	// step (full BPTT).
	Truncate int
	// Checkpoint, when positive, keeps the state of every Checkpoint-th
	// step only and recomputes the others, segment by segment, during the
	// backward pass: the stored states drop from T to about T/Checkpoint +
	// Checkpoint at the cost of a second forward pass, for very long
	// sequences. Results are the same bits. If Checkpoint is 0, every
	// state is kept.
	Checkpoint int
}

// Recurrence runs a cell over sequences of any length from one step
// compiled once: a forward machine for the step and its head, and a
// backward machine computing the step's vector-Jacobian product, run in
// reverse over the stored states. Compile time and the cost of a time step
// do not depend on the sequence length, the graphs stay small (no hash
// collisions, no quadratic compile), and memory grows with the number of
// steps times the state size only.
//
// A Recurrence is for one batch size. It is not safe for concurrent use:
// its machines hold values on their nodes.
type Recurrence struct {
	cell  Cell
	p     *params.Params
	batch int
	cfg   RecurrenceConfig
	sizes []int

	init     *Machine      // InitialState with the pseudo-loss sum <state, g>
	initNz   *noise        // the initial state's random ops
	initOut  []*G.Node     // initial state nodes (watched)
	initG    []*G.Node     // g inputs of the initial pseudo-loss
	fwd, bwd *stepGraph    // forward only; forward and VJP
	states   [][][]float64 // the input state of steps 0, k, 2k, ... (k = stride())
	seg      [][][]float64 // with checkpoints: the input states of one segment
	gcarry   [][]float64
	gnext    [][]float64
}

// stepGraph is one compiled step: x, the incoming state and the head's
// inputs; the outgoing state and the step loss; in the backward graph
// also the incoming gradient of the outgoing state.
type stepGraph struct {
	m     *Machine
	x     *G.Node
	hIn   []*G.Node
	hOut  []*G.Node
	aux   []*G.Node
	loss  *G.Node
	gHOut []*G.Node // backward graph only
	noise *noise    // the state of the step's random ops
}

// NewRecurrence compiles cell c's step with head for a batch size. The
// parameters the cell and head bind from p are differentiated. Shape
// errors of the cell (a state of the wrong width, a step that does not
// fit its input) are reported here, naming the state and the shapes.
func NewRecurrence(c Cell, p *params.Params, batch int, head Head, cfg RecurrenceConfig) (*Recurrence, error) {
	if batch <= 0 {
		return nil, errors.Errorf("graph: recurrence needs a positive batch size, got %d", batch)
	}
	if cfg.Truncate < 0 || cfg.Checkpoint < 0 {
		return nil, errors.Errorf("graph: recurrence truncation and checkpoint interval must not be negative, got %d, %d", cfg.Truncate, cfg.Checkpoint)
	}
	r := &Recurrence{cell: c, p: p, batch: batch, cfg: cfg, sizes: c.StateSizes()}
	if err := r.compileInit(); err != nil {
		return nil, errors.Wrap(err, "graph: initial state")
	}
	var err error
	if r.fwd, err = r.compileStep(head, false); err != nil {
		return nil, errors.Wrap(err, "graph: step")
	}
	if r.bwd, err = r.compileStep(head, true); err != nil {
		return nil, errors.Wrap(err, "graph: step gradient")
	}
	for _, s := range r.sizes {
		r.gcarry = append(r.gcarry, make([]float64, batch*s))
		r.gnext = append(r.gnext, make([]float64, batch*s))
	}
	return r, nil
}

// compileInit builds InitialState and the pseudo-loss sum_i <s_i, g_i>,
// whose parameter gradients are those of the initial state given the
// gradient g reaching it.
func (r *Recurrence) compileInit() error {
	b := NewBuilder()
	r.initNz = b.noise
	r.initNz.step = -1
	state := r.cell.InitialState(b, r.batch)
	if err := checkState(b, r.cell, state, r.batch); err != nil {
		return err
	}
	var total *G.Node
	for i, s := range state {
		g := b.Input(fmt.Sprintf("g%d", i), r.batch, r.sizes[i])
		r.initG = append(r.initG, g)
		term := b.Sum(b.Hadamard(s, g))
		if total == nil {
			total = term
		} else {
			total = b.Add(total, term)
		}
		r.initOut = append(r.initOut, b.Watch(s))
	}
	m, err := Compile(b, total, r.p)
	r.init = m
	return err
}

// compileStep builds one step: h_out = Step(x, h_in) and the head's loss
// on h_out[0]; with grad, the loss is the head's plus sum_i <h_out_i,
// g_i> and the machine differentiates it with respect to the parameters
// and h_in.
func (r *Recurrence) compileStep(head Head, grad bool) (*stepGraph, error) {
	b := NewBuilder()
	s := &stepGraph{x: b.Input("x", r.batch, r.cell.InputSize()), noise: b.noise}
	for i, n := range r.sizes {
		s.hIn = append(s.hIn, b.Input(fmt.Sprintf("h%d", i), r.batch, n))
	}
	s.hOut = r.cell.Step(b, s.x, s.hIn)
	if err := checkState(b, r.cell, s.hOut, r.batch); err != nil {
		return nil, err
	}
	s.loss, s.aux = head(b, s.hOut[0])
	if err := b.Err(); err != nil {
		return nil, err
	}
	if s.loss == nil || !s.loss.IsScalar() {
		return nil, errors.New("the head must return a scalar loss")
	}
	if !grad {
		for _, h := range s.hOut {
			b.Watch(h)
		}
		m, err := Compile(b, s.loss, nil)
		s.m = m
		return s, err
	}
	total := s.loss
	for i, h := range s.hOut {
		g := b.Input(fmt.Sprintf("gh%d", i), r.batch, r.sizes[i])
		s.gHOut = append(s.gHOut, g)
		total = b.Add(total, b.Sum(b.Hadamard(h, g)))
	}
	m, err := CompileWRT(b, total, r.p, s.hIn)
	s.m = m
	return s, err
}

// Run runs the recurrence over T = len(xs) steps and returns the summed
// step losses. xs[t] is the input of step t ([batch, InputSize()],
// row-major); aux[t][k] the value of the head's k-th input at step t. With
// grads non-nil, the gradient of the summed loss with respect to every
// parameter is added into grads (full or truncated BPTT, see
// RecurrenceConfig).
func (r *Recurrence) Run(xs [][]float64, aux [][][]float64, grads *params.Params) (float64, error) {
	T := len(xs)
	if T == 0 || len(aux) != T {
		return 0, errors.Errorf("graph: recurrence over %d steps with %d head inputs", T, len(aux))
	}
	if err := r.init.Run(); err != nil {
		return 0, err
	}
	k := r.stride()
	r.states = grow(r.states, (T+k-1)/k+1, r.sizes, r.batch)
	if k > 1 {
		r.seg = grow(r.seg, k, r.sizes, r.batch)
	}
	for i, n := range r.initOut {
		v, err := r.init.Value(n)
		if err != nil {
			return 0, err
		}
		copy(r.states[0][i], v)
	}
	total, err := r.forward(xs, aux)
	if err != nil || grads == nil {
		return total, err
	}
	return total, r.backward(xs, aux, grads)
}

// SetNoise switches the cell's random ops (Builder.Dropout) on, with the
// training batch's seed, or off (the identity) for the next runs. They are
// off until it is called.
func (r *Recurrence) SetNoise(seed uint64, on bool) {
	for _, n := range []*noise{r.initNz, r.fwd.noise, r.bwd.noise} {
		n.set(seed, on)
	}
}

// stride is the distance between stored states.
func (r *Recurrence) stride() int { return max(r.cfg.Checkpoint, 1) }

// grow returns sets with at least n state sets of the given sizes.
func grow(sets [][][]float64, n int, sizes []int, batch int) [][][]float64 {
	for len(sets) < n {
		st := make([][]float64, len(sizes))
		for i, s := range sizes {
			st[i] = make([]float64, batch*s)
		}
		sets = append(sets, st)
	}
	return sets
}

// step runs the forward machine on step t from state in, writes the state
// after it into out and returns the step's loss.
func (r *Recurrence) step(t int, x []float64, aux [][]float64, in, out [][]float64) (float64, error) {
	f := r.fwd
	f.noise.step = t
	if err := r.bind(f, x, aux, in); err != nil {
		return 0, errors.Wrapf(err, "step %d", t)
	}
	if err := f.m.Run(); err != nil {
		return 0, errors.Wrapf(err, "step %d", t)
	}
	for i, h := range f.hOut {
		v, err := f.m.Value(h)
		if err != nil {
			return 0, err
		}
		copy(out[i], v)
	}
	return f.m.Loss(), nil
}

func (r *Recurrence) forward(xs [][]float64, aux [][][]float64) (float64, error) {
	k := r.stride()
	var total float64
	in := r.states[0]
	for t := range xs {
		out := r.states[min(t+1, len(r.states)-1)]
		if k > 1 {
			out = r.seg[(t+1)%2]
		}
		l, err := r.step(t, xs[t], aux[t], in, out)
		if err != nil {
			return 0, err
		}
		total += l
		if k > 1 && (t+1)%k == 0 {
			for i := range out {
				copy(r.states[(t+1)/k][i], out[i])
			}
		}
		in = out
	}
	return total, nil
}

// backward runs the steps' vector-Jacobian products in reverse, segment by
// segment: without checkpoints a segment is one step whose input state is
// stored; with them, a segment's input states are first recomputed from
// its checkpoint.
func (r *Recurrence) backward(xs [][]float64, aux [][][]float64, grads *params.Params) error {
	for _, g := range r.gcarry {
		clear(g)
	}
	k := r.stride()
	for s := (len(xs) - 1) / k * k; s >= 0; s -= k {
		e := min(s+k, len(xs))
		in := func(t int) [][]float64 { return r.states[t] }
		if k > 1 {
			for i := range r.seg[0] {
				copy(r.seg[0][i], r.states[s/k][i])
			}
			for t := s; t < e-1; t++ {
				if _, err := r.step(t, xs[t], aux[t], r.seg[t-s], r.seg[t-s+1]); err != nil {
					return err
				}
			}
			in = func(t int) [][]float64 { return r.seg[t-s] }
		}
		for t := e - 1; t >= s; t-- {
			if err := r.stepBack(t, xs[t], aux[t], in(t), grads); err != nil {
				return err
			}
		}
	}
	for i, g := range r.initG {
		if err := r.init.Let(g, r.gcarry[i]); err != nil {
			return err
		}
	}
	if err := r.init.Run(); err != nil {
		return err
	}
	return r.init.AddGrads(grads)
}

// stepBack runs the vector-Jacobian product of step t from input state h
// with the carried gradient, adds the parameters' gradients into grads and
// leaves the gradient of h in the carry (zeroed at a truncation boundary).
func (r *Recurrence) stepBack(t int, x []float64, aux [][]float64, h [][]float64, grads *params.Params) error {
	bw := r.bwd
	bw.noise.step = t
	if err := r.bind(bw, x, aux, h); err != nil {
		return errors.Wrapf(err, "step %d", t)
	}
	for i, g := range bw.gHOut {
		if err := bw.m.Let(g, r.gcarry[i]); err != nil {
			return err
		}
	}
	if err := bw.m.Run(); err != nil {
		return errors.Wrapf(err, "step %d gradient", t)
	}
	if err := bw.m.AddGrads(grads); err != nil {
		return err
	}
	for i, n := range bw.hIn {
		if err := bw.m.InputGrad(n, r.gcarry[i]); err != nil {
			return err
		}
	}
	if k := r.cfg.Truncate; k > 0 && t > 0 && t%k == 0 {
		for _, g := range r.gcarry {
			clear(g)
		}
	}
	return nil
}

// bind sets a step graph's inputs.
func (r *Recurrence) bind(s *stepGraph, x []float64, aux [][]float64, h [][]float64) error {
	if err := s.m.Let(s.x, x); err != nil {
		return err
	}
	if len(aux) != len(s.aux) {
		return errors.Errorf("graph: %d head inputs, the head has %d", len(aux), len(s.aux))
	}
	for k, n := range s.aux {
		if err := s.m.Let(n, aux[k]); err != nil {
			return err
		}
	}
	for i, n := range s.hIn {
		if err := s.m.Let(n, h[i]); err != nil {
			return err
		}
	}
	return nil
}

// Close releases the machines.
func (r *Recurrence) Close() error {
	var first error
	for _, m := range []*Machine{r.init, r.fwd.m, r.bwd.m} {
		if err := m.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
