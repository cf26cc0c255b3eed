package twornn

import (
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/internal/fastmath"
	"github.com/rtnlab/rtn/internal/vec"
	"github.com/rtnlab/rtn/layers/activation"
)

var _ graph.FusedCell32 = (*Cell)(nil)

// StepKernel implements graph.FusedCell: Step and its vector-Jacobian
// product in plain Go: Z = h A, then pre[b, j] = sum_c x[b, c] Z[b, c n + j].
func (c *Cell) StepKernel(batch int) graph.StepKernel {
	return &kernel[float64]{c: c, batch: batch, z: make([]float64, batch*c.in*c.n)}
}

// StepKernel32 implements graph.FusedCell32: StepKernel in float32.
func (c *Cell) StepKernel32(batch int, w graph.Weights[float32]) graph.StepKernelOf[float32] {
	return &kernel[float32]{c: c, batch: batch, w: w, z: make([]float32, batch*c.in*c.n)}
}

// kernel caches z'(pre) of each step, [batch, n].
type kernel[F graph.Float] struct {
	c     *Cell
	batch int
	w     graph.Weights[F]
	z     []F // [batch, d n]: h A forward; x ⊗ g, then g Ã backward
	a     graph.PackedWeightOf[F]
	// at is Ã, A with each of its d blocks of n columns transposed
	// (Ã[j, c n + i] = A[i, c n + j]), packed at the first backward step
	// of a pass: the gradient reaching h is then the contraction of g Ã
	// with x, a product that packs g (batch x n) where g ⊗ x Aᵀ would pack
	// batch x d n values.
	at      graph.PackedOf[F]
	atData  []F
	atReady bool
}

func (k *kernel[F]) Params() []string { return []string{k.c.Name("A"), k.c.Name("h0")} }

func (k *kernel[F]) CacheSize() int { return k.batch * k.c.n }

// ProjectionSize is 0: the step is bilinear in x and h.
func (k *kernel[F]) ProjectionSize() int { return 0 }

func (k *kernel[F]) Project(_, _ []F) {}

func (k *kernel[F]) InitialState(state [][]F) {
	k.a.Reset()
	k.atReady = false
	h0 := k.w.Data(k.c.params, k.c.Name("h0"))
	for r := 0; r < len(state[0]); r += len(h0) {
		copy(state[0][r:], h0)
	}
}

func (k *kernel[F]) InitialStateBack(g [][]F, grads graph.Grads[F]) {
	gh0 := grads.Data(k.c.Name("h0"))
	for r := 0; r < len(g[0]); r += len(gh0) {
		for j, v := range g[0][r : r+len(gh0)] {
			gh0[j] += v
		}
	}
}

func (k *kernel[F]) Forward(x, _ []F, in, out [][]F, cache []F) {
	c, d, n := k.c, k.c.in, k.c.n
	k.a.Forward(k.w.Data(c.params, c.Name("A")), n, d*n, k.batch, in[0], 0, k.z)
	slope := k.w.Data(c.fixed, c.slopeName)
	for r := range k.batch {
		z, xr := k.z[r*d*n:(r+1)*d*n], x[r*d:(r+1)*d]
		h, dr := out[0][r*n:(r+1)*n], cache[r*n:(r+1)*n]
		clear(h)
		for a, xv := range xr {
			vec.ScaleAdd(h, z[a*n:(a+1)*n], xv)
		}
		for j := range dr {
			dr[j] = 1
		}
		switch c.act {
		case activation.Tanh:
			fastmath.Tanh(h, h)
			for j, y := range h {
				dr[j] = 1 - y*y
			}
		case activation.LeakyReLU:
			for j, pre := range h {
				if pre <= 0 {
					h[j], dr[j] = slope[j]*pre, slope[j]
				}
			}
		}
	}
}

func (k *kernel[F]) Backward(x []F, in [][]F, cache []F, gout, gin [][]F, grads graph.Grads[F]) {
	c, d, n := k.c, k.c.in, k.c.n
	for r := range k.batch {
		z, xr := k.z[r*d*n:(r+1)*d*n], x[r*d:(r+1)*d]
		g, dr := gout[0][r*n:(r+1)*n], cache[r*n:(r+1)*n]
		vec.Mul(g, g, dr)
		for a, xv := range xr {
			vec.Scale(z[a*n:(a+1)*n], g, xv)
		}
	}
	graph.GemmOf(true, false, n, d*n, k.batch, 1, in[0], n, k.z, d*n, 1, grads.Data(c.Name("A")), d*n)
	if !k.atReady {
		k.packAt()
	}
	k.at.Mul(false, k.batch, 1, gout[0], n, 0, k.z, d*n)
	for r := range k.batch {
		z, xr, gr := k.z[r*d*n:(r+1)*d*n], x[r*d:(r+1)*d], gin[0][r*n:(r+1)*n]
		clear(gr)
		for a, xv := range xr {
			vec.ScaleAdd(gr, z[a*n:(a+1)*n], xv)
		}
	}
}

// packAt writes Ã from A and packs it.
func (k *kernel[F]) packAt() {
	d, n := k.c.in, k.c.n
	a := k.w.Data(k.c.params, k.c.Name("A"))
	if len(k.atData) < n*d*n {
		k.atData = make([]F, n*d*n)
	}
	for i := range n {
		for c := range d {
			for j := range n {
				k.atData[j*d*n+c*n+i] = a[i*d*n+c*n+j]
			}
		}
	}
	k.at.Pack(false, n, d*n, k.atData, d*n)
	k.atReady = true
}
