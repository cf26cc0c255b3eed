package autoenc

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestPretrainReadoutExact checks step iv of section 3: when the targets
// are an exact affine function of the hidden states, the least-squares
// readout recovers it.
func TestPretrainReadoutExact(t *testing.T) {
	for _, act := range []Activation{SymSigmoid, Identity} {
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
		init, err := Pretrain(m, seqs, targets, 2, PretrainConfig{Act: act, Literal: true})
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

// TestPretrainScaledStates checks the default rescaling of symmetric-
// sigmoid weights: W = (2/s) A^T, U = 2 B^T, and in the near-linear regime
// (inputs scaled by 1e-3) the network's states are the autoencoder's
// divided by s.
func TestPretrainScaledStates(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	seqs := randomSeqs(rng, 3, 8, 6, 7)
	targets := randomSeqs(rng, 1, 8, 6, 7)
	m, err := ClosedForm(seqs, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	init, err := Pretrain(m, seqs, targets, 1, PretrainConfig{})
	if err != nil {
		t.Fatal(err)
	}
	s := init.StateScale
	var w, u mat.Dense
	w.Scale(2/s, m.A.T())
	u.Scale(2, m.B.T())
	if !mat.EqualApprox(init.W, &w, 1e-14) || !mat.EqualApprox(init.U, &u, 1e-14) || s <= 1 {
		t.Fatalf("W, U are not (2/s) A^T, 2 B^T (s = %g)", s)
	}
	const eps = 1e-3
	for _, x := range seqs {
		small := make([]float64, len(x))
		for i, v := range x {
			small[i] = eps * v
		}
		y, err := m.Encode(x)
		if err != nil {
			t.Fatal(err)
		}
		y.Scale(eps/s, y)
		if !mat.EqualApprox(init.States(small), y, 1e-6*eps) {
			t.Fatal("scaled network states differ from the autoencoder's states / s")
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
	r := &RNNInit{W: mat.DenseCopyOf(m.A.T()), U: mat.DenseCopyOf(m.B.T()), Act: Identity}
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
}
