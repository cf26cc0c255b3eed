package umps

import (
	"math"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/mat"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// This file keeps P_* training inside the region where Z_* exists. The
// spectral radius of the transfer operator E(X) = sum_c A(c) X A(c)^T is at
// most lambda(A) = lambda_max(sum_c A(c) A(c)^T) = ||E(I)||: for X
// positive semidefinite X <= ||X|| I, so E^n(I) <= lambda^n I. The core
// the likelihood sees is therefore
//
//	A~ = A sqrt(b sigmoid(g) / lambda(A)),   b = 1 - 1e-6,
//
// with g a learned scalar (ParamGamma), and rho(E~) <= b sigmoid(g) < 1 for
// every parameter value: no optimizer step can leave the region, unlike a
// penalty or a projection after the step. No model is lost: a core whose
// right Perron eigenmatrix X is positive definite has the gauge
// A(c) -> X^(-1/2) A(c) X^(1/2), which changes no amplitude, in which
// E(I) = rho I and the bound is exact. P_n is invariant under the scaling,
// so the length-balanced start (trained on P_n) hands its core over as is.

// maxBound caps the contraction bound below 1 so that the closure solves
// stay well conditioned however far g goes (a geometric length
// distribution with this ratio has a mean of a million symbols).
const maxBound = 1 - 1e-6

// ParamGamma names the logit g of the contraction bound sigmoid(g) of a
// u-MPS trained on P_* (shape [1]).
const ParamGamma = "gamma"

// coreBound returns lambda = lambda_max(sum_c A(c) A(c)^T) and its unit
// eigenvector v.
func coreBound(A []float64, D, d int) (float64, []float64, error) {
	m := mat.NewSymDense(D, nil)
	for i := 0; i < D; i++ {
		for j := i; j < D; j++ {
			s := 0.0
			for c := 0; c < d; c++ {
				s += dot(A[(i*d+c)*D:(i*d+c+1)*D], A[(j*d+c)*D:(j*d+c+1)*D])
			}
			m.SetSym(i, j, s)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(m, true) {
		return 0, nil, errors.New("umps: eigendecomposition of sum_c A(c) A(c)^T failed")
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	k := len(vals) - 1 // ascending order
	if !(vals[k] > 0) {
		return 0, nil, errors.New("umps: the core is zero")
	}
	return vals[k], mat.Col(nil, k, &vecs), nil
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// contractKernel returns A~ (a new slice) and, when up is not nil (the
// upstream gradient with respect to A~), the gradient packed as
// [dA | dg]:
//
//	dA(c) = s up(c) - (h / lambda) v v^T A(c),  dg = h (1 - sigmoid(g)) / 2,
//
// with s = sqrt(maxBound sigmoid(g)/lambda) and h = <up, A~>.
func contractKernel(A []float64, g float64, D, d int, up []float64) ([]float64, []float64, error) {
	lam, v, err := coreBound(A, D, d)
	if err != nil {
		return nil, nil, err
	}
	s := math.Sqrt(maxBound * sigmoid(g) / lam)
	at := make([]float64, len(A))
	for i, x := range A {
		at[i] = s * x
	}
	if up == nil {
		return at, nil, nil
	}
	h := dot(up, at)
	out := make([]float64, len(A)+1)
	for i := range A {
		out[i] = s * up[i]
	}
	// (v v^T A(c))_{ij} = v_i (v^T A(c))_j.
	vtA := make([]float64, D)
	for c := 0; c < d; c++ {
		clear(vtA)
		for k := 0; k < D; k++ {
			row := A[(k*d+c)*D : (k*d+c+1)*D]
			for j, x := range row {
				vtA[j] += v[k] * x
			}
		}
		for i := 0; i < D; i++ {
			row := out[(i*d+c)*D : (i*d+c+1)*D]
			for j := range row {
				row[j] -= h / lam * v[i] * vtA[j]
			}
		}
	}
	out[len(A)] = h * (1 - sigmoid(g)) / 2
	return at, out, nil
}

// ContractCore adds the fused op A~ = A sqrt(b sigmoid(g) / lambda(A)) to b
// (see the top of this file), whose transfer operator has spectral radius
// at most (1 - 1e-6) sigmoid(g) < 1. A: [D, d, D], g: [1]. Returns [D, d, D].
func ContractCore(b *graph.Builder, A, g *G.Node) *G.Node {
	if b.Err() != nil {
		return nil
	}
	if A == nil || g == nil || A.Dims() != 3 || A.Shape()[0] != A.Shape()[2] || !g.Shape().Eq(tensor.Shape{1}) {
		b.Fail(errors.New("want A [D, d, D] and g [1]"), "umps: ContractCore")
		return nil
	}
	D, d := A.Shape()[0], A.Shape()[1]
	return b.Fused(graph.Kernel{
		Name: "umps.ContractCore",
		Out:  []int{D, d, D},
		Forward: func(in [][]float64, out []float64) error {
			at, _, err := contractKernel(in[0], in[1][0], D, d, nil)
			copy(out, at)
			return err
		},
		Backward: func(in [][]float64, _, dout []float64, grads [][]float64) error {
			_, g, err := contractKernel(in[0], in[1][0], D, d, dout)
			if err != nil {
				return err
			}
			copy(grads[0], g[:len(g)-1])
			grads[1][0] = g[len(g)-1]
			return nil
		},
	}, A, g)
}

// Contracted returns the model a parameter set stands for: FromParams when
// it has no ParamGamma, else a copy whose core is A~ (the contraction
// baked in).
func Contracted(p *params.Params) (*MPS, error) {
	m, err := FromParams(p)
	if err != nil || !p.Has(ParamGamma) {
		return m, err
	}
	g := p.Data(ParamGamma)
	if len(g) != 1 {
		return nil, errors.Errorf("umps: %s has %d values, want 1", ParamGamma, len(g))
	}
	at, _, err := contractKernel(m.A, g[0], m.Bond, m.Symbols, nil)
	if err != nil {
		return nil, err
	}
	out := &MPS{Bond: m.Bond, Symbols: m.Symbols, A: at,
		Alpha: append([]float64(nil), m.Alpha...), Omega: append([]float64(nil), m.Omega...)}
	return out, out.Validate()
}

// AddGamma adds ParamGamma to p with the bound sigmoid(g) = rho, rho in
// (0, 1): the spectral radius the contracted core starts at or below.
func AddGamma(p *params.Params, rho float64) error {
	if !(rho > 0 && rho < maxBound) {
		return errors.Errorf("umps: contraction bound %v, want in (0, %v)", rho, maxBound)
	}
	if _, err := p.Add(ParamGamma, 1); err != nil {
		return err
	}
	rho /= maxBound
	return p.Set(ParamGamma, []float64{math.Log(rho / (1 - rho))})
}
