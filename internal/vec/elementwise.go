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

// run3 runs f32 or f64 (by F) over the first values of d, a and b that
// make whole vectors and returns how many it took (0 where the assembly
// does not run); run2 and runS are run3 for one operand and for an
// operand and a scalar.
func run3[F Float](f32 func(d, a, b *float32, n int), f64 func(d, a, b *float64, n int), d, a, b []F) int {
	v := split[F](len(d))
	switch {
	case v == 0:
	case is32[F]():
		f32(p32(d), p32(a), p32(b), v)
	default:
		f64(p64(d), p64(a), p64(b), v)
	}
	return v
}

func run2[F Float](f32 func(d, a *float32, n int), f64 func(d, a *float64, n int), d, a []F) int {
	v := split[F](len(d))
	switch {
	case v == 0:
	case is32[F]():
		f32(p32(d), p32(a), v)
	default:
		f64(p64(d), p64(a), v)
	}
	return v
}

func runS[F Float](f32 func(d, a *float32, s float32, n int), f64 func(d, a *float64, s float64, n int), d, a []F, s F) int {
	v := split[F](len(d))
	switch {
	case v == 0:
	case is32[F]():
		f32(p32(d), p32(a), float32(s), v)
	default:
		f64(p64(d), p64(a), float64(s), v)
	}
	return v
}

// Add writes a + b into d (a and b at least as long as d).
func Add[F Float](d, a, b []F) {
	a, b = a[:len(d)], b[:len(d)]
	for j := run3(add32, add64, d, a, b); j < len(d); j++ {
		d[j] = a[j] + b[j]
	}
}

// Sub writes a - b into d (a and b at least as long as d).
func Sub[F Float](d, a, b []F) {
	a, b = a[:len(d)], b[:len(d)]
	for j := run3(sub32, sub64, d, a, b); j < len(d); j++ {
		d[j] = a[j] - b[j]
	}
}

// Mul writes a * b into d elementwise (a and b at least as long as d).
func Mul[F Float](d, a, b []F) {
	a, b = a[:len(d)], b[:len(d)]
	for j := run3(mul32, mul64, d, a, b); j < len(d); j++ {
		d[j] = a[j] * b[j]
	}
}

// MulAdd adds a * b into d elementwise (the product rounded, then the
// sum).
func MulAdd[F Float](d, a, b []F) {
	a, b = a[:len(d)], b[:len(d)]
	for j := run3(mulAdd32, mulAdd64, d, a, b); j < len(d); j++ {
		d[j] += a[j] * b[j]
	}
}

// AddTo adds a into d (a at least as long as d).
func AddTo[F Float](d, a []F) {
	a = a[:len(d)]
	for j := run2(addTo32, addTo64, d, a); j < len(d); j++ {
		d[j] += a[j]
	}
}

// Scale writes a * s into d (a at least as long as d).
func Scale[F Float](d, a []F, s F) {
	a = a[:len(d)]
	for j := runS(scale32, scale64, d, a, s); j < len(d); j++ {
		d[j] = a[j] * s
	}
}

// ScaleAdd adds a * s into d (the product rounded, then the sum).
func ScaleAdd[F Float](d, a []F, s F) {
	a = a[:len(d)]
	for j := runS(scaleAdd32, scaleAdd64, d, a, s); j < len(d); j++ {
		d[j] += a[j] * s
	}
}

// SigmoidGrad writes dy y (1 - y) into d, computed as (dy y) (1 - y), or
// adds it when acc is set: the gradient through a sigmoid whose values
// are y.
func SigmoidGrad[F Float](d, dy, y []F, acc bool) {
	dy, y = dy[:len(d)], y[:len(d)]
	f32, f64 := sigmoidGrad32, sigmoidGrad64
	if acc {
		f32, f64 = sigmoidGradAdd32, sigmoidGradAdd64
	}
	for j := run3(f32, f64, d, dy, y); j < len(d); j++ {
		t := dy[j] * y[j] * (1 - y[j])
		if acc {
			t += d[j]
		}
		d[j] = t
	}
}

// TanhGrad writes dy (1 - y y) into d, or adds it when acc is set: the
// gradient through a tanh whose values are y.
func TanhGrad[F Float](d, dy, y []F, acc bool) {
	dy, y = dy[:len(d)], y[:len(d)]
	f32, f64 := tanhGrad32, tanhGrad64
	if acc {
		f32, f64 = tanhGradAdd32, tanhGradAdd64
	}
	for j := run3(f32, f64, d, dy, y); j < len(d); j++ {
		t := dy[j] * (1 - y[j]*y[j])
		if acc {
			t += d[j]
		}
		d[j] = t
	}
}
