package rnn

import (
	"math"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

var _ graph.FusedCell = (*GRU)(nil)

// StepKernel implements graph.FusedCell: Step and its vector-Jacobian
// product in plain Go.
func (c *GRU) StepKernel(batch int) graph.StepKernel {
	n := batch * 3 * c.hidden
	return &gruKernel{c: c, batch: batch, zx: make([]float64, n), zh: make([]float64, n)}
}

// gruKernel caches r, z, n and n_h + bh of each step (the four [H]
// blocks of each row of a [batch, 4H] slice).
type gruKernel struct {
	c      *GRU
	batch  int
	zx, zh []float64 // [batch, 3H]: h U (zh) in Forward; the gradients of x W + b and h U in Backward
}

func (k *gruKernel) Params() []string {
	return []string{k.c.Name("W"), k.c.Name("U"), k.c.Name("b"), k.c.Name("bh"), k.c.Name("h0")}
}

func (k *gruKernel) CacheSize() int { return k.batch * 4 * k.c.hidden }

func (k *gruKernel) ProjectionSize() int { return 3 * k.c.hidden }

// Project: x W + b.
func (k *gruKernel) Project(xs, proj []float64) {
	c, H := k.c, k.c.hidden
	graph.Gemm(false, false, len(xs)/c.in, 3*H, c.in, 1, xs, c.in, c.params.Data(c.Name("W")), 3*H, 0, proj, 3*H)
	addRows(proj, c.params.Data(c.Name("b")))
}

func (k *gruKernel) InitialState(state [][]float64) {
	fillRows(state[0], k.c.params.Data(k.c.Name("h0")))
}

func (k *gruKernel) InitialStateBack(g [][]float64, grads *params.Params) {
	learnedStateBack(grads, k.c.Name("h0"), g[0])
}

func (k *gruKernel) Forward(_, proj []float64, in, out [][]float64, cache []float64) {
	c, p, H := k.c, k.c.params, k.c.hidden
	graph.Gemm(false, false, k.batch, 3*H, H, 1, in[0], H, p.Data(c.Name("U")), 3*H, 0, k.zh, 3*H)
	bh := p.Data(c.Name("bh"))
	for r := range k.batch {
		zx, zh, cr := proj[r*3*H:(r+1)*3*H], k.zh[r*3*H:(r+1)*3*H], cache[r*4*H:(r+1)*4*H]
		h, hn := in[0][r*H:(r+1)*H], out[0][r*H:(r+1)*H]
		for j := range H {
			rg := sigmoid(zx[j] + zh[j])
			zg := sigmoid(zx[H+j] + zh[H+j])
			nh := zh[2*H+j] + bh[j]
			n := math.Tanh(zx[2*H+j] + rg*nh)
			hn[j] = n + zg*(h[j]-n)
			cr[j], cr[H+j], cr[2*H+j], cr[3*H+j] = rg, zg, n, nh
		}
	}
}

func (k *gruKernel) Backward(x []float64, in [][]float64, cache []float64, gout, gin [][]float64, grads *params.Params) {
	c, p, H := k.c, k.c.params, k.c.hidden
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
	graph.Gemm(true, false, c.in, 3*H, k.batch, 1, x, c.in, k.zx, 3*H, 1, grads.Data(c.Name("W")), 3*H)
	addColSums(grads.Data(c.Name("b")), k.zx)
	graph.Gemm(true, false, H, 3*H, k.batch, 1, in[0], H, k.zh, 3*H, 1, grads.Data(c.Name("U")), 3*H)
	gbh := grads.Data(c.Name("bh"))
	for r := range k.batch {
		for j, v := range k.zh[r*3*H+2*H : (r+1)*3*H] {
			gbh[j] += v
		}
	}
	graph.Gemm(false, true, k.batch, H, 3*H, 1, k.zh, 3*H, p.Data(c.Name("U")), 3*H, 1, gin[0], H)
}
