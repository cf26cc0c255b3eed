package pcnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
)

// stepper runs the alternating scheme of section 2 on one model: even
// steps move the writing weights, odd steps the transition weights, each
// with its own rate under the accept/reject control (x1.1 on success, /2
// and undo on failure, a non-finite direction counting as a failure).
type stepper struct {
	m    *Model
	s    datasets.Stream
	eta  [2]float64
	wm   WritingMethod
	tm   TransitionMethod
	damp Damping
}

func (st *stepper) step(t *testing.T, k int) {
	t.Helper()
	m, s := st.m, st.s
	tr, err := m.Forward(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := tr.LogLik
	dir := m.P.Like()
	if k%2 == 0 {
		err = m.WritingDirection(s, tr, st.wm, st.damp, dir)
	} else {
		grad := m.P.Like()
		B := make([]float64, (tr.T+1)*m.Net.N)
		if err := m.Backward(s, tr, grad, B); err != nil {
			t.Fatal(err)
		}
		_, err = m.TransitionDirection(s, tr, B, grad, st.tm, st.damp, dir)
	}
	if err != nil {
		st.eta[k%2] /= 2
		return
	}
	saved := m.P.Clone()
	for _, name := range m.P.Names() {
		p, d := m.P.Data(name), dir.Data(name)
		for i := range p {
			p[i] += st.eta[k%2] * d[i]
		}
	}
	if after, err := m.LogLik(s); err != nil || !(after >= before) {
		_ = m.P.CopyFrom(saved)
		st.eta[k%2] /= 2
		return
	}
	st.eta[k%2] *= 1.1
}

// invarianceTol is the bar for the invariant metrics: 1e-6
// relative over 20 steps with negligible damping.
const invarianceTol = 1e-6

// TestInvariance is the paper's central claim (sections 1.2, 3.8): a tanh
// network and the logistic network computing the same function follow the
// same trajectory under the invariant metrics (damping made negligible),
// while DH + FB drifts apart.
func TestInvariance(t *testing.T) {
	tiny := Damping{Writing: 1e-12, Transition: 1e-12}
	cases := []struct {
		kind      Kind
		wm        WritingMethod
		tm        TransitionMethod
		invariant bool
	}{
		{PCNN, QDH, RBPM, true}, {PCNN, QDH, RUTSD, true}, {PCNN, QDH, QDRBPM, true}, {PCNN, QDH, QDRUTSD, true},
		{CNN, QDH, RBPM, true}, {CNN, QDH, RUTSD, true}, {CNN, QDH, QDRBPM, true},
		{RNN, QDH, QDRBPM, true}, {RNN, QDH, QDRUTSD, true},
		{PCNN, DH, FB, false}, {CNN, DH, FB, false}, {RNN, DH, FB, false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s+%s", c.kind, c.wm, c.tm), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(c.kind)))
			s := randomSeq(rng, 80, 3)
			s.Mask = nil
			net, _ := RandomNetwork(4, 3, rng)
			th, _ := New(c.kind, activation.Tanh, 3, net)
			if err := th.Init(s, rng); err != nil {
				t.Fatal(err)
			}
			lg, _ := th.Reparametrize(activation.Logistic)
			a0, _ := th.LogLik(s)
			st := []*stepper{
				{m: th, s: s, eta: [2]float64{0.25, 0.25}, wm: c.wm, tm: c.tm, damp: tiny},
				{m: lg, s: s, eta: [2]float64{0.25, 0.25}, wm: c.wm, tm: c.tm, damp: tiny},
			}
			var worst float64
			for k := range 20 {
				st[0].step(t, k)
				st[1].step(t, k)
				a, _ := th.LogLik(s)
				b, _ := lg.LogLik(s)
				worst = math.Max(worst, math.Abs(a-b)/math.Abs(a))
			}
			a1, _ := th.LogLik(s)
			t.Logf("log-likelihood %.4f -> %.4f; largest relative tanh/logistic gap over 20 steps: %.3g", a0, a1, worst)
			if c.invariant && !(worst < invarianceTol) {
				t.Fatalf("invariant method drifted: %.3g relative", worst)
			}
			if !c.invariant && !(worst > 1e-3) {
				t.Fatalf("non-invariant method stayed within %.3g: the test cannot tell", worst)
			}
		})
	}
}

