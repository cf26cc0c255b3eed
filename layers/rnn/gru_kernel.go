package rnn

import (
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/internal/fastmath"
	"github.com/rtnlab/rtn/internal/par"
)

var _ graph.FusedCell32 = (*GRU)(nil)

// StepKernel implements graph.FusedCell: Step and its vector-Jacobian
// product in plain Go.
func (c *GRU) StepKernel(batch int) graph.StepKernel {
	return newGRUKernel(c, batch, graph.Weights[float64]{})
}

// StepKernel32 implements graph.FusedCell32: StepKernel in float32.
func (c *GRU) StepKernel32(batch int, w graph.Weights[float32]) graph.StepKernelOf[float32] {
	return newGRUKernel(c, batch, w)
}

func newGRUKernel[F graph.Float](c *GRU, batch int, w graph.Weights[F]) *gruKernel[F] {
	return &gruKernel[F]{c: c, batch: batch, w: w, zh: make([]F, batch*3*c.hidden), win: newGradWindow[F](c, batch, c.in, c.hidden, 3*c.hidden, false)}
}

// gruKernel caches r, z, n and n_h + bh of each step (the four [H]
// blocks of each row of a [batch, 4H] slice).
type gruKernel[F graph.Float] struct {
	c     *GRU
	batch int
	w     graph.Weights[F]
	zh    []F // [batch, 3H]: h U in Forward
	u     graph.PackedWeightOf[F]
	win   gradWindow[F] // the gradients of x W + b and h U, x and h
	rows  gruRows[F]
}

func (k *gruKernel[F]) Params() []string {
	return []string{k.c.Name("W"), k.c.Name("U"), k.c.Name("b"), k.c.Name("bh"), k.c.Name("h0")}
}

func (k *gruKernel[F]) CacheSize() int { return k.batch * 4 * k.c.hidden }

func (k *gruKernel[F]) ProjectionSize() int { return 3 * k.c.hidden }

// Project: x W + b.
func (k *gruKernel[F]) Project(xs, proj []F) {
	c, H := k.c, k.c.hidden
	graph.GemmOf(false, false, len(xs)/c.in, 3*H, c.in, 1, xs, c.in, k.w.Data(c.params, c.Name("W")), 3*H, 0, proj, 3*H)
	addRows(proj, k.w.Data(c.params, c.Name("b")))
}

func (k *gruKernel[F]) InitialState(state [][]F) {
	k.u.Reset()
	k.win.reset()
	fillRows(state[0], k.w.Data(k.c.params, k.c.Name("h0")))
}

func (k *gruKernel[F]) InitialStateBack(g [][]F, grads graph.Grads[F]) {
	k.win.flush(grads)
	learnedStateBack(grads, k.c.Name("h0"), g[0])
}

func (k *gruKernel[F]) Forward(_, proj []F, in, out [][]F, cache []F) {
	c, H := k.c, k.c.hidden
	k.u.Forward(k.w.Data(c.params, c.Name("U")), H, 3*H, k.batch, in[0], 0, k.zh)
	k.rows = gruRows[F]{k: k, zx: proj, zh: k.zh, bh: k.w.Data(c.params, c.Name("bh")), cache: cache, in: in, out: out}
	par.Rows(&k.rows, k.batch, 8*H)
}

func (k *gruKernel[F]) Backward(x []F, in [][]F, cache []F, gout, gin [][]F, grads graph.Grads[F]) {
	c, H := k.c, k.c.hidden
	zx, zh := k.win.next(x, in[0])
	k.rows = gruRows[F]{k: k, back: true, zx: zx, zh: zh, cache: cache, in: in, out: gout, gin: gin}
	par.Rows(&k.rows, k.batch, 10*H)
	gbh := grads.Data(c.Name("bh"))
	for r := range k.batch {
		for j, v := range zh[r*3*H+2*H : (r+1)*3*H] {
			gbh[j] += v
		}
	}
	k.u.Backward(k.w.Data(c.params, c.Name("U")), H, 3*H, k.batch, zh, 1, gin[0])
	if k.win.full() {
		k.win.flush(grads)
	}
}

// gruRows is a step's elementwise work, forward or backward, on rows of
// the batch (par.Rows). Forward reads x W + b from zx, h U from zh and the
// bias bh (read from the weights before the rows are cut: a float32
// weight read is not safe for concurrent use); Backward writes their
// gradients into zx and zh and reads gout from out.
type gruRows[F graph.Float] struct {
	k                 *gruKernel[F]
	back              bool
	zx, zh, bh, cache []F
	in, out, gin      [][]F
}

func (s *gruRows[F]) Rows(lo, hi int) {
	if s.back {
		s.k.backwardRows(lo, hi, s.zx, s.zh, s.cache, s.in, s.out, s.gin)
	} else {
		s.k.forwardRows(lo, hi, s.zx, s.zh, s.bh, s.cache, s.in, s.out)
	}
}

// forwardRows computes the gates and the next state of rows [lo, hi).
func (k *gruKernel[F]) forwardRows(lo, hi int, proj, zhs, bh, cache []F, in, out [][]F) {
	H := k.c.hidden
	for r := lo; r < hi; r++ {
		zx, zh, cr := proj[r*3*H:(r+1)*3*H], zhs[r*3*H:(r+1)*3*H], cache[r*4*H:(r+1)*4*H]
		h, hn := in[0][r*H:(r+1)*H], out[0][r*H:(r+1)*H]
		for j := range 2 * H {
			cr[j] = zx[j] + zh[j]
		}
		fastmath.Sigmoid(cr[:2*H], cr[:2*H]) // r, z
		for j := range H {
			nh := zh[2*H+j] + bh[j]
			cr[2*H+j], cr[3*H+j] = zx[2*H+j]+cr[j]*nh, nh
		}
		fastmath.Tanh(cr[2*H:3*H], cr[2*H:3*H]) // n
		for j := range H {
			zg, n := cr[H+j], cr[2*H+j]
			hn[j] = n + zg*(h[j]-n)
		}
	}
}

// backwardRows writes the gradients of x W + b (zx) and h U (zh) of rows
// [lo, hi), and the part of the input state's gradient that does not go
// through U.
func (k *gruKernel[F]) backwardRows(lo, hi int, zx, zh, cache []F, in, gout, gin [][]F) {
	H := k.c.hidden
	for r := lo; r < hi; r++ {
		dx, dh, cr := zx[r*3*H:(r+1)*3*H], zh[r*3*H:(r+1)*3*H], cache[r*4*H:(r+1)*4*H]
		g, h, gh := gout[0][r*H:(r+1)*H], in[0][r*H:(r+1)*H], gin[0][r*H:(r+1)*H]
		for j := range H {
			rg, zg, n, nh := cr[j], cr[H+j], cr[2*H+j], cr[3*H+j]
			dn := g[j] * (1 - zg) * (1 - n*n)
			dr := dn * nh * rg * (1 - rg)
			dz := g[j] * (h[j] - n) * zg * (1 - zg)
			dx[j], dx[H+j], dx[2*H+j] = dr, dz, dn
			dh[j], dh[H+j], dh[2*H+j] = dr, dz, dn*rg
			gh[j] = g[j] * zg
		}
	}
}
