package rnn

import (
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/internal/fastmath"
	"github.com/rtnlab/rtn/layers/activation"
)

var _ graph.FusedCell32 = (*Elman)(nil)

// StepKernel implements graph.FusedCell: Step and its vector-Jacobian
// product in plain Go.
func (c *Elman) StepKernel(batch int) graph.StepKernel {
	return &elmanKernel[float64]{c: c, batch: batch}
}

// StepKernel32 implements graph.FusedCell32: StepKernel in float32.
func (c *Elman) StepKernel32(batch int, w graph.Weights[float32]) graph.StepKernelOf[float32] {
	return &elmanKernel[float32]{c: c, batch: batch, w: w}
}

// elmanKernel caches s'(z) of each step, [batch, H].
type elmanKernel[F graph.Float] struct {
	c     *Elman
	batch int
	w     graph.Weights[F]
	u     graph.PackedWeightOf[F]
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
	fillRows(state[0], k.w.Data(k.c.params, k.c.Name("h0")))
}

func (k *elmanKernel[F]) InitialStateBack(g [][]F, grads graph.Grads[F]) {
	learnedStateBack(grads, k.c.Name("h0"), g[0])
}

// Forward: h = s(x W + b + h U).
func (k *elmanKernel[F]) Forward(_, proj []F, in, out [][]F, cache []F) {
	c := k.c
	h := out[0]
	copy(h, proj)
	k.u.Forward(k.w.Data(c.params, c.Name("U")), c.hidden, c.hidden, k.batch, in[0], 1, h)
	switch c.act {
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

// Backward: dz = gout s'(z); W, U, b get x^T dz, h^T dz and the column
// sums of dz; the input state gets dz U^T.
func (k *elmanKernel[F]) Backward(x []F, in [][]F, cache []F, gout, gin [][]F, grads graph.Grads[F]) {
	c := k.c
	dz := gout[0]
	for i, d := range cache {
		dz[i] *= d
	}
	graph.GemmOf(true, false, c.in, c.hidden, k.batch, 1, x, c.in, dz, c.hidden, 1, grads.Data(c.Name("W")), c.hidden)
	graph.GemmOf(true, false, c.hidden, c.hidden, k.batch, 1, in[0], c.hidden, dz, c.hidden, 1, grads.Data(c.Name("U")), c.hidden)
	addColSums(grads.Data(c.Name("b")), dz)
	k.u.Backward(k.w.Data(c.params, c.Name("U")), c.hidden, c.hidden, k.batch, dz, 0, gin[0])
}
