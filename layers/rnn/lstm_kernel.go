package rnn

import (
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/internal/fastmath"
	"github.com/rtnlab/rtn/internal/par"
)

var _ graph.FusedCell32 = (*LSTM)(nil)

// StepKernel implements graph.FusedCell: Step and its vector-Jacobian
// product in plain Go.
func (c *LSTM) StepKernel(batch int) graph.StepKernel {
	return &lstmKernel[float64]{c: c, batch: batch, win: newGradWindow[float64](c, batch, c.in, c.hidden, 4*c.hidden, true), t: make([]float64, batch*c.hidden)}
}

// StepKernel32 implements graph.FusedCell32: StepKernel in float32.
func (c *LSTM) StepKernel32(batch int, w graph.Weights[float32]) graph.StepKernelOf[float32] {
	return &lstmKernel[float32]{c: c, batch: batch, w: w, win: newGradWindow[float32](c, batch, c.in, c.hidden, 4*c.hidden, true), t: make([]float32, batch*c.hidden)}
}

// lstmKernel caches the activated gates [batch, 4H] (i, f, g, o blocks of
// each row) of each step; Backward recomputes c_t and tanh(c_t) from them
// and c_{t-1}, by the same expressions and so to the same bits.
type lstmKernel[F graph.Float] struct {
	c     *LSTM
	batch int
	w     graph.Weights[F]
	win   gradWindow[F] // the steps' pre-activation gradients, x and h
	t     []F           // [batch, H]: tanh(c_t) in Backward
	rows  lstmRows[F]
	u     graph.PackedWeightOf[F]
}

func (k *lstmKernel[F]) Params() []string {
	return []string{k.c.Name("W"), k.c.Name("U"), k.c.Name("b"), k.c.Name("h0"), k.c.Name("c0")}
}

func (k *lstmKernel[F]) CacheSize() int { return k.batch * 4 * k.c.hidden }

func (k *lstmKernel[F]) ProjectionSize() int { return 4 * k.c.hidden }

// Project: x W + b.
func (k *lstmKernel[F]) Project(xs, proj []F) {
	c, H := k.c, k.c.hidden
	graph.GemmOf(false, false, len(xs)/c.in, 4*H, c.in, 1, xs, c.in, k.w.Data(c.params, c.Name("W")), 4*H, 0, proj, 4*H)
	addRows(proj, k.w.Data(c.params, c.Name("b")))
}

func (k *lstmKernel[F]) InitialState(state [][]F) {
	k.u.Reset()
	k.win.reset()
	fillRows(state[0], k.w.Data(k.c.params, k.c.Name("h0")))
	fillRows(state[1], k.w.Data(k.c.params, k.c.Name("c0")))
}

func (k *lstmKernel[F]) InitialStateBack(g [][]F, grads graph.Grads[F]) {
	k.win.flush(grads)
	learnedStateBack(grads, k.c.Name("h0"), g[0])
	learnedStateBack(grads, k.c.Name("c0"), g[1])
}

func (k *lstmKernel[F]) Forward(_, proj []F, in, out [][]F, cache []F) {
	c, H := k.c, k.c.hidden
	gates := cache
	copy(gates, proj)
	k.u.Forward(k.w.Data(c.params, c.Name("U")), H, 4*H, k.batch, in[0], 1, gates)
	k.rows = lstmRows[F]{k: k, gates: gates, in: in, out: out}
	par.Rows(&k.rows, k.batch, 8*H)
}

func (k *lstmKernel[F]) Backward(x []F, in [][]F, cache []F, gout, gin [][]F, grads graph.Grads[F]) {
	c, H := k.c, k.c.hidden
	dzs, _ := k.win.next(x, in[0])
	k.rows = lstmRows[F]{k: k, back: true, gates: cache, dz: dzs, in: in, gout: gout, gin: gin}
	par.Rows(&k.rows, k.batch, 12*H)
	k.u.Backward(k.w.Data(c.params, c.Name("U")), H, 4*H, k.batch, dzs, 0, gin[0])
	if k.win.full() {
		k.win.flush(grads)
	}
}

// lstmRows is a step's elementwise work, forward or backward, on rows of
// the batch (par.Rows).
type lstmRows[F graph.Float] struct {
	k         *lstmKernel[F]
	back      bool
	gates, dz []F
	in, out   [][]F
	gout, gin [][]F
}

func (s *lstmRows[F]) Rows(lo, hi int) {
	if s.back {
		s.k.backwardRows(lo, hi, s.gates, s.dz, s.in, s.gout, s.gin)
	} else {
		s.k.forwardRows(lo, hi, s.gates, s.in, s.out)
	}
}

// forwardRows activates the gates of rows [lo, hi) and writes their c_t
// and h_t.
func (k *lstmKernel[F]) forwardRows(lo, hi int, gates []F, in, out [][]F) {
	H := k.c.hidden
	for r := lo; r < hi; r++ {
		row := gates[r*4*H : (r+1)*4*H]
		cPrev, cNext, hNext := in[1][r*H:(r+1)*H], out[1][r*H:(r+1)*H], out[0][r*H:(r+1)*H]
		fastmath.Sigmoid(row[:2*H], row[:2*H]) // i, f
		fastmath.Tanh(row[2*H:3*H], row[2*H:3*H])
		fastmath.Sigmoid(row[3*H:], row[3*H:]) // o
		for j := range H {
			cNext[j] = row[H+j]*cPrev[j] + row[j]*row[2*H+j]
		}
		fastmath.Tanh(hNext, cNext)
		for j, o := range row[3*H:] {
			hNext[j] *= o
		}
	}
}

// backwardRows writes the pre-activation gradients dz of rows [lo, hi)
// and the gradient reaching their c_{t-1}.
func (k *lstmKernel[F]) backwardRows(lo, hi int, gates, dzs []F, in, gout, gin [][]F) {
	H := k.c.hidden
	for r := lo; r < hi; r++ {
		row, dz := gates[r*4*H:(r+1)*4*H], dzs[r*4*H:(r+1)*4*H]
		gh, gc := gout[0][r*H:(r+1)*H], gout[1][r*H:(r+1)*H]
		cPrev, gcPrev := in[1][r*H:(r+1)*H], gin[1][r*H:(r+1)*H]
		tc := k.t[r*H : (r+1)*H]
		for j := range H { // c_t, as Forward computed it
			tc[j] = row[H+j]*cPrev[j] + row[j]*row[2*H+j]
		}
		fastmath.Tanh(tc, tc)
		for j := range H {
			i, f, g, o := row[j], row[H+j], row[2*H+j], row[3*H+j]
			t := tc[j]
			dc := gc[j] + gh[j]*o*(1-t*t)
			gcPrev[j] = dc * f
			dz[j] = dc * g * i * (1 - i)
			dz[H+j] = dc * cPrev[j] * f * (1 - f)
			dz[2*H+j] = dc * i * (1 - g*g)
			dz[3*H+j] = gh[j] * t * o * (1 - o)
		}
	}
}
