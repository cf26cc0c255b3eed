package umps

import (
	"math"
	"sync"

	"github.com/pkg/errors"
)

// This file holds the fused op for log Z_*, the normaliser of P_* over
// strings of every length, and its gradient. With X = (I - E^r)^-1(Q_r)
// and Y = (I - E^l)^-1(Q_l) (Table 1, Kleene closure of Sigma),
// Z_* = Tr(Q_l X) = Tr(Y Q_r) and
//
//	d Z_* / d A(c) = 2 Y A(c) X,  d Z_* / d alpha = 2 X alpha,
//	d Z_* / d omega = 2 Y omega.

// Norm selects the normalisation of the training likelihood.
type Norm int

const (
	// PerLength normalises each string by Z_|s| (P_n, the paper's code).
	PerLength Norm = iota
	// AllLengths normalises by Z_* (P_*, a distribution over all strings);
	// it needs the spectral radius of the transfer operator below 1.
	AllLengths
)

// String is "n" or "star".
func (n Norm) String() string {
	if n == AllLengths {
		return "star"
	}
	return "n"
}

// ParseNorm reads "n" or "star".
func ParseNorm(s string) (Norm, error) {
	switch s {
	case "n":
		return PerLength, nil
	case "star":
		return AllLengths, nil
	}
	return 0, errors.Errorf("umps: unknown normalisation %q (want n or star)", s)
}

// zStarCache keeps the Transfer (and so the factorised Kleene system, for
// bond dimensions below iterativeMinBond) of the last parameters seen by a
// LogZStar op, so that the backward pass after a forward pass on the same
// parameters factorises nothing again.
type zStarCache struct {
	mu   sync.Mutex
	in   []float64 // A, alpha, omega of t, concatenated
	t    *Transfer
	D, d int
}

// transfer returns a Transfer of a copy of (A, alpha, omega), the cached
// one when they are unchanged.
func (c *zStarCache) transfer(A, alpha, omega []float64) (*Transfer, error) {
	same := c.t != nil && len(c.in) == len(A)+len(alpha)+len(omega)
	if same {
		off := 0
		for _, part := range [][]float64{A, alpha, omega} {
			for i, v := range part {
				if c.in[off+i] != v {
					same = false
					break
				}
			}
			off += len(part)
		}
	}
	if same {
		return c.t, nil
	}
	in := append(append(append([]float64(nil), A...), alpha...), omega...)
	n := c.D * c.d * c.D
	t, err := NewTransfer(&MPS{Bond: c.D, Symbols: c.d, A: in[:n], Alpha: in[n : n+c.D], Omega: in[n+c.D:]})
	if err != nil {
		return nil, err
	}
	c.in, c.t = in, t
	return t, nil
}

// zStarKernel returns log Z_* and, when grad is true, the gradient of
// log Z_* packed as [A | alpha | omega], with the Transfer from zc.
func zStarKernel(zc *zStarCache, A, alpha, omega []float64, grad bool) (float64, []float64, error) {
	zc.mu.Lock()
	defer zc.mu.Unlock()
	t, err := zc.transfer(A, alpha, omega)
	if err != nil {
		return 0, nil, err
	}
	D, d := zc.D, zc.d
	alpha, omega = t.m.Alpha, t.m.Omega
	ql, qr := t.Boundaries()
	x, err := t.apply(t.sigmaStar(), qr, true)
	if err != nil {
		return 0, nil, err
	}
	logZ := x.Log(alpha)
	if math.IsInf(logZ, -1) {
		return 0, nil, errors.New("umps: Z_* is zero")
	}
	if !grad {
		return logZ, nil, nil
	}
	y, err := t.apply(t.sigmaStar(), ql, false)
	if err != nil {
		return 0, nil, err
	}
	out := make([]float64, packedSize(D, d))
	gA, ga, gw := split(out, D, d)
	w := 2 * math.Exp(float64(x.Exp+y.Exp)*ln2-logZ)
	t1 := make([]float64, D*D)
	t2 := make([]float64, D*D)
	for c, a := range t.mats {
		// 2 Y A(c) X into gA[:, c, :].
		mm(D, false, false, 1, y.Data, a, 0, t1)
		mm(D, false, false, w, t1, x.Data, 0, t2)
		for i := 0; i < D; i++ {
			copy(gA[(i*d+c)*D:(i*d+c+1)*D], t2[i*D:(i+1)*D])
		}
	}
	boundaryGrad(x, y, alpha, omega, logZ, ga, gw)
	return logZ, out, nil
}

// boundaryGrad writes d log Z / d alpha = 2 X alpha / Z into ga and
// d log Z / d omega = 2 Y omega / Z into gw, where X and Y are the right and
// left environments of the whole expression and Z = exp(logZ).
func boundaryGrad(x, y Mat, alpha, omega []float64, logZ float64, ga, gw []float64) {
	D := len(alpha)
	wa := 2 * math.Exp(float64(x.Exp)*ln2-logZ)
	wo := 2 * math.Exp(float64(y.Exp)*ln2-logZ)
	for i := 0; i < D; i++ {
		ga[i] = wa * dot(x.Data[i*D:(i+1)*D], alpha)
		gw[i] = wo * dot(y.Data[i*D:(i+1)*D], omega)
	}
}
