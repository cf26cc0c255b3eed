package graph

import (
	"math"

	"github.com/rtnlab/rtn/internal/fastmath"
	"github.com/rtnlab/rtn/internal/vec"
)

// The tape's ops on [rows, cols] row-major values with row strides: one
// switch per op and call, plain loops over rows inside.

// set writes v into *d, or adds it.
func set[F Float](d *F, v F, acc bool) {
	if acc {
		*d += v
	} else {
		*d = v
	}
}

func dot[F Float](a, b []F) F {
	var s F
	for j, x := range a {
		s += x * b[j]
	}
	return s
}

// lseAt is the max-shifted log-sum-exp of the n entries of a at base,
// base+stride, ... (the maximum itself when it is infinite).
func lseAt[F Float](a []F, base, n, stride int) F {
	m := F(math.Inf(-1))
	for k := range n {
		m = max(m, a[base+k*stride])
	}
	if math.IsInf(float64(m), 0) {
		return m
	}
	var s F
	for k := range n {
		s += F(math.Exp(float64(a[base+k*stride] - m)))
	}
	return m + F(math.Log(float64(s)))
}

// forwardOp computes node id over rows rows (its own, or a block's in
// Project) from the values v of phase ph.
func (pr *tapeProgram[F]) forwardOp(id, rows int, v [][]F, ph int) {
	n := pr.nodes[id]
	y, ldy, cols := v[id], n.loc[ph].ld, n.cols
	an := pr.nodes[n.in[0]]
	a, lda := v[n.in[0]], an.loc[ph].ld
	var b []F
	var ldb int
	if len(n.in) > 1 {
		b, ldb = v[n.in[1]], pr.nodes[n.in[1]].loc[ph].ld
	}
	switch n.op {
	case opMul:
		switch n.variant {
		case mulMM:
			if n.pw != nil && ph == phFwd && lda == an.cols && ldb == cols && ldy == cols {
				n.pw.Forward(b, an.cols, cols, rows, a, 0, y)
				return
			}
			GemmOf(false, false, rows, cols, an.cols, 1, a, lda, b, ldb, 0, y, ldy)
		case mulMV:
			for i := range an.rows {
				y[i] = dot(a[i*lda:i*lda+an.cols], b)
			}
		case mulVV:
			y[0] = dot(a[:an.cols], b)
		case mulSA:
			unaryRows(opScale, a[0], y, ldy, b, ldb, rows, cols)
		case mulAS:
			unaryRows(opScale, b[0], y, ldy, a, lda, rows, cols)
		}
	case opAdd, opSub, opHadamard, opDiv:
		for r := range rows {
			binInto(n.op, y[r*ldy:r*ldy+cols], a[r*lda:], b[r*ldb:])
		}
	case opAddRow, opMulRow:
		op := opAdd
		if n.op == opMulRow {
			op = opHadamard
		}
		for r := range rows {
			binInto(op, y[r*ldy:r*ldy+cols], a[r*lda:], b)
		}
	case opMulCol:
		for r := range rows {
			scaleInto(y[r*ldy:r*ldy+cols], a[r*lda:], b[r], false)
		}
	case opScale, opShift, opNeg, opTanh, opSigmoid, opExp, opLog, opSquare, opAbs, opRectify, opLog1pExp:
		unaryRows(n.op, F(n.f), y, ldy, a, lda, rows, cols)
	case opExt:
		n.x.forward(rows, pr.xargs(n, v, ph), y, ldy)
	case opSum, opMean:
		pr.reduce(n, an, y, a, lda)
	case opReshape:
		copyRows(y, an.cols, a, lda, an.rows, an.cols)
	case opTranspose:
		for r := range an.rows {
			for j, x := range a[r*lda : r*lda+an.cols] {
				y[j*ldy+r] = x
			}
		}
	case opConcat:
		off := 0
		for _, k := range n.in {
			ak := pr.nodes[k]
			if n.variant == alongCols {
				copyRows(y[off:], ldy, v[k], ak.loc[ph].ld, rows, ak.cols)
				off += ak.cols
			} else {
				copyRows(y[off*ldy:], ldy, v[k], ak.loc[ph].ld, ak.rows, cols)
				off += ak.rows
			}
		}
	case opLogSumExp:
		if n.variant == alongCols {
			for r := range an.rows {
				y[r] = lseAt(a, r*lda, an.cols, 1)
			}
		} else {
			for j := range an.cols {
				y[j] = lseAt(a, j, an.rows, lda)
			}
		}
	case opLogSoftmax:
		if n.variant == alongCols {
			for r := range rows {
				l := lseAt(a, r*lda, cols, 1)
				for j, x := range a[r*lda : r*lda+cols] {
					y[r*ldy+j] = x - l
				}
			}
		} else {
			for j := range cols {
				l := lseAt(a, j, rows, lda)
				for r := range rows {
					y[r*ldy+j] = a[r*lda+j] - l
				}
			}
		}
	}
}

