package graph

import (
	"unsafe"

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
// product per block of steps; the recurrent products go step by step, and
// the kernel's Backward is called for every step once, from the last to
// the first, whatever the blocks and checkpoints (a kernel that gathers
// steps counts them from the last), so checkpoints change no bit. Its buffers grow to
// the longest sequence seen and are reused: a run over sequences no longer
// than an earlier one allocates nothing.
//
// It runs in float64 (NewFusedRecurrence, NewTapeRecurrence) or float32
// (NewFusedRecurrence32, NewTapeRecurrence32).
//
// A FusedRecurrence is for one batch size and is not safe for concurrent
// use.
type FusedRecurrence struct {
	r64 *fusedRun[float64]
	r32 *fusedRun[float32]
}

// fusedRun is FusedRecurrence in one float type. In float32 the kernels
// read float32 copies of the parameters (mirror, synced at each run), the
// inputs are converted to float32 once per run, and the gradients of a run
// are summed in float32 (g32) and added into the float64 set at its end.
type fusedRun[F Float] struct {
	k     StepKernelOf[F]
	noisy NoisyKernel // k, when it has random ops
	head  HeadKernelOf[F]
	p     *params.Params
	batch int
	in    int
	cfg   RecurrenceConfig
	sizes []int
	names []string

	mirror *Mirror  // float32: the kernels' weights
	g32    *grads32 // float32: the run's gradients
	xbuf   []F      // float32: the run's inputs
	xs     [][]F    // the run's inputs, step by step

	all    stateStore[F] // every state (gradients without checkpoints)
	ck     stateStore[F] // every stride-th state (checkpoints)
	seg    stateStore[F] // the states of one segment
	x      []F           // the inputs of a block, contiguous
	proj   []F           // their projections
	cache  []F           // the cell's caches, one slot per stored step
	hcache []F           // the head's caches, one slot per stored step
	loss   []float64     // the losses of a block's steps
	dh     []F           // the head's input gradients of a block
	gcarry [][]F
	gnext  [][]F
}

// stateStore holds consecutive states with each state tensor of all of
// them in one slice, so state 0 of a run of steps is one matrix.
type stateStore[F Float] struct {
	flat  [][]F   // flat[i]: state i of every step, [n*batch*size_i]
	views [][][]F // views[t][i]: state i of step t
}

// grow makes room for n states.
func (s *stateStore[F]) grow(n int, sizes []int, batch int) {
	if len(s.views) >= n {
		return
	}
	s.flat = make([][]F, len(sizes))
	for i, sz := range sizes {
		s.flat[i] = make([]F, n*batch*sz)
	}
	s.views = make([][][]F, n)
	for t := range s.views {
		s.views[t] = make([][]F, len(sizes))
		for i, sz := range sizes {
			s.views[t][i] = s.flat[i][t*batch*sz : (t+1)*batch*sz]
		}
	}
}

// NewFusedRecurrence sets up the executor for cell c's kernel and a head
// kernel for a batch size; p is the set both read their parameters from.
func NewFusedRecurrence(c FusedCell, p *params.Params, batch int, head HeadKernel, cfg RecurrenceConfig) (*FusedRecurrence, error) {
	if err := checkFused(batch, cfg, head != nil); err != nil {
		return nil, err
	}
	r, err := newFusedRun(c.StepKernel(batch), head, nil, c, p, batch, cfg)
	return &FusedRecurrence{r64: r}, err
}

// NewFusedRecurrence32 is NewFusedRecurrence in float32: the cell's
// float32 kernel and the head head makes, both reading float32 copies of
// the parameters of p (and of any other set they read) made once per Run.
// States, caches, activations and matrix products are float32; the
// gradients of a run are summed in float32 and added into the float64
// gradient set at its end.
func NewFusedRecurrence32(c FusedCell32, p *params.Params, batch int, head func(Weights[float32]) HeadKernelOf[float32], cfg RecurrenceConfig) (*FusedRecurrence, error) {
	if err := checkFused(batch, cfg, head != nil); err != nil {
		return nil, err
	}
	m := NewMirror()
	r, err := newFusedRun(c.StepKernel32(batch, m.Weights32()), head(m.Weights32()), m, c, p, batch, cfg)
	return &FusedRecurrence{r32: r}, err
}

func checkFused(batch int, cfg RecurrenceConfig, head bool) error {
	if batch <= 0 {
		return errors.Errorf("graph: recurrence needs a positive batch size, got %d", batch)
	}
	if cfg.Truncate < 0 || cfg.Checkpoint < 0 {
		return errors.Errorf("graph: recurrence truncation and checkpoint interval must not be negative, got %d, %d", cfg.Truncate, cfg.Checkpoint)
	}
	if !head {
		return errors.New("graph: fused recurrence needs a head kernel")
	}
	return nil
}

// newFusedRun sets up the executor of kernel k and head for cell c; m is
// the float32 kernels' mirror (nil for float64).
func newFusedRun[F Float](k StepKernelOf[F], head HeadKernelOf[F], m *Mirror, c Cell, p *params.Params, batch int, cfg RecurrenceConfig) (*fusedRun[F], error) {
	r := &fusedRun[F]{k: k, head: head, p: p, batch: batch, in: c.InputSize(), cfg: cfg, sizes: c.StateSizes(), mirror: m}
	r.noisy, _ = k.(NoisyKernel)
	r.names = append(append(r.names, r.k.Params()...), head.Params()...)
	for _, n := range r.names {
		if p.Data(n) == nil {
			return nil, errors.Errorf("graph: fused kernel reads parameter %q, which the set lacks", n)
		}
	}
	if m != nil {
		r.g32 = &grads32{index: map[string]int{}}
		for _, n := range r.names {
			if _, ok := r.g32.index[n]; !ok {
				r.g32.index[n] = len(r.g32.g)
				r.g32.g = append(r.g32.g, make([]float32, len(p.Data(n))))
			}
		}
	}
	for _, s := range r.sizes {
		r.gcarry = append(r.gcarry, make([]F, batch*s))
		r.gnext = append(r.gnext, make([]F, batch*s))
	}
	r.x = make([]F, fusedBlock*batch*r.in)
	r.proj = make([]F, fusedBlock*batch*r.k.ProjectionSize())
	r.loss = make([]float64, fusedBlock)
	r.dh = make([]F, fusedBlock*batch*r.sizes[0])
	return r, nil
}

// SetNoise switches the cell's random ops (Builder.Dropout) on, with the
// training batch's seed, or off (the identity) for the next runs. They are
// off until it is called.
func (r *FusedRecurrence) SetNoise(seed uint64, on bool) {
	if r.r32 != nil {
		r.r32.setNoise(seed, on)
		return
	}
	r.r64.setNoise(seed, on)
}

func (r *fusedRun[F]) setNoise(seed uint64, on bool) {
	if r.noisy != nil {
		r.noisy.SetNoise(seed, on)
	}
}

// DType is the float type the executor runs in: "float64" or "float32".
func (r *FusedRecurrence) DType() string {
	if r.r32 != nil {
		return Float32
	}
	return Float64
}

// Run is Recurrence.Run: the summed step losses over T = len(xs) steps,
// and with grads non-nil their gradient added into grads.
func (r *FusedRecurrence) Run(xs [][]float64, aux [][][]float64, grads *params.Params) (float64, error) {
	if r.r32 != nil {
		return r.r32.run(xs, aux, grads)
	}
	return r.r64.run(xs, aux, grads)
}

// run is FusedRecurrence.Run.
func (r *fusedRun[F]) run(xs64 [][]float64, aux [][][]float64, grads *params.Params) (float64, error) {
	T := len(xs64)
	if T == 0 || len(aux) != T {
		return 0, errors.Errorf("graph: recurrence over %d steps with %d head inputs", T, len(aux))
	}
	for t, x := range xs64 {
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
	xs := r.inputs(xs64)
	var g Grads[F]
	if grads != nil {
		g = r.grads(grads)
	}
	if r.mirror != nil {
		r.mirror.Sync()
	}
	k := max(r.cfg.Checkpoint, 1)
	all := grads != nil && k == 1
	seg := k // the steps run from one stored state
	if !all && k == 1 {
		seg = fusedBlock // evaluation: no state is kept
	}
	seg = min(seg, T)
	slots := seg
	var start [][]F
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
		r.backward(xs, aux, 0, T, &r.all, 0, g)
	} else {
		for s := (T - 1) / k * k; s >= 0; s -= k {
			e := min(s+k, T)
			copyState(r.seg.views[0], r.ck.views[s/k])
			r.forward(xs, aux, s, e, &r.seg, s, 0)
			r.backward(xs, aux, s, e, &r.seg, s, g)
		}
	}
	r.k.InitialStateBack(r.gcarry, g)
	if r.g32 != nil {
		for n, i := range r.g32.index {
			d := grads.Data(n)
			for j, v := range r.g32.g[i] {
				d[j] += float64(v)
			}
		}
	}
	return total, nil
}

// inputs returns the run's inputs as [][]F: xs itself in float64, a
// float32 copy made in buffers reused across runs in float32.
func (r *fusedRun[F]) inputs(xs [][]float64) [][]F {
	if !is32[F]() {
		return *(*[][]F)(unsafe.Pointer(&xs))
	}
	n := len(xs) * r.batch * r.in
	if len(r.xbuf) < n {
		r.xbuf = make([]F, n)
	}
	if len(r.xs) < len(xs) {
		r.xs = make([][]F, len(xs))
	}
	w := r.batch * r.in
	for t, x := range xs {
		r.xs[t] = r.xbuf[t*w : (t+1)*w]
		convert(r.xs[t], x)
	}
	return r.xs[:len(xs)]
}

// grads is the gradient set the kernels add into: grads itself in
// float64, the float32 accumulators, cleared, in float32.
func (r *fusedRun[F]) grads(grads *params.Params) Grads[F] {
	if !is32[F]() {
		return Grads[F]{p: grads}
	}
	for _, g := range r.g32.g {
		clear(g)
	}
	return Grads[F]{g: r.g32}
}

func copyState[F Float](dst, src [][]F) {
	for i := range dst {
		copy(dst[i], src[i])
	}
}

// growFlat returns buf with at least n values.
func growFlat[F Float](buf []F, n int) []F {
	if len(buf) < n {
		return make([]F, n)
	}
	return buf
}

// forward runs steps [s, e) from st.views[0] = the input state of step
// base: step t reads st.views[t-base], writes st.views[t-base+1] and cache
// slot t-base. It returns total plus the steps' losses, added in order.
func (r *fusedRun[F]) forward(xs [][]F, aux [][][]float64, s, e int, st *stateStore[F], base int, total float64) float64 {
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
			if r.noisy != nil {
				r.noisy.SetStep(t)
			}
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
func (r *fusedRun[F]) backward(xs [][]F, aux [][][]float64, s, e int, st *stateStore[F], base int, grads Grads[F]) {
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
			if r.noisy != nil {
				r.noisy.SetStep(t)
			}
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
