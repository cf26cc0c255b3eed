package vec

import "unsafe"

// The elementwise loops of the tape's ops.

// Float is the element type of the elementwise loops.
type Float interface{ ~float32 | ~float64 }

// width is how many values of F one vector holds: 8 float32s or 4
// float64s.
func width[F Float]() int {
	var z F
	return 32 / int(unsafe.Sizeof(z))
}

// split returns how many of n values the vector loop takes (a multiple
// of F's width, 0 where the assembly does not run).
func split[F Float](n int) int {
	if !available {
		return 0
	}
	return n &^ (width[F]() - 1)
}

// p64 and p32 are the address of s[0] as a float64 or float32 pointer,
// for the assembly.
func p64[F Float](s []F) *float64 { return (*float64)(unsafe.Pointer(unsafe.SliceData(s))) }
func p32[F Float](s []F) *float32 { return (*float32)(unsafe.Pointer(unsafe.SliceData(s))) }

func is32[F Float]() bool { return width[F]() == 8 }

// Add writes a + b into d (a and b at least as long as d).
func Add[F Float](d, a, b []F) {
	n := len(d)
	a, b = a[:n], b[:n]
	v := split[F](n)
	if v > 0 {
		if is32[F]() {
			add32(p32(d), p32(a), p32(b), v)
		} else {
			add64(p64(d), p64(a), p64(b), v)
		}
	}
	for j := v; j < n; j++ {
		d[j] = a[j] + b[j]
	}
}

// Sub writes a - b into d (a and b at least as long as d).
func Sub[F Float](d, a, b []F) {
	n := len(d)
	a, b = a[:n], b[:n]
	v := split[F](n)
	if v > 0 {
		if is32[F]() {
			sub32(p32(d), p32(a), p32(b), v)
		} else {
			sub64(p64(d), p64(a), p64(b), v)
		}
	}
	for j := v; j < n; j++ {
		d[j] = a[j] - b[j]
	}
}

// Mul writes a * b into d elementwise (a and b at least as long as d).
func Mul[F Float](d, a, b []F) {
	n := len(d)
	a, b = a[:n], b[:n]
	v := split[F](n)
	if v > 0 {
		if is32[F]() {
			mul32(p32(d), p32(a), p32(b), v)
		} else {
			mul64(p64(d), p64(a), p64(b), v)
		}
	}
	for j := v; j < n; j++ {
		d[j] = a[j] * b[j]
	}
}

// MulAdd adds a * b into d elementwise (the product rounded, then the
// sum).
func MulAdd[F Float](d, a, b []F) {
	n := len(d)
	a, b = a[:n], b[:n]
	v := split[F](n)
	if v > 0 {
		if is32[F]() {
			mulAdd32(p32(d), p32(a), p32(b), v)
		} else {
			mulAdd64(p64(d), p64(a), p64(b), v)
		}
	}
	for j := v; j < n; j++ {
		d[j] += a[j] * b[j]
	}
}

// AddTo adds a into d (a at least as long as d).
func AddTo[F Float](d, a []F) {
	n := len(d)
	a = a[:n]
	v := split[F](n)
	if v > 0 {
		if is32[F]() {
			addTo32(p32(d), p32(a), v)
		} else {
			addTo64(p64(d), p64(a), v)
		}
	}
	for j := v; j < n; j++ {
		d[j] += a[j]
	}
}

// Scale writes a * s into d (a at least as long as d).
func Scale[F Float](d, a []F, s F) {
	n := len(d)
	a = a[:n]
	v := split[F](n)
	if v > 0 {
		if is32[F]() {
			scale32(p32(d), p32(a), float32(s), v)
		} else {
			scale64(p64(d), p64(a), float64(s), v)
		}
	}
	for j := v; j < n; j++ {
		d[j] = a[j] * s
	}
}

// ScaleAdd adds a * s into d (the product rounded, then the sum).
func ScaleAdd[F Float](d, a []F, s F) {
	n := len(d)
	a = a[:n]
	v := split[F](n)
	if v > 0 {
		if is32[F]() {
			scaleAdd32(p32(d), p32(a), float32(s), v)
		} else {
			scaleAdd64(p64(d), p64(a), float64(s), v)
		}
	}
	for j := v; j < n; j++ {
		d[j] += a[j] * s
	}
}

// SigmoidGrad writes g y (1 - y) into d, computed as (g y) (1 - y), or adds
// it when acc is set: the gradient through a sigmoid whose values are y.
func SigmoidGrad[F Float](d, g, y []F, acc bool) {
	n := len(d)
	g, y = g[:n], y[:n]
	v := split[F](n)
	if v > 0 {
		switch {
		case is32[F]() && acc:
			sigmoidGradAdd32(p32(d), p32(g), p32(y), v)
		case is32[F]():
			sigmoidGrad32(p32(d), p32(g), p32(y), v)
		case acc:
			sigmoidGradAdd64(p64(d), p64(g), p64(y), v)
		default:
			sigmoidGrad64(p64(d), p64(g), p64(y), v)
		}
	}
	for j := v; j < n; j++ {
		t := g[j] * y[j] * (1 - y[j])
		if acc {
			t += d[j]
		}
		d[j] = t
	}
}

// TanhGrad writes g (1 - y y) into d, or adds it when acc is set: the
// gradient through a tanh whose values are y.
func TanhGrad[F Float](d, g, y []F, acc bool) {
	n := len(d)
	g, y = g[:n], y[:n]
	v := split[F](n)
	if v > 0 {
		switch {
		case is32[F]() && acc:
			tanhGradAdd32(p32(d), p32(g), p32(y), v)
		case is32[F]():
			tanhGrad32(p32(d), p32(g), p32(y), v)
		case acc:
			tanhGradAdd64(p64(d), p64(g), p64(y), v)
		default:
			tanhGrad64(p64(d), p64(g), p64(y), v)
		}
	}
	for j := v; j < n; j++ {
		t := g[j] * (1 - y[j]*y[j])
		if acc {
			t += d[j]
		}
		d[j] = t
	}
}
