package graph

import "github.com/rtnlab/rtn/internal/vec"

// Elementwise loops of the tape's ops over one row, with the choice
// between writing and adding (acc) made once per row rather than per
// value: sums, differences, products and scalings in package vec (AVX
// vectors where the assembly runs, with the plain loop's bits), the rest
// unrolled by four (Go does not vectorise; unrolling, with one bounds
// check per slice and four values, halves the cost of these memory-light
// loops).

// binInto writes a op b into d elementwise (op: opAdd, opSub, opHadamard
// or opDiv; a and b at least as long as d).
func binInto[F Float](op opKind, d, a, b []F) {
	switch op {
	case opAdd:
		vec.Add(d, a, b)
	case opSub:
		vec.Sub(d, a, b)
	case opHadamard:
		vec.Mul(d, a, b)
	default:
		a, b = a[:len(d)], b[:len(d)]
		for j := range d {
			d[j] = a[j] / b[j]
		}
	}
}

// mulInto writes a*b into d elementwise, or adds it when acc is set.
func mulInto[F Float](d, a, b []F, acc bool) {
	if acc {
		vec.MulAdd(d, a, b)
		return
	}
	vec.Mul(d, a, b)
}

// scaleInto writes a*s into d elementwise, or adds it when acc is set.
func scaleInto[F Float](d, a []F, s F, acc bool) {
	if acc {
		vec.ScaleAdd(d, a, s)
		return
	}
	vec.Scale(d, a, s)
}

// addInto adds a into d elementwise.
func addInto[F Float](d, a []F) { vec.AddTo(d, a) }

// tanhGradInto writes g (1 - y^2) into d elementwise (y = tanh of the
// input), or adds it when acc is set.
func tanhGradInto[F Float](d, g, y []F, acc bool) {
	n := len(d)
	g, y = g[:n], y[:n]
	j := 0
	if acc {
		for ; j < n; j++ {
			d[j] += g[j] * (1 - y[j]*y[j])
		}
		return
	}
	for ; j+4 <= n; j += 4 {
		dd, gg, yy := d[j:j+4:j+4], g[j:j+4:j+4], y[j:j+4:j+4]
		dd[0], dd[1] = gg[0]*(1-yy[0]*yy[0]), gg[1]*(1-yy[1]*yy[1])
		dd[2], dd[3] = gg[2]*(1-yy[2]*yy[2]), gg[3]*(1-yy[3]*yy[3])
	}
	for ; j < n; j++ {
		d[j] = g[j] * (1 - y[j]*y[j])
	}
}