// xargs binds the arguments of an Ext node to their values in phase ph.
func (pr *tapeProgram[F]) xargs(n *tnode[F], v [][]F, ph int) []xarg[F] {
	for i, a := range n.in {
		n.xargs[i] = xarg[F]{d: v[a], ld: pr.nodes[a].loc[ph].ld}
	}
	return n.xargs
}

// reduce is Sum or Mean of a (node an) into y.
func (pr *tapeProgram[F]) reduce(n, an *tnode[F], y, a []F, lda int) {
	count := F(an.size())
	switch n.variant {
	case alongAll:
		var s F
		for r := range an.rows {
			for _, x := range a[r*lda : r*lda+an.cols] {
				s += x
			}
		}
		y[0] = s
	case alongRows:
		count = F(an.rows)
		clear(y[:an.cols])
		for r := range an.rows {
			for j, x := range a[r*lda : r*lda+an.cols] {
				y[j] += x
			}
		}
	default:
		count = F(an.cols)
		for r := range an.rows {
			var s F
			for _, x := range a[r*lda : r*lda+an.cols] {
				s += x
			}
			y[r] = s
		}
	}
	if n.op == opMean {
		for j := range y[:n.size()] {
			y[j] /= count
		}
	}
}

// unaryRows applies an elementwise op (with constant f) to a into y.
func unaryRows[F Float](op opKind, f F, y []F, ldy int, a []F, lda, rows, cols int) {
	for r := range rows {
		yr, ar := y[r*ldy:r*ldy+cols], a[r*lda:r*lda+cols]
		switch op {
		case opScale:
			scaleInto(yr, ar, f, false)
		case opShift:
			for j, x := range ar {
				yr[j] = x + f
			}
		case opNeg:
			for j, x := range ar {
				yr[j] = -x
			}
		case opTanh:
			fastmath.Tanh(yr, ar)
		case opSigmoid:
			fastmath.Sigmoid(yr, ar) // 0 or 1 at the extremes, never NaN
		case opExp:
			for j, x := range ar {
				yr[j] = F(math.Exp(float64(x)))
			}
		case opLog:
			for j, x := range ar {
				yr[j] = F(math.Log(float64(x)))
			}
		case opSquare:
			for j, x := range ar {
				yr[j] = x * x
			}
		case opAbs:
			for j, x := range ar {
				yr[j] = F(math.Abs(float64(x)))
			}
		case opRectify:
			for j, x := range ar {
				yr[j] = max(x, 0)
			}
		case opLog1pExp:
			for j, x := range ar {
				yr[j] = F(log1pExp(float64(x)))
			}
		}
	}
}

