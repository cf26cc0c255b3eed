package graph

// Elementwise loops of the tape's ops over one row, unrolled by four (Go
// does not vectorise; unrolling, with one bounds check per slice and four
// values, halves the cost of these memory-light loops), with the choice
// between writing and adding (acc) made once per row rather than per
// value.

// binInto writes a op b into d elementwise (op: opAdd, opSub, opHadamard
// or opDiv; a and b at least as long as d).
func binInto[F Float](op opKind, d, a, b []F) {
	n := len(d)
	a, b = a[:n], b[:n]
	j := 0
	switch op {
	case opAdd:
		for ; j+4 <= n; j += 4 {
			dd, aa, bb := d[j:j+4:j+4], a[j:j+4:j+4], b[j:j+4:j+4]
			dd[0], dd[1], dd[2], dd[3] = aa[0]+bb[0], aa[1]+bb[1], aa[2]+bb[2], aa[3]+bb[3]
		}
		for ; j < n; j++ {
			d[j] = a[j] + b[j]
		}
	case opSub:
		for ; j+4 <= n; j += 4 {
			dd, aa, bb := d[j:j+4:j+4], a[j:j+4:j+4], b[j:j+4:j+4]
			dd[0], dd[1], dd[2], dd[3] = aa[0]-bb[0], aa[1]-bb[1], aa[2]-bb[2], aa[3]-bb[3]
		}
		for ; j < n; j++ {
			d[j] = a[j] - b[j]
		}
	case opHadamard:
		mulInto(d, a, b, false)
	default:
		for ; j < n; j++ {
			d[j] = a[j] / b[j]
		}
	}
}

// mulInto writes a*b into d elementwise, or adds it when acc is set.
func mulInto[F Float](d, a, b []F, acc bool) {
	n := len(d)
	a, b = a[:n], b[:n]
	j := 0
	if acc {
		for ; j+4 <= n; j += 4 {
			dd, aa, bb := d[j:j+4:j+4], a[j:j+4:j+4], b[j:j+4:j+4]
			dd[0] += aa[0] * bb[0]
			dd[1] += aa[1] * bb[1]
			dd[2] += aa[2] * bb[2]
			dd[3] += aa[3] * bb[3]
		}
		for ; j < n; j++ {
			d[j] += a[j] * b[j]
		}
		return
	}
	for ; j+4 <= n; j += 4 {
		dd, aa, bb := d[j:j+4:j+4], a[j:j+4:j+4], b[j:j+4:j+4]
		dd[0], dd[1], dd[2], dd[3] = aa[0]*bb[0], aa[1]*bb[1], aa[2]*bb[2], aa[3]*bb[3]
	}
	for ; j < n; j++ {
		d[j] = a[j] * b[j]
	}
}

// scaleInto writes a*s into d elementwise, or adds it when acc is set.
func scaleInto[F Float](d, a []F, s F, acc bool) {
	n := len(d)
	a = a[:n]
	j := 0
	if acc {
		for ; j+4 <= n; j += 4 {
			dd, aa := d[j:j+4:j+4], a[j:j+4:j+4]
			dd[0] += aa[0] * s
			dd[1] += aa[1] * s
			dd[2] += aa[2] * s
			dd[3] += aa[3] * s
		}
		for ; j < n; j++ {
			d[j] += a[j] * s
		}
		return
	}
	for ; j+4 <= n; j += 4 {
		dd, aa := d[j:j+4:j+4], a[j:j+4:j+4]
		dd[0], dd[1], dd[2], dd[3] = aa[0]*s, aa[1]*s, aa[2]*s, aa[3]*s
	}
	for ; j < n; j++ {
		d[j] = a[j] * s
	}
}

// addInto adds a into d elementwise.
func addInto[F Float](d, a []F) {
	n := len(d)
	a = a[:n]
	j := 0
	for ; j+4 <= n; j += 4 {
		dd, aa := d[j:j+4:j+4], a[j:j+4:j+4]
		dd[0] += aa[0]
		dd[1] += aa[1]
		dd[2] += aa[2]
		dd[3] += aa[3]
	}
	for ; j < n; j++ {
		d[j] += a[j]
	}
}

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
