package twornn

import (
	"math"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/params"
)

var _ graph.FusedCell = (*Cell)(nil)

// StepKernel implements graph.FusedCell: Step and its vector-Jacobian
// product in plain Go, without the spread and block-sum matrices of the
// graph (pre[b, j] = sum_c x[b, c] Z[b, c n + j] directly).
func (c *Cell) StepKernel(batch int) graph.StepKernel {
	return &kernel{c: c, batch: batch, z: make([]float64, batch*c.in*c.n)}
}

// kernel caches z'(pre) of each step, [batch, n].
type kernel struct {
	c     *Cell
	batch int
	z     []float64 // [batch, d n]: h A forward, its gradient backward
}

func (k *kernel) Params() []string { return []string{k.c.Name("A"), k.c.Name("h0")} }

func (k *kernel) CacheSize() int { return k.batch * k.c.n }

// ProjectionSize is 0: the step is bilinear in x and h.
func (k *kernel) ProjectionSize() int { return 0 }

func (k *kernel) Project(_, _ []float64) {}

func (k *kernel) InitialState(state [][]float64) {
	h0 := k.c.params.Data(k.c.Name("h0"))
	for r := 0; r < len(state[0]); r += len(h0) {
		copy(state[0][r:], h0)
	}
}

func (k *kernel) InitialStateBack(g [][]float64, grads *params.Params) {
	gh0 := grads.Data(k.c.Name("h0"))
	for r := 0; r < len(g[0]); r += len(gh0) {
		for j, v := range g[0][r : r+len(gh0)] {
			gh0[j] += v
		}
	}
}

func (k *kernel) Forward(x, _ []float64, in, out [][]float64, cache []float64) {
	c, d, n := k.c, k.c.in, k.c.n
	graph.Gemm(false, false, k.batch, d*n, n, 1, in[0], n, c.params.Data(c.Name("A")), d*n, 0, k.z, d*n)
	slope := c.fixed.Data(c.slopeName)
	for r := range k.batch {
		z, xr := k.z[r*d*n:(r+1)*d*n], x[r*d:(r+1)*d]
		h, dr := out[0][r*n:(r+1)*n], cache[r*n:(r+1)*n]
		for j := range n {
			var pre float64
			for a, xv := range xr {
				pre += z[a*n+j] * xv
			}
			h[j], dr[j] = pre, 1
			switch c.act {
			case activation.Tanh:
				y := math.Tanh(pre)
				h[j], dr[j] = y, 1-y*y
			case activation.LeakyReLU:
				if pre <= 0 {
					h[j], dr[j] = slope[j]*pre, slope[j]
				}
			}
		}
	}
}

func (k *kernel) Backward(x []float64, in [][]float64, cache []float64, gout, gin [][]float64, grads *params.Params) {
	c, d, n := k.c, k.c.in, k.c.n
	for r := range k.batch {
		z, xr := k.z[r*d*n:(r+1)*d*n], x[r*d:(r+1)*d]
		g, dr := gout[0][r*n:(r+1)*n], cache[r*n:(r+1)*n]
		for j := range n {
			g[j] *= dr[j]
		}
		for a, xv := range xr {
			for j, v := range g {
				z[a*n+j] = xv * v
			}
		}
	}
	graph.Gemm(true, false, n, d*n, k.batch, 1, in[0], n, k.z, d*n, 1, grads.Data(c.Name("A")), d*n)
	graph.Gemm(false, true, k.batch, n, d*n, 1, k.z, d*n, c.params.Data(c.Name("A")), d*n, 0, gin[0], n)
}