// vjp adds (acc) or writes the gradient that node id passes to its
// argument k, from the values v and gradients g of the backward phase.
// Gradients are contiguous; values have their backward row strides.
func (pr *tapeProgram[F]) vjp(id, k int, acc bool, v, g [][]F) {
	n := pr.nodes[id]
	gy, d := g[id], g[n.in[k]]
	rows, cols := n.rows, n.cols
	a0 := pr.nodes[n.in[0]]
	a, lda := v[n.in[0]], a0.loc[phBwd].ld
	var b []F
	var ldb int
	if len(n.in) > 1 {
		b, ldb = v[n.in[1]], pr.nodes[n.in[1]].loc[phBwd].ld
	}
	beta := F(0)
	if acc {
		beta = 1
	}
	switch n.op {
	case opExt:
		n.x.vjp(k, pr.xargs(n, v, phBwd), v[id], n.loc[phBwd].ld, gy, d, acc)
	case opMul:
		switch n.variant {
		case mulMM:
			if k == 0 && n.pw != nil && ldb == cols {
				n.pw.Backward(b, a0.cols, cols, rows, gy, beta, d)
			} else if k == 0 {
				GemmOf(false, true, rows, a0.cols, cols, 1, gy, cols, b, ldb, beta, d, a0.cols)
			} else {
				GemmOf(true, false, a0.cols, cols, rows, 1, a, lda, gy, cols, beta, d, cols)
			}
		case mulMV:
			kk := a0.cols
			if k == 0 {
				for i := range a0.rows {
					for j := range kk {
						set(&d[i*kk+j], gy[i]*b[j], acc)
					}
				}
				return
			}
			if !acc {
				clear(d[:kk])
			}
			for i := range a0.rows {
				for j, x := range a[i*lda : i*lda+kk] {
					d[j] += gy[i] * x
				}
			}
		case mulVV:
			o := b
			if k == 1 {
				o = a
			}
			for j := range d {
				set(&d[j], gy[0]*o[j], acc)
			}
		case mulSA, mulAS:
			t, ldt, s := b, ldb, a // the tensor and the scalar
			if n.variant == mulAS {
				t, ldt, s = a, lda, b
			}
			if (k == 0) == (n.variant == mulSA) { // the scalar's gradient: sum(g * t)
				var sum F
				for r := range rows {
					sum += dot(gy[r*cols:(r+1)*cols], t[r*ldt:r*ldt+cols])
				}
				set(&d[0], sum, acc)
				return
			}
			for i, x := range gy[:rows*cols] {
				set(&d[i], s[0]*x, acc)
			}
		}
	case opAdd, opReshape, opShift:
		put(d, gy, acc)
	case opSub, opNeg:
		if k == 0 && n.op == opSub {
			put(d, gy, acc)
			return
		}
		for i, x := range gy[:len(d)] {
			set(&d[i], -x, acc)
		}
	case opHadamard, opMulRow, opMulCol, opDiv:
		pr.productVJP(n, k, acc, gy, d, a, lda, b, ldb)
	case opAddRow:
		if k == 0 {
			put(d, gy, acc)
			return
		}
		if !acc {
			clear(d[:cols])
		}
		for r := range rows {
			addInto(d[:cols], gy[r*cols:])
		}
	case opScale, opTanh, opSigmoid, opExp, opLog, opSquare, opAbs, opRectify, opLog1pExp:
		y, ldy := v[id], n.loc[phBwd].ld
		unaryVJP(n.op, F(n.f), d, gy, a, lda, y, ldy, rows, cols, acc)
	case opSum, opMean:
		scale := F(1)
		if n.op == opMean {
			scale = F(n.size()) / F(a0.size())
		}
		for r := range a0.rows {
			for j := range a0.cols {
				var x F
				switch n.variant {
				case alongAll:
					x = gy[0]
				case alongRows:
					x = gy[j]
				default:
					x = gy[r]
				}
				if n.op == opMean {
					x *= scale
				}
				set(&d[r*a0.cols+j], x, acc)
			}
		}
	case opTranspose:
		for r := range a0.rows {
			for j := range a0.cols {
				set(&d[r*a0.cols+j], gy[j*cols+r], acc)
			}
		}
	case opCols:
		from := n.ints[0]
		for r := range rows {
			dr := d[r*a0.cols+from : r*a0.cols+from+cols]
			for j, x := range gy[r*cols : (r+1)*cols] {
				set(&dr[j], x, acc)
			}
		}
	case opConcat:
		off := 0
		for _, i := range n.in[:k] {
			if n.variant == alongCols {
				off += pr.nodes[i].cols
			} else {
				off += pr.nodes[i].rows
			}
		}
		ak := pr.nodes[n.in[k]]
		for r := range ak.rows {
			src := gy[r*cols+off : r*cols+off+ak.cols]
			if n.variant == alongRows {
				src = gy[(off+r)*cols : (off+r+1)*cols]
			}
			for j, x := range src {
				set(&d[r*ak.cols+j], x, acc)
			}
		}
	case opLogSumExp:
		y := v[id]
		for r := range a0.rows {
			for j := range a0.cols {
				i := r // the reduced entry
				if n.variant == alongRows {
					i = j
				}
				var x F
				if !math.IsInf(float64(y[i]), -1) {
					x = gy[i] * F(math.Exp(float64(a[r*lda+j]-y[i])))
				}
				set(&d[r*a0.cols+j], x, acc)
			}
		}
	case opLogSoftmax:
		y, ldy := v[id], n.loc[phBwd].ld
		if n.variant == alongCols {
			for r := range rows {
				var s F
				for _, x := range gy[r*cols : (r+1)*cols] {
					s += x
				}
				for j := range cols {
					set(&d[r*cols+j], gy[r*cols+j]-F(math.Exp(float64(y[r*ldy+j])))*s, acc)
				}
			}
			return
		}
		for j := range cols {
			var s F
			for r := range rows {
				s += gy[r*cols+j]
			}
			for r := range rows {
				set(&d[r*cols+j], gy[r*cols+j]-F(math.Exp(float64(y[r*ldy+j])))*s, acc)
			}
		}
	}
}

