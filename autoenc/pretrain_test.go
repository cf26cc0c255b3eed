package autoenc

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/layers/activation"
	"gonum.org/v1/gonum/mat"
)

// TestPretrainReadoutExact checks step iv of section 3: when the targets
// are an exact affine function of the hidden states, the least-squares
// readout recovers it.
func TestPretrainReadoutExact(t *testing.T) {
	for _, act := range []activation.Activation{activation.SymSigmoid, activation.Identity} {
		rng := rand.New(rand.NewPCG(10, uint64(act)))
		seqs := randomSeqs(rng, 3, 8, 6, 7, 9)
		m, err := ClosedForm(seqs, 3, 4)
		if err != nil {
			t.Fatal(err)
		}
		wantW := mat.NewDense(4, 2, []float64{1, -2, 0.5, 3, -1, 0, 2, 1})
		wantB := []float64{0.25, -0.75}
		probe := &RNNInit{W: mat.DenseCopyOf(m.A.T()), U: mat.DenseCopyOf(m.B.T()), Act: act}
		targets := make([][]float64, len(seqs))
		for q, s := range seqs {
			var y mat.Dense
			y.Mul(probe.States(s), wantW)
			r, c := y.Dims()
			for i := range r {
				for j := range c {
					y.Set(i, j, y.At(i, j)+wantB[j])
				}
			}
			targets[q] = y.RawMatrix().Data
		}
		init, err := Pretrain(m, seqs, targets, 2, PretrainConfig{Linear: act == activation.Identity, Literal: true})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(init.Out, wantW, 1e-8) {
			t.Errorf("act %d: Out = %v, want %v", act, mat.Formatted(init.Out), mat.Formatted(wantW))
		}
		for j, b := range wantB {
			if math.Abs(init.OutBias[j]-b) > 1e-8 {
				t.Errorf("act %d: OutBias[%d] = %g, want %g", act, j, init.OutBias[j], b)
			}
		}
		if !mat.Equal(init.W, m.A.T()) || !mat.Equal(init.U, m.B.T()) {
			t.Errorf("act %d: W, U are not A^T, B^T", act)
		}
	}
}

// TestPretrainScaledStates checks the rescaling of symmetric-sigmoid
// weights: W = (2/s) A^T and U = 2 rho B^T with s = RMS(y^rho) / StateRMS
// for the states y^rho of the autoencoder with recurrence rho B, and in the
// near-linear regime (inputs scaled by 1e-4) the network's states are
// y^rho / s. The zero config must give StateRMS 0.5 and rho 0.5.
func TestPretrainScaledStates(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	seqs := randomSeqs(rng, 3, 8, 6, 7)
	targets := randomSeqs(rng, 1, 8, 6, 7)
	m, err := ClosedForm(seqs, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg      PretrainConfig
		rms, rho float64
	}{{PretrainConfig{}, 0.5, 0.5}, {PretrainConfig{StateRMS: 0.3, Contraction: 0.6}, 0.3, 0.6},
		{PretrainConfig{Contraction: 1}, 0.5, 1}} {
		init, err := Pretrain(m, seqs, targets, 1, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		disc := &Model{K: m.K, P: m.P, A: m.A, B: mat.NewDense(m.P, m.P, nil)}
		disc.B.Scale(c.rho, m.B)
		var states []*mat.Dense
		sum, n := 0.0, 0
		for _, x := range seqs {
			y, err := disc.Encode(x)
			if err != nil {
				t.Fatal(err)
			}
			states = append(states, y)
			for _, v := range y.RawMatrix().Data {
				sum += v * v
				n++
			}
		}
		s := math.Sqrt(sum/float64(n)) / c.rms
		var w, u mat.Dense
		w.Scale(2/s, m.A.T())
		u.Scale(2*c.rho, m.B.T())
		if math.Abs(init.StateScale-s) > 1e-12*s || init.Contraction != c.rho ||
			!mat.EqualApprox(init.W, &w, 1e-14) || !mat.EqualApprox(init.U, &u, 1e-14) {
			t.Fatalf("%+v: W, U are not (2/s) A^T, 2 rho B^T (s = %g, want %g; rho = %g)", c.cfg, init.StateScale, s, init.Contraction)
		}
		const eps = 1e-4 // the cubic term of tanh stays below 1e-6 eps
		for q, x := range seqs {
			small := make([]float64, len(x))
			for i, v := range x {
				small[i] = eps * v
			}
			var y mat.Dense
			y.Scale(eps/s, states[q])
			if !mat.EqualApprox(init.States(small), &y, 1e-6*eps) {
				t.Fatalf("%+v: scaled network states differ from the discounted autoencoder's states / s", c.cfg)
			}
		}
	}
}

// TestPretrainRidge checks the ridge readout against the normal equations
// (H^T H + lambda D) sol = H^T T, D = diag(1, ..., 1, 0), lambda = alpha
// tr(H^T H) / p, solved independently on a small well-conditioned case.
func TestPretrainRidge(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 15))
	seqs := randomSeqs(rng, 3, 8, 6, 7)
	targets := randomSeqs(rng, 2, 8, 6, 7)
	m, err := ClosedForm(seqs, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	const alpha, tol = 0.3, 1e-10
	init, err := Pretrain(m, seqs, targets, 2, PretrainConfig{Ridge: alpha})
	if err != nil {
		t.Fatal(err)
	}
	var h, tg []float64
	for q, x := range seqs {
		st := init.States(x)
		T, _ := st.Dims()
		for i := range T {
			h = append(append(h, st.RawRowView(i)...), 1)
		}
		tg = append(tg, targets[q]...)
	}
	hm := mat.NewDense(len(h)/(m.P+1), m.P+1, h)
	tm := mat.NewDense(len(tg)/2, 2, tg)
	var hth, htt mat.Dense
	hth.Mul(hm.T(), hm)
	htt.Mul(hm.T(), tm)
	tr := 0.0
	for j := range m.P {
		tr += hth.At(j, j)
	}
	for j := range m.P {
		hth.Set(j, j, hth.At(j, j)+alpha*tr/float64(m.P))
	}
	var want mat.Dense
	if err := want.Solve(&hth, &htt); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(init.Out, want.Slice(0, m.P, 0, 2), tol) {
		t.Errorf("Out = %v, want %v", mat.Formatted(init.Out), mat.Formatted(want.Slice(0, m.P, 0, 2)))
	}
	for j := range 2 {
		if math.Abs(init.OutBias[j]-want.At(m.P, j)) > tol {
			t.Errorf("OutBias[%d] = %g, want %g", j, init.OutBias[j], want.At(m.P, j))
		}
	}
}