// TestRBPMModulusDefinition checks eq. (74) against its definition: the
// modulus at (i, t) is s'(V_i^t)^2 times the pi_t-variance of w_i plus
// sum_j (dV_j^{t+1}/dV_i^t)^2 m~_j^{t+1}, the Jacobian taken by finite
// differences of one step of the network.
func TestRBPMModulusDefinition(t *testing.T) {
	for _, kind := range []Kind{RNN, CNN, PCNN} {
		t.Run(kind.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(12, uint64(kind)))
			const n, T, at = 3, 7, 3
			m := randomModel(t, kind, activation.Logistic, n, 2, 3, rng)
			s := randomSeq(rng, T, 3)
			tr, _ := m.Forward(s, nil)
			B := make([]float64, (T+1)*n)
			if err := m.Backward(s, tr, m.P.Like(), B); err != nil {
				t.Fatal(err)
			}
			mt := m.Moduli(s, tr, B, true)
			// One step from V^at over the symbol x_at: the suffix model.
			sm := m.Clone()
			suffix := datasets.Stream{X: s.X[at : at+2]}
			next := func() []float64 {
				tr2, err := sm.Forward(suffix, nil)
				if err != nil {
					t.Fatal(err)
				}
				return append([]float64(nil), tr2.V[n:2*n]...)
			}
			v0 := sm.P.Data("V0")
			copy(v0, tr.V[at*n:(at+1)*n])
			const h = 1e-6
			for i := range n {
				x0 := v0[i]
				v0[i] = x0 + h
				vp := next()
				v0[i] = x0 - h
				vm := next()
				v0[i] = x0
				a := tr.Act[at*(n+1)+i+1]
				ds := m.Act.DerivOut(a, 0)
				pi := tr.Pi[at*3 : at*3+3]
				w := m.P.Data("W")[(i+1)*3 : (i+2)*3]
				var mean, sq float64
				for y := range 3 {
					mean += pi[y] * w[y]
					sq += pi[y] * w[y] * w[y]
				}
				want := 0.0
				if s.Mask[at] {
					want = ds * ds * (sq - mean*mean)
				}
				for j := range n {
					jac := (vp[j] - vm[j]) / (2 * h)
					want += jac * jac * mt[(at+1)*n+j]
				}
				if got := mt[at*n+i]; math.Abs(got-want) > 1e-7*math.Max(1, math.Abs(want)) {
					t.Errorf("m~_%d^%d = %v, definition gives %v", i+1, at, got, want)
				}
			}
		})
	}
}

// TestFullMetricSolvesNormalEquations rebuilds M~^(jy) of eq. (24) with
// dense loops and checks that the RBPM direction G satisfies
// (M~ + eps I) G = G^(jy) for every block.
func TestFullMetricSolvesNormalEquations(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	const n, T = 4, 40
	m := randomModel(t, PCNN, activation.Tanh, n, 3, 3, rng)
	s := randomSeq(rng, T, 3)
	tr, _ := m.Forward(s, nil)
	grad := m.P.Like()
	B := make([]float64, (T+1)*n)
	if err := m.Backward(s, tr, grad, B); err != nil {
		t.Fatal(err)
	}
	dir := m.P.Like()
	const eps = 0.3
	if _, err := m.TransitionDirection(s, tr, B, grad, RBPM, Damping{Transition: eps}, dir); err != nil {
		t.Fatal(err)
	}
	mt := m.Moduli(s, tr, B, true)
	d, g := dir.Data("tau"), grad.Data("tau")
	for j := 1; j <= n; j++ {
		in, o := m.Net.In[j-1], m.Off[j-1]
		L := len(in)
		for y := range 3 {
			M := mat.NewDense(L, L, nil)
			for tt := range T {
				if s.X[tt] != y {
					continue
				}
				for k := range L {
					for k2 := range L {
						M.Set(k, k2, M.At(k, k2)+tr.Act[tt*(n+1)+in[k]]*tr.Act[tt*(n+1)+in[k2]]*mt[(tt+1)*n+j-1])
					}
				}
			}
			for k := range L {
				var r float64
				for k2 := range L {
					r += M.At(k, k2) * d[(o+k2)*3+y]
				}
				r += eps * d[(o+k)*3+y]
				if math.Abs(r-g[(o+k)*3+y]) > 1e-9*math.Max(1, math.Abs(g[(o+k)*3+y])) {
					t.Fatalf("block (%d, %d) row %d: (M + eps I) G = %v, want %v", j, y, k, r, g[(o+k)*3+y])
				}
			}
		}
	}
}

