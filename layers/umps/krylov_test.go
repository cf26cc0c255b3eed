package umps

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// withIterativeFrom runs f with Kleene closures solved by gmres from bond
// dimension D on.
func withIterativeFrom(D int, f func()) {
	old := iterativeMinBond
	iterativeMinBond = D
	defer func() { iterativeMinBond = old }()
	f()
}

// starSolves returns X = (I - E^r)^-1(Q_r), Y = (I - E^l)^-1(Q_l), log Z_*
// and its gradient for m.
func starSolves(t *testing.T, m *MPS) (x, y Mat, logZ float64, grad []float64) {
	t.Helper()
	tr, err := NewTransfer(m)
	if err != nil {
		t.Fatal(err)
	}
	ql, qr := tr.Boundaries()
	if x, err = tr.apply(tr.sigmaStar(), qr, true); err != nil {
		t.Fatal(err)
	}
	if y, err = tr.apply(tr.sigmaStar(), ql, false); err != nil {
		t.Fatal(err)
	}
	zc := &zStarCache{D: m.Bond, d: m.Symbols}
	if logZ, grad, err = zStarKernel(zc, m.A, m.Alpha, m.Omega, true); err != nil {
		t.Fatal(err)
	}
	return x, y, logZ, grad
}

// matErr is the largest entry of |a - b| over the largest entry of |b|.
func matErr(a, b Mat) float64 {
	num, den := 0.0, 0.0
	sa, sb := math.Ldexp(1, a.Exp), math.Ldexp(1, b.Exp)
	for i := range a.Data {
		num = math.Max(num, math.Abs(sa*a.Data[i]-sb*b.Data[i]))
		den = math.Max(den, math.Abs(sb*b.Data[i]))
	}
	return num / den
}

// The gmres solves of the Kleene system agree with the dense LU to 1e-12
// relative, in X, Y, log Z_* and its gradient, on random models up to a
// spectral radius of 0.95.
func TestIterativeStarMatchesDense(t *testing.T) {
	seed := uint64(1)
	for _, D := range []int{3, 5, 8} {
		for _, d := range []int{1, 2, 6} {
			for _, rho := range []float64{0.3, 0.9, 0.95} {
				seed++
				m := testModel(t, D, d, rho, seed)
				name := fmt.Sprintf("D=%d d=%d rho=%g", D, d, rho)
				x0, y0, lz0, g0 := starSolves(t, m)
				var x1, y1 Mat
				var lz1 float64
				var g1 []float64
				withIterativeFrom(1, func() { x1, y1, lz1, g1 = starSolves(t, m) })
				if e := matErr(x1, x0); e > 1e-12 {
					t.Errorf("%s: X differs by %.3g", name, e)
				}
				if e := matErr(y1, y0); e > 1e-12 {
					t.Errorf("%s: Y differs by %.3g", name, e)
				}
				if e := relErr(lz1, lz0); e > 1e-12 {
					t.Errorf("%s: log Z_* %.17g, dense %.17g", name, lz1, lz0)
				}
				num, den := 0.0, 0.0
				for i := range g0 {
					num = math.Max(num, math.Abs(g1[i]-g0[i]))
					den = math.Max(den, math.Abs(g0[i]))
				}
				if num > 1e-12*den {
					t.Errorf("%s: gradient differs by %.3g of its largest entry", name, num/den)
				}
			}
		}
	}
}

// With gmres solves, the P_* loss's gradient agrees with finite
// differences, and a divergent model fails as on the dense path.
func TestIterativeStarGradient(t *testing.T) {
	m := testModel(t, 4, 3, 0.8, 33)
	p, err := NewParamsFrom(m)
	if err != nil {
		t.Fatal(err)
	}
	batch := [][]int{{0, 2, 1}, {1}, {}, {2, 0, 0, 1}}
	withIterativeFrom(1, func() {
		n, err := NewNLL(p, len(batch), 4, AllLengths)
		if err != nil {
			t.Fatal(err)
		}
		loss := func() (float64, error) { return n.Run(batch, nil) }
		grad := func(g *params.Params) error { _, err := n.Run(batch, g); return err }
		if err := graph.CheckGradients(p, loss, grad, graph.FDOptions{}); err != nil {
			t.Error(err)
		}
	})
	div := testModel(t, 4, 3, 1.3, 34)
	var errs [2]string
	for i, from := range []int{1 << 30, 1} {
		withIterativeFrom(from, func() {
			tr, err := NewTransfer(div)
			if err != nil {
				t.Fatal(err)
			}
			_, err = tr.LogZStar()
			if err == nil {
				t.Fatal("Z_* of a divergent model computed")
			}
			errs[i] = err.Error()
		})
	}
	if errs[0] != errs[1] || !strings.Contains(errs[1], "spectral radius") {
		t.Errorf("divergent model: dense %q, gmres %q", errs[0], errs[1])
	}
}

// gmres reports a one-line error rather than a wrong solution when it
// cannot converge in its iteration budget.
func TestGmresFailsLoudly(t *testing.T) {
	// op the identity: x - op(x) = b has no solution.
	b := []float64{1, 0, 0}
	_, err := gmres(b, func(in, out []float64) error {
		copy(out, in)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "did not converge") {
		t.Fatalf("singular system: got %v", err)
	}
}

// A sanity check of gmres on a small nonsymmetric system against its
// known solution.
func TestGmresSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 7
	a := make([]float64, n*n)
	for i := range a {
		a[i] = 0.2 * rng.NormFloat64()
	}
	want := make([]float64, n)
	for i := range want {
		want[i] = rng.NormFloat64()
	}
	op := func(in, out []float64) error {
		for i := 0; i < n; i++ {
			out[i] = dot(a[i*n:(i+1)*n], in)
		}
		return nil
	}
	b := make([]float64, n)
	_ = op(want, b)
	for i := range b {
		b[i] = want[i] - b[i]
	}
	got, err := gmres(b, op)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("x[%d] = %.15g, want %.15g", i, got[i], want[i])
		}
	}
}

// Closures of regexes other than Sigma*, nested ones included, give the
// same log Z_R by gmres as by the dense LU.
func TestIterativeRegexClosures(t *testing.T) {
	m := testModel(t, 6, 2, 0.7, 41)
	for _, pattern := range []string{`(01|1)*0?`, `0(1*0)*`, `(0(11)*)*1`} {
		r := mustRegex(t, pattern, "01")
		var got [2]float64
		for i, from := range []int{1 << 30, 1} {
			withIterativeFrom(from, func() {
				tr, err := NewTransfer(m)
				if err != nil {
					t.Fatal(err)
				}
				if got[i], err = tr.LogZ(r); err != nil {
					t.Fatal(err)
				}
			})
		}
		if relErr(got[1], got[0]) > 1e-12 {
			t.Errorf("%s: log Z_R %.17g by gmres, %.17g dense", pattern, got[1], got[0])
		}
	}
}