// productVJP is the vector-Jacobian product of Hadamard, MulRow, MulCol
// and Div (a of the node's shape, b of its shape, [cols] or [rows]).
func (pr *tapeProgram[F]) productVJP(n *tnode[F], k int, acc bool, gy, d, a []F, lda int, b []F, ldb int) {
	rows, cols := n.rows, n.cols
	reduce := k == 1 && (n.op == opMulRow || n.op == opMulCol)
	if reduce && !acc {
		clear(d[:pr.nodes[n.in[1]].cols])
	}
	for r := range rows {
		gr := gy[r*cols : (r+1)*cols]
		switch {
		case n.op == opHadamard:
			o := b[r*ldb:]
			if k == 1 {
				o = a[r*lda:]
			}
			mulInto(d[r*cols:(r+1)*cols], gr, o, acc)
		case n.op == opDiv:
			dr, br := d[r*cols:(r+1)*cols], b[r*ldb:r*ldb+cols]
			if k == 0 {
				for j, x := range gr {
					set(&dr[j], x/br[j], acc)
				}
				continue
			}
			ar := a[r*lda : r*lda+cols]
			for j, x := range gr {
				set(&dr[j], -x*ar[j]/(br[j]*br[j]), acc)
			}
		case reduce: // the gradient of the row (MulRow) or column (MulCol) vector
			ar := a[r*lda : r*lda+cols]
			if n.op == opMulRow {
				mulInto(d[:cols], gr, ar, true)
			} else {
				d[r] += dot(gr, ar)
			}
		default: // MulRow, MulCol: the matrix's gradient
			dr := d[r*cols : (r+1)*cols]
			if n.op == opMulRow {
				mulInto(dr, gr, b, acc)
			} else {
				scaleInto(dr, gr, b[r], acc)
			}
		}
	}
}

// unaryVJP is the vector-Jacobian product of an elementwise op with input
// a and output y (only the one the op needs is read).
func unaryVJP[F Float](op opKind, f F, d, gy, a []F, lda int, y []F, ldy, rows, cols int, acc bool) {
	for r := range rows {
		gr, dr := gy[r*cols:(r+1)*cols], d[r*cols:(r+1)*cols]
		switch op {
		case opScale:
			scaleInto(dr, gr, f, acc)
		case opTanh:
			vec.TanhGrad(dr, gr, y[r*ldy:], acc)
		case opSigmoid:
			vec.SigmoidGrad(dr, gr, y[r*ldy:], acc)
		case opExp:
			mulInto(dr, gr, y[r*ldy:], acc)
		case opLog:
			ar := a[r*lda : r*lda+cols]
			for j, x := range gr {
				set(&dr[j], x/ar[j], acc)
			}
		case opSquare:
			ar := a[r*lda : r*lda+cols]
			for j, x := range gr {
				set(&dr[j], 2*ar[j]*x, acc)
			}
		case opAbs:
			ar := a[r*lda : r*lda+cols]
			for j, x := range gr {
				s := F(0)
				if ar[j] > 0 {
					s = 1
				} else if ar[j] < 0 {
					s = -1
				}
				set(&dr[j], x*s, acc)
			}
		case opRectify:
			ar := a[r*lda : r*lda+cols]
			for j, x := range gr {
				if ar[j] <= 0 {
					x = 0
				}
				set(&dr[j], x, acc)
			}
		case opLog1pExp:
			ar := a[r*lda : r*lda+cols]
			for j, x := range gr {
				set(&dr[j], x*F(sigmoid(float64(ar[j]))), acc)
			}
		}
	}
}
