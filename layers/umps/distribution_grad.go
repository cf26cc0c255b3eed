package umps

import (
	"fmt"
	"math"
	"strings"

	"github.com/pkg/errors"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
)

// This file makes log P(R) of a per-length model with a length model
// differentiable. With w_k = pi(k) (Z_{R,k}/Z_k) / P(R),
//
//	d log P(R) = sum_k w_k (d log Z_{R,k} - d log Z_k);
//
// the second sum is logZnGrad's, and the first runs the DFA sweep of
// lengthSweep backwards: with M the operator X_{k+1} = M X_k on the DFA
// blocks, e = alpha alpha^T in the start block and c_k = w_k / Z_{R,k},
// the cotangent of X_m is G_m = c_{m+1} e + M^T G_{m+1}, and
// dA(c) += 2 G_m[q] A(c) X_m[delta(q,c)] for every transition q -c-> j.
// G_m is carried times the scale X_m was divided by, so every product is
// of order one.

// LogProbRegexGrad returns log P(s in R) under the length model lm and its
// gradient with respect to (A, alpha, omega), packed as [A | alpha | omega].
func (t *Transfer) LogProbRegexGrad(r *Regex, lm *LengthModel) (float64, []float64, error) {
	if err := t.checkRegex(r); err != nil {
		return 0, nil, err
	}
	sw, err := t.newLengthSweep(r, lm, true)
	if err != nil {
		return 0, nil, err
	}
	D, d := t.m.Bond, t.m.Symbols
	dd, N := D*D, len(sw.logW)-1
	out := make([]float64, packedSize(D, d))
	gA, ga, gw := split(out, D, d)
	dy := make([]float64, N+1)
	c := make([]float64, N+1) // w_k / Z_{R,k}, times the scale of X_k
	for k := range dy {
		w := math.Exp(sw.logW[k] - sw.logMass)
		dy[k] = -w
		if q := (Mat{Data: sw.x[k][:dd]}).quad(t.m.Alpha); w > 0 && q > 0 {
			c[k] = w / q
		}
	}
	viewOf(t.m.A, t.m.Alpha, t.m.Omega, D, d).logZnGrad(N, dy, gA, ga, gw)
	S := len(sw.a.next)
	e := outer(t.m.Alpha)
	g, next := make([]float64, S*dd), make([]float64, S*dd)
	t1, t2 := make([]float64, dd), make([]float64, dd)
	for m := N - 1; m >= -1; m-- {
		// G_m = (c_{m+1} e + M^T G_{m+1}) / trace_{m+1}, G_N = 0.
		sw.leftBlocks(g, next, t1)
		for i := range e {
			next[i] += c[m+1] * e[i]
		}
		for i := range next {
			next[i] /= sw.trace[m+1]
		}
		g, next = next, g
		if m < 0 {
			break
		}
		for q, row := range sw.a.next {
			for sym, j := range row {
				if j < 0 {
					continue
				}
				a := t.mats[sym]
				mm(D, false, false, 1, g[q*dd:(q+1)*dd], a, 0, t1)
				mm(D, false, false, 2, t1, sw.x[m][j*dd:(j+1)*dd], 0, t2)
				for i := 0; i < D; i++ {
					row := gA[(i*d+sym)*D : (i*d+sym+1)*D]
					for k := range row {
						row[k] += t2[i*D+k]
					}
				}
			}
		}
	}
	// g is now dF/dX_0 (trace[0] = 1); X_0[q] = [q accepts] omega omega^T.
	for q, acc := range sw.a.accept {
		if acc {
			blas64.Gemv(blas.NoTrans, 2, gen(D, g[q*dd:(q+1)*dd]), vec(t.m.Omega), 1, vec(gw))
		}
	}
	for k := 0; k <= N; k++ {
		if c[k] != 0 {
			blas64.Gemv(blas.NoTrans, 2*c[k], gen(D, sw.x[k][:dd]), vec(t.m.Alpha), 1, vec(ga))
		}
	}
	return sw.logMass, out, nil
}

// leftBlocks writes M^T g into out: out[j] = sum over transitions
// q -c-> j of A(c)^T g[q] A(c); tmp is scratch.
func (sw *lengthSweep) leftBlocks(g, out, tmp []float64) {
	D := sw.t.m.Bond
	dd := D * D
	clear(out)
	for q, row := range sw.a.next {
		for c, j := range row {
			if j < 0 {
				continue
			}
			a := sw.t.mats[c]
			mm(D, true, false, 1, a, g[q*dd:(q+1)*dd], 0, tmp)
			mm(D, false, false, 1, tmp, a, 1, out[j*dd:(j+1)*dd])
		}
	}
}

// LogProbRegexLengths adds the fused op log P(s in R) of a per-length
// model with the length model lm (Distribution.LogProbRegex) to b, so a
// regex-conditioned objective can be trained on such a model. A: [D, d, D],
// alpha, omega: [D]; r must be over d symbols. Returns [1], nats.
func LogProbRegexLengths(b *graph.Builder, A, alpha, omega *G.Node, r *Regex, lm *LengthModel) *G.Node {
	D, d, ok := checkParams(b, "LogProbRegexLengths", A, alpha, omega)
	if !ok {
		return nil
	}
	if r == nil || len(r.alphabet) != d {
		b.Fail(errors.Errorf("regex must be over the model's %d symbols", d), "umps: LogProbRegexLengths")
		return nil
	}
	if err := lm.Validate(); err != nil {
		b.Fail(err, "umps: LogProbRegexLengths")
		return nil
	}
	transfer := func(in [][]float64) (*Transfer, error) {
		return NewTransfer(&MPS{Bond: D, Symbols: d, A: in[0], Alpha: in[1], Omega: in[2]})
	}
	key := fmt.Sprintf("alphabet=%q,regex=%q,lengths=%v", string(r.alphabet), strings.ReplaceAll(r.pattern, "\n", `\n`), *lm)
	return b.Fused(normKernel("umps.LogProbRegexLengths", key,
		func(in [][]float64) (float64, error) {
			t, err := transfer(in)
			if err != nil {
				return 0, err
			}
			sw, err := t.newLengthSweep(r, lm, false)
			if err != nil {
				return 0, err
			}
			return sw.logMass, nil
		},
		func(in [][]float64) ([]float64, error) {
			t, err := transfer(in)
			if err != nil {
				return nil, err
			}
			_, g, err := t.LogProbRegexGrad(r, lm)
			return g, err
		}), A, alpha, omega)
}
