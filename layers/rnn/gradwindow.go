package rnn

import "github.com/rtnlab/rtn/graph"

// gradRows is about the number of rows (steps times batch) a gradWindow
// gathers before it adds its products: enough for the products to run near
// the core's peak, and to be cut across cores.
const gradRows = 512

// gradWindow gathers, over the steps of a backward pass, what the
// gradients of a cell's weights W (x W + b) and U (h U) are products of:
// each step's input x and input state h, and the gradients gx of x W + b
// and gh of h U (the same slice when they are equal). Every steps-th step
// it adds xᵀ gx to W's gradient, the column sums of gx to b's and hᵀ gh to
// U's, as one product over the window's rows, instead of one small product
// per step; the last, partial window is added by flush, which the kernel
// calls in InitialStateBack. The backward pass calls the kernel for the
// steps of a run in one order, from the last to the first, whatever its
// checkpoints, so the windows and the bits do not depend on them.
type gradWindow[F graph.Float] struct {
	steps, batch        int
	in, hidden, width   int
	x, h, gx, gh        []F // [steps*batch, in | hidden | width | width]
	shared              bool
	n                   int // steps gathered
	wName, uName, bName string
}

// newGradWindow makes the window of a cell with in inputs, hidden units and
// width = the columns of W and U; shared means gx and gh are one slice.
// Its buffers are made by the first backward step, so a kernel that only
// runs forward (a predictor, an evaluation) holds none.
func newGradWindow[F graph.Float](c interface{ Name(string) string }, batch, in, hidden, width int, shared bool) gradWindow[F] {
	return gradWindow[F]{steps: max(1, (gradRows+batch-1)/batch), batch: batch, in: in, hidden: hidden, width: width,
		shared: shared, wName: c.Name("W"), uName: c.Name("U"), bName: c.Name("b")}
}

// next copies a step's x and h into the window and returns the rows that
// the step's gx and gh go to.
func (w *gradWindow[F]) next(x, h []F) (gx, gh []F) {
	if w.x == nil {
		rows := w.steps * w.batch
		w.x, w.h, w.gx = make([]F, rows*w.in), make([]F, rows*w.hidden), make([]F, rows*w.width)
		w.gh = w.gx
		if !w.shared {
			w.gh = make([]F, rows*w.width)
		}
	}
	b := w.n * w.batch
	copy(w.x[b*w.in:(b+w.batch)*w.in], x)
	copy(w.h[b*w.hidden:(b+w.batch)*w.hidden], h)
	w.n++
	return w.gx[b*w.width : (b+w.batch)*w.width], w.gh[b*w.width : (b+w.batch)*w.width]
}

// full reports whether the window holds steps steps.
func (w *gradWindow[F]) full() bool { return w.n == w.steps }

// flush adds the products of the steps gathered into grads and empties the
// window.
func (w *gradWindow[F]) flush(grads graph.Grads[F]) {
	if w.n == 0 {
		return
	}
	rows := w.n * w.batch
	gx, gh := w.gx[:rows*w.width], w.gh[:rows*w.width]
	graph.GemmOf(true, false, w.in, w.width, rows, 1, w.x, w.in, gx, w.width, 1, grads.Data(w.wName), w.width)
	graph.GemmOf(true, false, w.hidden, w.width, rows, 1, w.h, w.hidden, gh, w.width, 1, grads.Data(w.uName), w.width)
	addColSums(grads.Data(w.bName), gx)
	w.n = 0
}

// reset empties the window without adding anything (a new run).
func (w *gradWindow[F]) reset() { w.n = 0 }
