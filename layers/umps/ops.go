package umps

import (
	"fmt"
	"math"
	"strings"

	"github.com/pkg/errors"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/rtnlab/rtn/graph"
)

// This file makes the kernels graph nodes through graph.Kernel.
// gorgonia's BatchedMatMul loops over the batch in Go and an unrolled chain
// of length n compiles in quadratic time (notes/gorgonia.md), so the whole
// chain and the whole normaliser are one op each.

// LogAmp2 adds the fused op y_b = 2 log|f(s_b)| = log P~(s_b) (Eq. 2 and
// the Born rule of Section 3.1) to b.
//
// A: [D, d, D], alpha, omega: [D] (learnable); seqs: [B, T], an input
// holding symbols 0..d-1 followed by Pad (see EncodeBatch), not
// differentiated. Returns [B], nats. Rescaling by powers of two keeps
// every length finite.
func LogAmp2(b *graph.Builder, A, alpha, omega, seqs *G.Node) *G.Node {
	D, d, ok := checkParams(b, "LogAmp2", A, alpha, omega)
	if !ok {
		return nil
	}
	if seqs == nil || seqs.Dims() != 2 {
		b.Fail(errors.New("umps: seqs must be a [batch, length] node"), "umps: LogAmp2")
		return nil
	}
	B, T := seqs.Shape()[0], seqs.Shape()[1]
	return b.Fused(graph.Kernel{
		Name:   "umps.LogAmp2",
		Out:    []int{B},
		NoDiff: []int{3},
		Forward: func(in [][]float64, out []float64) error {
			seqs, err := decodeBatch(in[3], B, T, d)
			if err != nil {
				return err
			}
			copy(out, viewOf(in[0], in[1], in[2], D, d).logAmp2(seqs))
			return nil
		},
		Backward: func(in [][]float64, _, dy []float64, g [][]float64) error {
			seqs, err := decodeBatch(in[3], B, T, d)
			if err != nil {
				return err
			}
			viewOf(in[0], in[1], in[2], D, d).logAmp2Grad(seqs, dy, g[0], g[1], g[2])
			return nil
		},
	}, A, alpha, omega, seqs)
}

// LogZn adds the fused op log Z_n, n = 0..maxN (Eq. 3-4, trace-normalised
// transfer operator in the log domain), to b. A: [D, d, D], alpha, omega:
// [D]. Returns [maxN+1], nats.
func LogZn(b *graph.Builder, A, alpha, omega *G.Node, maxN int) *G.Node {
	D, d, ok := checkParams(b, "LogZn", A, alpha, omega)
	if !ok {
		return nil
	}
	if maxN < 0 {
		b.Fail(errors.Errorf("maximum length %d", maxN), "umps: LogZn")
		return nil
	}
	return b.Fused(graph.Kernel{
		Name: "umps.LogZn",
		Key:  fmt.Sprintf("N=%d", maxN),
		Out:  []int{maxN + 1},
		Forward: func(in [][]float64, out []float64) error {
			lz, _, _ := viewOf(in[0], in[1], in[2], D, d).logZn(maxN)
			copy(out, lz)
			return nil
		},
		Backward: func(in [][]float64, _, dy []float64, g [][]float64) error {
			viewOf(in[0], in[1], in[2], D, d).logZnGrad(maxN, dy, g[0], g[1], g[2])
			return nil
		},
	}, A, alpha, omega)
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
	cache := &zStarCache{D: D, d: d}
	return b.Fused(normKernel("umps.LogZStar", "",
		func(in [][]float64) (float64, error) {
			lz, _, err := zStarKernel(cache, in[0], in[1], in[2], false)
			return lz, err
		},
		func(in [][]float64) ([]float64, error) {
			_, g, err := zStarKernel(cache, in[0], in[1], in[2], true)
			return g, err
		}), A, alpha, omega)
}

// LogZRegex adds the fused op log Z_R (Section 4, Table 1) to b, so that a
// regex-conditioned likelihood, log P(s in R) = log Z_R - log Z_*, can be
// trained on. A: [D, d, D], alpha, omega: [D]; r must be over d symbols.
// Returns [1], nats. Running the graph fails when a closure of r diverges.
func LogZRegex(b *graph.Builder, A, alpha, omega *G.Node, r *Regex) *G.Node {
	D, d, ok := checkParams(b, "LogZRegex", A, alpha, omega)
	if !ok {
		return nil
	}
	if r == nil || len(r.alphabet) != d {
		b.Fail(errors.Errorf("regex must be over the model's %d symbols", d), "umps: LogZRegex")
		return nil
	}
	transfer := func(in [][]float64) (*Transfer, error) {
		return NewTransfer(&MPS{Bond: D, Symbols: d, A: in[0], Alpha: in[1], Omega: in[2]})
	}
	key := fmt.Sprintf("alphabet=%q,regex=%q", string(r.alphabet), strings.ReplaceAll(r.pattern, "\n", `\n`))
	return b.Fused(normKernel("umps.LogZRegex", key,
		func(in [][]float64) (float64, error) {
			t, err := transfer(in)
			if err != nil {
				return 0, err
			}
			lz, err := t.LogZ(r)
			if err == nil && math.IsInf(lz, -1) {
				err = errors.Errorf("umps: the model gives regex %q no mass", r.pattern)
			}
			return lz, err
		},
		func(in [][]float64) ([]float64, error) {
			t, err := transfer(in)
			if err != nil {
				return nil, err
			}
			_, g, err := t.LogZGrad(r)
			return g, err
		}), A, alpha, omega)
}

// normKernel is a scalar normaliser of (A, alpha, omega) as a kernel with
// output [1]: f computes it, grad its gradient packed as [A | alpha |
// omega], which the backward pass scales by the upstream gradient.
func normKernel(name, key string, f func(in [][]float64) (float64, error), grad func(in [][]float64) ([]float64, error)) graph.Kernel {
	return graph.Kernel{
		Name: name,
		Key:  key,
		Out:  []int{1},
		Forward: func(in [][]float64, out []float64) error {
			v, err := f(in)
			out[0] = v
			return err
		},
		Backward: func(in [][]float64, _, dy []float64, g [][]float64) error {
			packed, err := grad(in)
			if err != nil {
				return err
			}
			off := 0
			for _, gi := range g {
				for j := range gi {
					gi[j] = dy[0] * packed[off+j]
				}
				off += len(gi)
			}
			return nil
		},
	}
}

func checkParams(b *graph.Builder, name string, A, alpha, omega *G.Node) (D, d int, ok bool) {
	if b.Err() != nil {
		return 0, 0, false
	}
	if A == nil || alpha == nil || omega == nil {
		b.Fail(errors.New("nil argument"), "umps: "+name)
		return 0, 0, false
	}
	s := A.Shape()
	if len(s) != 3 || s[0] != s[2] || !alpha.Shape().Eq(tensor.Shape{s[0]}) || !omega.Shape().Eq(tensor.Shape{s[0]}) {
		b.Fail(errors.Errorf("want A [D, d, D] and alpha, omega [D], got %v, %v, %v", s, alpha.Shape(), omega.Shape()), "umps: "+name)
		return 0, 0, false
	}
	return s[0], s[1], true
}

// split cuts a gradient packed as [A | alpha | omega] into its parts.
func split(p []float64, D, d int) (gA, ga, gw []float64) {
	n := D * d * D
	return p[:n], p[n : n+D], p[n+D:]
}

// packedSize is the length of the packed gradient [A | alpha | omega].
func packedSize(D, d int) int { return D*d*D + 2*D }
