package umps

import (
	"math"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
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

// zStarKernel returns log Z_* and, when grad is true, the gradient of
// log Z_* packed as [A | alpha | omega].
func zStarKernel(A, alpha, omega []float64, D, d int, grad bool) (float64, []float64, error) {
	m := &MPS{Bond: D, Symbols: d, A: A, Alpha: alpha, Omega: omega}
	t, err := NewTransfer(m)
	if err != nil {
		return 0, nil, err
	}
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
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, gen(D, y.Data), gen(D, a), 0, gen(D, t1))
		blas64.Gemm(blas.NoTrans, blas.NoTrans, w, gen(D, t1), gen(D, x.Data), 0, gen(D, t2))
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