// TestStatesIdentityMatchesEncode checks that the linear RNN with W = A^T,
// U = B^T has exactly the autoencoder's states (eq. 2 in row form).
func TestStatesIdentityMatchesEncode(t *testing.T) {
	seqs := randomSeqs(rand.New(rand.NewPCG(11, 11)), 2, 5, 4)
	m, err := ClosedForm(seqs, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	r := &RNNInit{W: mat.DenseCopyOf(m.A.T()), U: mat.DenseCopyOf(m.B.T()), Act: activation.Identity}
	for _, s := range seqs {
		y, err := m.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(r.States(s), y, 1e-12) {
			t.Fatal("identity RNN states differ from Encode")
		}
	}
}

// TestPlattScale checks the calibration against a brute-force grid.
func TestPlattScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	pred := make([]float64, 400)
	y := make([]float64, 400)
	for i := range pred {
		if rng.Float64() < 0.3 {
			y[i] = 1
		}
		pred[i] = y[i]*0.6 + 0.1 + 0.3*rng.NormFloat64()
	}
	nll := func(g, b float64) float64 {
		s := 0.0
		for i, p := range pred {
			z := g*p + b
			s += math.Log1p(math.Exp(-math.Abs(z))) + max(z, 0) - y[i]*z
		}
		return s
	}
	g, b := plattScale(pred, y)
	best := math.Inf(1)
	for gx := 0.0; gx < 20; gx += 0.1 {
		for bx := -10.0; bx < 5; bx += 0.1 {
			best = min(best, nll(gx, bx))
		}
	}
	t.Logf("gamma %.4f beta %.4f: NLL %.6f, grid minimum %.6f", g, b, nll(g, b), best)
	if nll(g, b) > best+1e-9 {
		t.Errorf("NLL %.10g > grid minimum %.10g", nll(g, b), best)
	}
}

