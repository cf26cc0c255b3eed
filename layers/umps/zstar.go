package umps

import (
	"fmt"
	"hash"
	"math"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
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

// LogZStar adds the fused op log Z_* (Section 3.1; Table 1 for Sigma*) to
// b. A: [D, d, D], alpha, omega: [D]. Returns [1], nats. Running the graph
// fails when the spectral radius of the transfer operator is not below 1.
// Cost O(D^6) per run (a D^2 x D^2 solve): meant for small D.
func LogZStar(b *graph.Builder, A, alpha, omega *G.Node) *G.Node {
	D, d, ok := checkParams(b, "LogZStar", A, alpha, omega)
	if !ok {
		return nil
	}
	op := &zStarOp{normOp{D: D, d: d}}
	return b.Do(op.String(), func() (*G.Node, error) { return G.ApplyOp(op, A, alpha, omega) })
}

// zStarOp is the fused LogZStar; grad selects the packed-gradient variant.
type zStarOp struct{ normOp }

var _ G.SDOp = (*zStarOp)(nil)

func (op *zStarOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op *zStarOp) Hashcode() uint32      { return hashString(op.String()) }
func (op *zStarOp) String() string {
	return fmt.Sprintf("umps.LogZStar{D=%d,d=%d,grad=%v}", op.D, op.d, op.grad)
}

func (op *zStarOp) Do(vals ...G.Value) (G.Value, error) {
	in, err := op.inputs(op, vals)
	if err != nil {
		return nil, err
	}
	lz, g, err := zStarKernel(in[0], in[1], in[2], op.D, op.d, op.grad)
	if err != nil {
		return nil, err
	}
	if !op.grad {
		return vector([]float64{lz}), nil
	}
	return chain(g, in), nil
}

func (op *zStarOp) SymDiff(in G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	return op.symDiff("LogZStar", &zStarOp{normOp{D: op.D, d: op.d, grad: true}}, in, grad)
}
