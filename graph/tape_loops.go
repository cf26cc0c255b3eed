package graph

import "github.com/rtnlab/rtn/internal/vec"

// Elementwise loops of the tape's ops over one row, with the choice
// between writing and adding (acc) made once per row rather than per
// value, in package vec (AVX vectors where the assembly runs, with the
// plain loop's bits).

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