// TestPlattScaleSubsampledStart checks that on more than plattSample
// points the start from the subsample reaches the optimum that Newton's
// method reaches from gamma = 1, beta = 0, where the gradient vanishes.
func TestPlattScaleSubsampledStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	n := plattSample + 5000
	pred, y := make([]float64, n), make([]float64, n)
	for i := range pred {
		if rng.Float64() < 0.1 {
			y[i] = 1
		}
		pred[i] = y[i]*0.3 + 0.05 + 0.2*rng.NormFloat64()
	}
	g, b := plattScale(pred, y)
	g0, b0 := plattNewton(pred, y, 1, 0)
	pt := plattEval(pred, y, g, b)
	t.Logf("gamma %.8f beta %.8f (from (1, 0): %.8f %.8f), gradient (%.2g, %.2g)", g, b, g0, b0, pt.g1, pt.g2)
	if math.Abs(g-g0) > 1e-6*math.Abs(g0) || math.Abs(b-b0) > 1e-6*math.Abs(b0) {
		t.Errorf("subsampled start gives (%g, %g), Newton from (1, 0) (%g, %g)", g, b, g0, b0)
	}
	if math.Abs(pt.g1) > 1e-6*float64(n) || math.Abs(pt.g2) > 1e-6*float64(n) {
		t.Errorf("gradient (%g, %g) at the solution", pt.g1, pt.g2)
	}
}

func TestPretrainBadInput(t *testing.T) {
	seqs := randomSeqs(rand.New(rand.NewPCG(13, 13)), 2, 5, 4)
	m, err := ClosedForm(seqs, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	zeros := [][]float64{make([]float64, 10), make([]float64, 8)}
	tg := [][]float64{make([]float64, 5), make([]float64, 4)}
	for name, c := range map[string]struct {
		in, tg [][]float64
		out    int
	}{
		"singular H":    {zeros, tg, 1},
		"count":         {seqs, tg[:1], 1},
		"target length": {seqs, [][]float64{make([]float64, 3), make([]float64, 4)}, 1},
		"no outputs":    {seqs, tg, 0},
		"too few steps": {[][]float64{{1, 2}}, [][]float64{{1}}, 1},
	} {
		if _, err := Pretrain(m, c.in, c.tg, c.out, PretrainConfig{}); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	// Unscaled weights reach the rank check itself (zero states).
	if _, err := Pretrain(m, zeros, tg, 1, PretrainConfig{Literal: true}); err == nil || !strings.Contains(err.Error(), "rank-deficient") {
		t.Errorf("singular H, literal weights: %v, want a rank-deficiency error", err)
	}
	for name, cfg := range map[string]PretrainConfig{
		"negative state RMS":   {StateRMS: -1},
		"contraction above 1":  {Contraction: 1.5},
		"negative contraction": {Contraction: -0.5},
		"NaN ridge":            {Ridge: math.NaN()},
	} {
		if _, err := Pretrain(m, seqs, [][]float64{make([]float64, 5), make([]float64, 4)}, 1, cfg); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// TestReadoutBlocks checks the TSQR readout, with one block and with
// many (some shorter than the row width), against the normal equations
// of the ridge problem on a small well-conditioned case.
func TestReadoutBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	const rows, c, out, alpha = 300, 6, 3, 0.2
	h, tg := mat.NewDense(rows, c, nil), mat.NewDense(rows, out, nil)
	for i := range rows {
		for j := range c - 1 {
			h.Set(i, j, rng.NormFloat64())
		}
		h.Set(i, c-1, 1)
		for j := range out {
			tg.Set(i, j, rng.NormFloat64())
		}
	}
	var hth, htt mat.Dense
	hth.Mul(h.T(), h)
	htt.Mul(h.T(), tg)
	tr := 0.0
	for j := range c - 1 {
		tr += hth.At(j, j)
	}
	for j := range c - 1 {
		hth.Set(j, j, hth.At(j, j)+alpha*tr/float64(c-1))
	}
	var want mat.Dense
	if err := want.Solve(&hth, &htt); err != nil {
		t.Fatal(err)
	}
	for _, block := range []int{rows, 64, 7, 4} {
		got, err := readout(h, tg, alpha, block)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(got, &want, 1e-12) {
			t.Errorf("block %d: sol = %v, want %v", block, mat.Formatted(got), mat.Formatted(&want))
		}
	}
	if _, err := readout(h, tg, 0, 5); err != nil {
		t.Errorf("no ridge: %v", err)
	}
	h.Slice(0, rows, 2, 3).(*mat.Dense).Zero()
	if _, err := readout(h, tg, 0, 64); err == nil || !strings.Contains(err.Error(), "rank-deficient") {
		t.Errorf("zero column: err = %v, want rank-deficient", err)
	}
}