// TestQuasiDiagonalIsExactForOneInput: with a single unit besides the
// bias, the quasi-diagonal inverse (eqs. 18-19) is the exact inverse of
// the per-symbol 2x2 Hessian block [h00 h01; h01 h11].
func TestQuasiDiagonalIsExactForOneInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	m := randomModel(t, PCNN, activation.Tanh, 1, 1, 3, rng)
	s := randomSeq(rng, 30, 3)
	tr, _ := m.Forward(s, nil)
	dir := m.P.Like()
	damp := Damping{Writing: 2}
	if err := m.WritingDirection(s, tr, QDH, damp, dir); err != nil {
		t.Fatal(err)
	}
	grad := m.P.Like()
	if err := m.Backward(s, tr, grad, nil); err != nil {
		t.Fatal(err)
	}
	f := freqs(s, 3)
	for y := range 3 {
		H := mat.NewSymDense(2, nil)
		for tt := range 30 {
			if !s.Mask[tt] {
				continue
			}
			p := tr.Pi[tt*3+y]
			a := tr.Act[tt*2+1]
			H.SetSym(0, 0, H.At(0, 0)+p*(1-p))
			H.SetSym(0, 1, H.At(0, 1)+a*p*(1-p))
			H.SetSym(1, 1, H.At(1, 1)+a*a*p*(1-p))
		}
		eps := 2 * (f[y] + 0x1p-52)
		H.SetSym(0, 0, H.At(0, 0)+eps)
		H.SetSym(1, 1, H.At(1, 1)+eps)
		var x mat.VecDense
		g := mat.NewVecDense(2, []float64{grad.Data("W")[y], grad.Data("W")[3+y]})
		if err := x.SolveVec(H, g); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if got := dir.Data("W")[i*3+y]; math.Abs(got-x.AtVec(i)) > 1e-9*math.Max(1, math.Abs(x.AtVec(i))) {
				t.Errorf("w_%d%d: quasi-diagonal %v, exact %v", i, y, got, x.AtVec(i))
			}
		}
	}
}

func TestTransitionBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 15))
	m := randomModel(t, RNN, activation.Tanh, 3, 2, 3, rng)
	s := randomSeq(rng, 10, 3)
	tr, _ := m.Forward(s, nil)
	grad := m.P.Like()
	B := make([]float64, 11*3)
	_ = m.Backward(s, tr, grad, B)
	if _, err := m.TransitionDirection(s, tr, B, grad, RBPM, Damping{}, m.P.Like()); err == nil {
		t.Error("full RBPM accepted for the rnn")
	}
	if _, err := m.TransitionDirection(s, tr, B[:5], grad, QDRBPM, Damping{}, m.P.Like()); err == nil {
		t.Error("short B accepted")
	}
	if err := m.WritingDirection(s, tr, QDH, Damping{}, graph.NewParams()); err == nil {
		t.Error("direction set of another layout accepted")
	}
}
