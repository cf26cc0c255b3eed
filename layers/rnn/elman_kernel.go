package rnn

import (
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/internal/fastmath"
	"github.com/rtnlab/rtn/internal/par"
	"github.com/rtnlab/rtn/layers/activation"
)

var _ graph.FusedCell32 = (*Elman)(nil)

// StepKernel implements graph.FusedCell: Step and its vector-Jacobian
// product in plain Go.
func (c *Elman) StepKernel(batch int) graph.StepKernel {
	return &elmanKernel[float64]{c: c, batch: batch, win: newGradWindow[float64](c, batch, c.in, c.hidden, c.hidden, true)}
}

// StepKernel32 implements graph.FusedCell32: StepKernel in float32.
func (c *Elman) StepKernel32(batch int, w graph.Weights[float32]) graph.StepKernelOf[float32] {
	return &elmanKernel[float32]{c: c, batch: batch, w: w, win: newGradWindow[float32](c, batch, c.in, c.hidden, c.hidden, true)}
}

// elmanKernel caches s'(z) of each step, [batch, H].
type elmanKernel[F graph.Float] struct {
	c     *Elman
	batch int
	w     graph.Weights[F]
	u     graph.PackedWeightOf[F]
	win   gradWindow[F] // the steps' pre-activation gradients, x and h
	rows  elmanRows[F]
}

func (k *elmanKernel[F]) Params() []string {
	return []string{k.c.Name("W"), k.c.Name("U"), k.c.Name("b"), k.c.Name("h0")}
}

func (k *elmanKernel[F]) CacheSize() int { return k.batch * k.c.hidden }

func (k *elmanKernel[F]) ProjectionSize() int { return k.c.hidden }

// Project: x W + b.
func (k *elmanKernel[F]) Project(xs, proj []F) {
	c := k.c
	graph.GemmOf(false, false, len(xs)/c.in, c.hidden, c.in, 1, xs, c.in, k.w.Data(c.params, c.Name("W")), c.hidden, 0, proj, c.hidden)
	addRows(proj, k.w.Data(c.params, c.Name("b")))
}

func (k *elmanKernel[F]) InitialState(state [][]F) {
	k.u.Reset()
	k.win.reset()
	fillRows(state[0], k.w.Data(k.c.params, k.c.Name("h0")))
}

func (k *elmanKernel[F]) InitialStateBack(g [][]F, grads graph.Grads[F]) {
	k.win.flush(grads)
	learnedStateBack(grads, k.c.Name("h0"), g[0])
}

// Forward: h = s(x W + b + h U).
func (k *elmanKernel[F]) Forward(_, proj []F, in, out [][]F, cache []F) {
	c := k.c
	h := out[0]
	copy(h, proj)
	k.u.Forward(k.w.Data(c.params, c.Name("U")), c.hidden, c.hidden, k.batch, in[0], 1, h)
	k.rows = elmanRows[F]{k: k, h: h, cache: cache}
	par.Rows(&k.rows, k.batch, 4*c.hidden)
}

// Backward: dz = gout s'(z); W, U, b get x^T dz, h^T dz and the column
// sums of dz (a window of steps at a time, see gradWindow); the input state
// gets dz U^T.
func (k *elmanKernel[F]) Backward(x []F, in [][]F, cache []F, gout, gin [][]F, grads graph.Grads[F]) {
	c := k.c
	dz, _ := k.win.next(x, in[0])
	k.rows = elmanRows[F]{k: k, back: true, h: gout[0], cache: cache, dz: dz}
	par.Rows(&k.rows, k.batch, 2*c.hidden)
	k.u.Backward(k.w.Data(c.params, c.Name("U")), c.hidden, c.hidden, k.batch, dz, 0, gin[0])
	if k.win.full() {
		k.win.flush(grads)
	}
}

// elmanRows is a step's elementwise work on rows of the batch (par.Rows):
// forward, the activation of h and its derivative into cache; backward,
// dz = gout (in h) times that derivative.
type elmanRows[F graph.Float] struct {
	k            *elmanKernel[F]
	back         bool
	h, cache, dz []F
}

func (s *elmanRows[F]) Rows(lo, hi int) {
	H := s.k.c.hidden
	h, cache := s.h[lo*H:hi*H], s.cache[lo*H:hi*H]
	if s.back {
		for i, d := range cache {
			s.dz[lo*H+i] = h[i] * d
		}
		return
	}
	for r := 0; r < hi-lo; r++ { // row by row, so the cut does not matter
		s.k.activate(h[r*H:(r+1)*H], cache[r*H:(r+1)*H])
	}
}

// activate applies the activation to one row h of pre-activations, in
// place, and writes its derivative into cache.
func (k *elmanKernel[F]) activate(h, cache []F) {
	switch k.c.act {
	case activation.Tanh:
		fastmath.Tanh(h, h)
		for i, y := range h {
			cache[i] = 1 - y*y
		}
	case activation.SymSigmoid:
		for i, z := range h {
			h[i] = z * 0.5
		}
		fastmath.Tanh(h, h)
		for i, y := range h {
			cache[i] = (1 - y*y) * 0.5
		}
	default:
		for i := range cache {
			cache[i] = 1
		}
	}
}
