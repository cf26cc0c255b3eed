package rnn

import (
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/internal/fastmath"
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
	n := batch * 3 * c.hidden
	return &gruKernel[F]{c: c, batch: batch, w: w, zx: make([]F, n), zh: make([]F, n)}
}

// gruKernel caches r, z, n and n_h + bh of each step (the four [H]
// blocks of each row of a [batch, 4H] slice).
type gruKernel[F graph.Float] struct {
	c      *GRU
	batch  int
	w      graph.Weights[F]
	zx, zh []F // [batch, 3H]: h U (zh) in Forward; the gradients of x W + b and h U in Backward
	u      graph.PackedWeightOf[F]
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
	fillRows(state[0], k.w.Data(k.c.params, k.c.Name("h0")))
}

func (k *gruKernel[F]) InitialStateBack(g [][]F, grads graph.Grads[F]) {
	learnedStateBack(grads, k.c.Name("h0"), g[0])
}

func (k *gruKernel[F]) Forward(_, proj []F, in, out [][]F, cache []F) {
	c, H := k.c, k.c.hidden
	k.u.Forward(k.w.Data(c.params, c.Name("U")), H, 3*H, k.batch, in[0], 0, k.zh)
	bh := k.w.Data(c.params, c.Name("bh"))
	for r := range k.batch {
		zx, zh, cr := proj[r*3*H:(r+1)*3*H], k.zh[r*3*H:(r+1)*3*H], cache[r*4*H:(r+1)*4*H]
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

func (k *gruKernel[F]) Backward(x []F, in [][]F, cache []F, gout, gin [][]F, grads graph.Grads[F]) {
	c, H := k.c, k.c.hidden
	for r := range k.batch {
		dx, dh, cr := k.zx[r*3*H:(r+1)*3*H], k.zh[r*3*H:(r+1)*3*H], cache[r*4*H:(r+1)*4*H]
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
	graph.GemmOf(true, false, c.in, 3*H, k.batch, 1, x, c.in, k.zx, 3*H, 1, grads.Data(c.Name("W")), 3*H)
	addColSums(grads.Data(c.Name("b")), k.zx)
	graph.GemmOf(true, false, H, 3*H, k.batch, 1, in[0], H, k.zh, 3*H, 1, grads.Data(c.Name("U")), 3*H)
	gbh := grads.Data(c.Name("bh"))
	for r := range k.batch {
		for j, v := range k.zh[r*3*H+2*H : (r+1)*3*H] {
			gbh[j] += v
		}
	}
	k.u.Backward(k.w.Data(c.params, c.Name("U")), H, 3*H, k.batch, k.zh, 1, gin[0])
}
