package rnn

import (
	"math"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

var _ graph.FusedCell = (*LSTM)(nil)

// StepKernel implements graph.FusedCell: Step and its vector-Jacobian
// product in plain Go.
func (c *LSTM) StepKernel(batch int) graph.StepKernel {
	return &lstmKernel{c: c, batch: batch, dz: make([]float64, batch*4*c.hidden)}
}

// lstmKernel caches the activated gates [batch, 4H] (i, f, g, o blocks of
// each row) of each step; Backward recomputes c_t and tanh(c_t) from them
// and c_{t-1}, by the same expressions and so to the same bits.
type lstmKernel struct {
	c     *LSTM
	batch int
	dz    []float64 // [batch, 4H], the pre-activation gradient
}

func (k *lstmKernel) Params() []string {
	return []string{k.c.Name("W"), k.c.Name("U"), k.c.Name("b"), k.c.Name("h0"), k.c.Name("c0")}
}

func (k *lstmKernel) CacheSize() int { return k.batch * 4 * k.c.hidden }

func (k *lstmKernel) ProjectionSize() int { return 4 * k.c.hidden }

// Project: x W + b.
func (k *lstmKernel) Project(xs, proj []float64) {
	c, H := k.c, k.c.hidden
	graph.Gemm(false, false, len(xs)/c.in, 4*H, c.in, 1, xs, c.in, c.params.Data(c.Name("W")), 4*H, 0, proj, 4*H)
	addRows(proj, c.params.Data(c.Name("b")))
}

func (k *lstmKernel) InitialState(state [][]float64) {
	fillRows(state[0], k.c.params.Data(k.c.Name("h0")))
	fillRows(state[1], k.c.params.Data(k.c.Name("c0")))
}

func (k *lstmKernel) InitialStateBack(g [][]float64, grads *params.Params) {
	learnedStateBack(grads, k.c.Name("h0"), g[0])
	learnedStateBack(grads, k.c.Name("c0"), g[1])
}

func (k *lstmKernel) Forward(_, proj []float64, in, out [][]float64, cache []float64) {
	c, H := k.c, k.c.hidden
	gates := cache
	copy(gates, proj)
	graph.Gemm(false, false, k.batch, 4*H, H, 1, in[0], H, c.params.Data(c.Name("U")), 4*H, 1, gates, 4*H)
	for r := range k.batch {
		row := gates[r*4*H : (r+1)*4*H]
		cPrev, cNext, hNext := in[1][r*H:(r+1)*H], out[1][r*H:(r+1)*H], out[0][r*H:(r+1)*H]
		for j := range H {
			i, f := sigmoid(row[j]), sigmoid(row[H+j])
			g, o := math.Tanh(row[2*H+j]), sigmoid(row[3*H+j])
			row[j], row[H+j], row[2*H+j], row[3*H+j] = i, f, g, o
			cn := f*cPrev[j] + i*g
			t := math.Tanh(cn)
			cNext[j], hNext[j] = cn, o*t
		}
	}
}

func (k *lstmKernel) Backward(x []float64, in [][]float64, cache []float64, gout, gin [][]float64, grads *params.Params) {
	c, p, H := k.c, k.c.params, k.c.hidden
	gates := cache
	for r := range k.batch {
		row, dz := gates[r*4*H:(r+1)*4*H], k.dz[r*4*H:(r+1)*4*H]
		gh, gc := gout[0][r*H:(r+1)*H], gout[1][r*H:(r+1)*H]
		cPrev, gcPrev := in[1][r*H:(r+1)*H], gin[1][r*H:(r+1)*H]
		for j := range H {
			i, f, g, o := row[j], row[H+j], row[2*H+j], row[3*H+j]
			t := math.Tanh(f*cPrev[j] + i*g)
			dc := gc[j] + gh[j]*o*(1-t*t)
			gcPrev[j] = dc * f
			dz[j] = dc * g * i * (1 - i)
			dz[H+j] = dc * cPrev[j] * f * (1 - f)
			dz[2*H+j] = dc * i * (1 - g*g)
			dz[3*H+j] = gh[j] * t * o * (1 - o)
		}
	}
	graph.Gemm(true, false, c.in, 4*H, k.batch, 1, x, c.in, k.dz, 4*H, 1, grads.Data(c.Name("W")), 4*H)
	graph.Gemm(true, false, H, 4*H, k.batch, 1, in[0], H, k.dz, 4*H, 1, grads.Data(c.Name("U")), 4*H)
	addColSums(grads.Data(c.Name("b")), k.dz)
	graph.Gemm(false, true, k.batch, H, 4*H, 1, k.dz, 4*H, p.Data(c.Name("U")), 4*H, 0, gin[0], H)
}
