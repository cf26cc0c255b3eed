package fastmath

import "math"

// Constants of the range reduction t = k ln 2 + r, |r| <= ln(2)/2 (ln 2
// split in two so that k ln 2 is exact, as in math.Exp).
const (
	log2e = 1.44269504088896338700e+00
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
	// round rounds a float64 of magnitude below 2^51 to the nearest
	// integer: (v + round) - round.
	round = 0x1.8p52
	// clamp is the largest argument expNeg4 computes: a larger one is
	// computed at clamp, so that 2^k stays normal (exp(-700) = 9.9e-305).
	clamp = 700
)

// reduce writes t = -min(a, clamp), a >= 0, as k ln 2 + r and returns r
// and s = 2^k. A NaN stays NaN through r.
func reduce(a float64) (r, s float64) {
	if a > clamp {
		a = clamp
	}
	t := -a
	k := (t*log2e + round) - round
	r = t - k*ln2Hi - k*ln2Lo
	return r, math.Float64frombits(uint64(int64(k)+1023) << 52)
}

// expNeg4 writes exp(-a) of four values a >= 0 (a beyond clamp read as
// clamp) as 2^k (1 + m), m = expm1(r), |r| <= ln(2)/2, and returns the m
// and the s = 2^k; short selects the polynomial of float32.
func expNeg4(a0, a1, a2, a3 float64, short bool) (m0, m1, m2, m3, s0, s1, s2, s3 float64) {
	r0, s0 := reduce(a0)
	r1, s1 := reduce(a1)
	r2, s2 := reduce(a2)
	r3, s3 := reduce(a3)
	// q(r) = sum_n r^n / (n+2)!, so that expm1(r) = r + r^2 q(r) for |r| <=
	// ln(2)/2: 12 terms give expm1 to a relative error below 1.2e-17, the
	// first 6 (short) below 1.5e-8 (float32's half ulp is 3e-8).
	const (
		c13 = 1.0 / 6227020800
		c12 = 1.0 / 479001600
		c11 = 1.0 / 39916800
		c10 = 1.0 / 3628800
		c9  = 1.0 / 362880
		c8  = 1.0 / 40320
		c7  = 1.0 / 5040
		c6  = 1.0 / 720
		c5  = 1.0 / 120
		c4  = 1.0 / 24
		c3  = 1.0 / 6
		c2  = 1.0 / 2
	)
	p0, p1, p2, p3 := c7, c7, c7, c7
	if !short {
		p0, p1, p2, p3 = c13*r0+c12, c13*r1+c12, c13*r2+c12, c13*r3+c12
		p0, p1, p2, p3 = p0*r0+c11, p1*r1+c11, p2*r2+c11, p3*r3+c11
		p0, p1, p2, p3 = p0*r0+c10, p1*r1+c10, p2*r2+c10, p3*r3+c10
		p0, p1, p2, p3 = p0*r0+c9, p1*r1+c9, p2*r2+c9, p3*r3+c9
		p0, p1, p2, p3 = p0*r0+c8, p1*r1+c8, p2*r2+c8, p3*r3+c8
		p0, p1, p2, p3 = p0*r0+c7, p1*r1+c7, p2*r2+c7, p3*r3+c7
	}
	p0, p1, p2, p3 = p0*r0+c6, p1*r1+c6, p2*r2+c6, p3*r3+c6
	p0, p1, p2, p3 = p0*r0+c5, p1*r1+c5, p2*r2+c5, p3*r3+c5
	p0, p1, p2, p3 = p0*r0+c4, p1*r1+c4, p2*r2+c4, p3*r3+c4
	p0, p1, p2, p3 = p0*r0+c3, p1*r1+c3, p2*r2+c3, p3*r3+c3
	p0, p1, p2, p3 = p0*r0+c2, p1*r1+c2, p2*r2+c2, p3*r3+c2
	return p0*r0*r0 + r0, p1*r1*r1 + r1, p2*r2*r2 + r2, p3*r3*r3 + r3, s0, s1, s2, s3
}

// Tanh4 is tanh of four values,
//
//	tanh(x) = -expm1(-2|x|) / (2 + expm1(-2|x|)), with the sign of x:
//
// within 2 ulps of math.Tanh (long), or of float32(math.Tanh) within one
// float32 ulp (short). A NaN gives NaN.
func Tanh4(x0, x1, x2, x3 float64, short bool) (y0, y1, y2, y3 float64) {
	m0, m1, m2, m3, s0, s1, s2, s3 := expNeg4(2*math.Abs(x0), 2*math.Abs(x1), 2*math.Abs(x2), 2*math.Abs(x3), short)
	// expm1(t) = 2^k (expm1(r) + 1) - 1 = s expm1(r) + (s - 1)
	u0, u1, u2, u3 := s0*m0+(s0-1), s1*m1+(s1-1), s2*m2+(s2-1), s3*m3+(s3-1)
	return math.Copysign(-u0/(2+u0), x0), math.Copysign(-u1/(2+u1), x1),
		math.Copysign(-u2/(2+u2), x2), math.Copysign(-u3/(2+u3), x3)
}

// ExpNeg4 is exp(-a) of four values a >= 0, an a beyond clamp read as
// clamp: within a few ulps of math.Exp(-a) (long),
// or within one float32 ulp of float32(math.Exp(-a)) (short), for a <=
// clamp. A NaN gives NaN.
func ExpNeg4(a0, a1, a2, a3 float64, short bool) (e0, e1, e2, e3 float64) {
	m0, m1, m2, m3, s0, s1, s2, s3 := expNeg4(a0, a1, a2, a3, short)
	return s0 * (1 + m0), s1 * (1 + m1), s2 * (1 + m2), s3 * (1 + m3)
}
