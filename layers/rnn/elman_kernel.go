package rnn

import (
	"math"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/params"
)

var _ graph.FusedCell = (*Elman)(nil)

// StepKernel implements graph.FusedCell: Step and its vector-Jacobian
// product in plain Go.
func (c *Elman) StepKernel(batch int) graph.StepKernel {
	return &elmanKernel{c: c, batch: batch}
}

// elmanKernel caches s'(z) of each step, [batch, H].
type elmanKernel struct {
	c     *Elman
	batch int
}

func (k *elmanKernel) Params() []string {
	return []string{k.c.Name("W"), k.c.Name("U"), k.c.Name("b"), k.c.Name("h0")}
}

func (k *elmanKernel) CacheSize() int { return k.batch * k.c.hidden }

func (k *elmanKernel) ProjectionSize() int { return k.c.hidden }

// Project: x W + b.
func (k *elmanKernel) Project(xs, proj []float64) {
	c := k.c
	graph.Gemm(false, false, len(xs)/c.in, c.hidden, c.in, 1, xs, c.in, c.params.Data(c.Name("W")), c.hidden, 0, proj, c.hidden)
	addRows(proj, c.params.Data(c.Name("b")))
}

func (k *elmanKernel) InitialState(state [][]float64) {
	fillRows(state[0], k.c.params.Data(k.c.Name("h0")))
}

func (k *elmanKernel) InitialStateBack(g [][]float64, grads *params.Params) {
	learnedStateBack(grads, k.c.Name("h0"), g[0])
}

// Forward: h = s(x W + b + h U).
func (k *elmanKernel) Forward(_, proj []float64, in, out [][]float64, cache []float64) {
	c := k.c
	h := out[0]
	copy(h, proj)
	graph.Gemm(false, false, k.batch, c.hidden, c.hidden, 1, in[0], c.hidden, c.params.Data(c.Name("U")), c.hidden, 1, h, c.hidden)
	switch c.act {
	case activation.Tanh:
		for i, z := range h {
			y := math.Tanh(z)
			h[i], cache[i] = y, 1-y*y
		}
	case activation.SymSigmoid:
		for i, z := range h {
			y := math.Tanh(z * 0.5)
			h[i], cache[i] = y, (1-y*y)*0.5
		}
	default:
		for i := range cache {
			cache[i] = 1
		}
	}
}

// Backward: dz = gout s'(z); W, U, b get x^T dz, h^T dz and the column
// sums of dz; the input state gets dz U^T.
func (k *elmanKernel) Backward(x []float64, in [][]float64, cache []float64, gout, gin [][]float64, grads *params.Params) {
	c, p := k.c, k.c.params
	dz := gout[0]
	for i, d := range cache {
		dz[i] *= d
	}
	graph.Gemm(true, false, c.in, c.hidden, k.batch, 1, x, c.in, dz, c.hidden, 1, grads.Data(c.Name("W")), c.hidden)
	graph.Gemm(true, false, c.hidden, c.hidden, k.batch, 1, in[0], c.hidden, dz, c.hidden, 1, grads.Data(c.Name("U")), c.hidden)
	addColSums(grads.Data(c.Name("b")), dz)
	graph.Gemm(false, true, k.batch, c.hidden, c.hidden, 1, dz, c.hidden, p.Data(c.Name("U")), c.hidden, 0, gin[0], c.hidden)
}
