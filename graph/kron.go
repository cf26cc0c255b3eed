package graph

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// Kron is the row-wise Kronecker product of x: [batch, d] and h: [batch,
// n], [batch, d*n] with
//
//	Kron(x, h)[r, i*n + j] = x[r, i] h[r, j],
//
// the input of a second-order (bilinear) recurrence: Kron(x, h) W with W
// [d*n, m] is sum_{i,j} x_i h_j W[i, j, :] for every row. It costs
// batch*d*n multiplications, with no constant spreading matrix. A shape
// that does not fit is an error naming both shapes.
func (b *Builder) Kron(x, h *G.Node) *G.Node {
	if b.nilArg("Kron", x, h) {
		return nil
	}
	xs, hs := x.Shape(), h.Shape()
	if xs.Dims() != 2 || hs.Dims() != 2 || xs[0] != hs[0] {
		b.Fail(shapeError("Kron", "want [batch, d] and [batch, n], got %v and %v", xs, hs), "graph")
		return nil
	}
	return b.applyX(&kronOp{rows: xs[0], d: xs[1], n: hs[1]}, x, h)
}

// kronOp is Kron for one pair of shapes.
type kronOp struct{ rows, d, n int }

func (o *kronOp) name() string                    { return "rtn.Kron" }
func (o *kronOp) key() string                     { return fmt.Sprintf("%dx%d", o.d, o.n) }
func (o *kronOp) out() []int                      { return []int{o.rows, o.d * o.n} }
func (o *kronOp) diff(int) bool                   { return true }
func (o *kronOp) needs(k int) ([]int, bool)       { return []int{1 - k}, false }
func (o *kronOp) rowArgs() []bool                 { return []bool{true, true} }
func (o *kronOp) impl64() ximpl[float64]          { return kronImpl[float64]{o} }
func (o *kronOp) impl32() ximpl[float32]          { return kronImpl[float32]{o} }
func (o kronImpl[F]) row(a xarg[F], r, w int) []F { return a.d[r*a.ld : r*a.ld+w] }

type kronImpl[F Float] struct{ *kronOp }

func (o kronImpl[F]) forward(rows int, a []xarg[F], y []F, ldy int) {
	d, n := o.d, o.n
	for r := range rows {
		x, h, yr := o.row(a[0], r, d), o.row(a[1], r, n), y[r*ldy:r*ldy+d*n]
		for i, xv := range x {
			scaleInto(yr[i*n:(i+1)*n], h, xv, false)
		}
	}
}

func (o kronImpl[F]) vjp(k int, a []xarg[F], _ []F, _ int, gy, d []F, acc bool) {
	dd, n := o.d, o.n
	for r := range o.rows {
		g := gy[r*dd*n : (r+1)*dd*n]
		if k == 0 {
			h, dr := o.row(a[1], r, n), d[r*dd:(r+1)*dd]
			for i := range dr {
				set(&dr[i], dot(g[i*n:(i+1)*n], h), acc)
			}
			continue
		}
		x, dr := o.row(a[0], r, dd), d[r*n:(r+1)*n]
		for i, xv := range x {
			scaleInto(dr, g[i*n:], xv, acc || i > 0)
		}
	}
}
