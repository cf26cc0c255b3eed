package umps

import (
	"math"

	"github.com/pkg/errors"
)

// This file makes Z_R differentiable. With Z_R = Tr(Q_l E_R(Q_r)), the
// adjoint of Table 1 runs down the regex with an input Q (a right
// environment) and a cotangent G (a left environment), dZ = Tr(G dE(Q)):
//
//	symbol set: dZ/dA(c) = 2 G A(c) Q for each c in the set;
//	R1 R2 ... Rk: Rk gets (Q, G_k), R(i) gets (E_{R(i+1)...Rk}(Q),
//	    E^l_{R1...R(i-1)}(G));
//	union: every branch gets (Q, G);
//	S*: S gets (X, Y) with X = E_{S*}(Q), Y = E^l_{S*}(G),
//
// all matrices symmetric, their power-of-two exponents carried into the
// weight of each term.

// LogZGrad returns log Z_R with the model's boundary matrices and its
// gradient with respect to (A, alpha, omega), packed as
// [A (D, d, D) | alpha | omega].
func (t *Transfer) LogZGrad(r *Regex) (float64, []float64, error) {
	if err := t.checkRegex(r); err != nil {
		return 0, nil, err
	}
	ql, qr := t.Boundaries()
	x, err := t.apply(r.root, qr, true)
	if err != nil {
		return 0, nil, err
	}
	logZ := x.Log(t.m.Alpha)
	if math.IsInf(logZ, -1) {
		return 0, nil, errors.Errorf("umps: the model gives regex %q no mass", r.pattern)
	}
	D, d := t.m.Bond, t.m.Symbols
	out := make([]float64, packedSize(D, d))
	gA, ga, gw := split(out, D, d)
	if err := t.adjoint(r.root, qr, ql, logZ, gA); err != nil {
		return 0, nil, err
	}
	y, err := t.apply(r.root, ql, false)
	if err != nil {
		return 0, nil, err
	}
	boundaryGrad(x, y, t.m.Alpha, t.m.Omega, logZ, ga, gw)
	return logZ, out, nil
}

// adjoint adds d log Z / dA for node n with input q and cotangent g.
func (t *Transfer) adjoint(n *node, q, g Mat, logZ float64, gA []float64) error {
	if q.Zero || g.Zero {
		return nil
	}
	switch n.kind {
	case kindEps:
		return nil
	case kindSym:
		D, d := t.m.Bond, t.m.Symbols
		w := 2 * math.Exp(float64(q.Exp+g.Exp)*ln2-logZ)
		t1 := make([]float64, D*D)
		t2 := make([]float64, D*D)
		for _, c := range n.syms {
			mm(D, false, false, 1, g.Data, t.mats[c], 0, t1)
			mm(D, false, false, w, t1, q.Data, 0, t2)
			for i := 0; i < D; i++ {
				row := gA[(i*d+c)*D : (i*d+c+1)*D]
				for j := range row {
					row[j] += t2[i*D+j]
				}
			}
		}
		return nil
	case kindCat:
		env := make([]Mat, len(n.subs))
		env[len(n.subs)-1] = q
		for i := len(n.subs) - 2; i >= 0; i-- {
			var err error
			if env[i], err = t.apply(n.subs[i+1], env[i+1], true); err != nil {
				return err
			}
		}
		for i, s := range n.subs {
			if err := t.adjoint(s, env[i], g, logZ, gA); err != nil {
				return err
			}
			if i+1 < len(n.subs) {
				var err error
				if g, err = t.apply(s, g, false); err != nil {
					return err
				}
			}
		}
		return nil
	case kindAlt:
		for _, s := range n.subs {
			if err := t.adjoint(s, q, g, logZ, gA); err != nil {
				return err
			}
		}
		return nil
	}
	x, err := t.apply(n, q, true)
	if err != nil {
		return err
	}
	y, err := t.apply(n, g, false)
	if err != nil {
		return err
	}
	return t.adjoint(n.subs[0], x, y, logZ, gA)
}
