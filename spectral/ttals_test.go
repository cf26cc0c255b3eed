package spectral

import (
	"math/rand/v2"
	"testing"
)

// RecoverTT on the TT-SVDs of exact Hankel tensors gives a 2-RNN computing
// the target, like the dense Recover.
func TestRecoverTTFromExactHankel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct{ n, d, p, L int }{{3, 3, 2, 1}, {4, 3, 2, 2}, {2, 2, 1, 2}} {
		m := randRNN(rng, c.n, c.d, c.p)
		var tts [3]TT
		for k, l := range []int{c.L, 2 * c.L, 2*c.L + 1} {
			h, _ := ExactHankel(m, l)
			dims := make([]int, l+1)
			for i := range l {
				dims[i] = c.d
			}
			dims[l] = c.p
			var err error
			if tts[k], err = TTSVD(h.Data, dims, 0, 1e-13); err != nil {
				t.Fatal(err)
			}
		}
		got, err := RecoverTT(tts[0], tts[1], tts[2], c.n)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		for k := 1; k <= 7; k++ {
			x := randVec(rng, k*c.d, 1)
			a, b := got.Eval(x), m.Eval(x)
			for o := range a {
				if !closeRel(a[o], b[o], 1e-9) {
					t.Fatalf("%+v length %d: recovered %g, target %g", c, k, a[o], b[o])
				}
			}
		}
	}
}

// ALS recovers an exactly low-TT-rank Hankel tensor from noiseless
// examples, with all examples and with mini-batches, and LearnTT learns
// the 2-RNN end to end.
func TestALSRecoversHankel(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	m := randRNN(rng, 2, 3, 2)
	h, _ := ExactHankel(m, 4)
	s := sampleFrom(t, m, 300, 4, 0, rng)
	for _, batch := range []int{0, 150} {
		tt, st, err := ALS(s, 2, ALSConfig{Batch: batch, Tol: 1e-9}, rng)
		if err != nil {
			t.Fatal(err)
		}
		e := diffNorm(tt.Dense(), h.Data) / norm(h.Data)
		t.Logf("batch %d: %d sweeps, residual %.3g, relative error %.3g", batch, st.Sweeps, st.Residual, e)
		if e > 1e-6 {
			t.Fatalf("batch %d: relative error %g", batch, e)
		}
	}
	p := TwoRNNProblem{Name: "t", Target: m}
	sp, err := p.Splits(TwoRNNSplitConfig{N: 300, TestN: 200}, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, boot := range []bool{false, true} {
		res, err := LearnTT(sp.Train, 2, ALSConfig{Tol: 1e-9, Bootstrap: boot}, rng)
		if err != nil {
			t.Fatal(err)
		}
		mse, _ := res.Model.MSE(sp.Test)
		if ratio := mse / sp.Test.OutputVar(); res.ZeroFallback || ratio > 1e-8 {
			t.Fatalf("LearnTT (bootstrap %v): test MSE / variance %g (fallback %v, %s)", boot, ratio, res.ZeroFallback, res.Reason)
		}
	}
}

// The bootstrap initialisation alone is exact on noiseless data: the
// prefix and suffix cores of H^(2) carry over to H^(4) and the middle
// supercore is a linear least-squares fit.
func TestBootstrapExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	m := randRNN(rng, 2, 3, 2)
	h2, _ := ExactHankel(m, 2)
	short, err := TTSVD(h2.Data, []int{3, 3, 2}, 0, 1e-13)
	if err != nil {
		t.Fatal(err)
	}
	s := sampleFrom(t, m, 200, 4, 0, rng)
	got, err := bootstrapTT(short, s, 1, 1, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	h4, _ := ExactHankel(m, 4)
	if e := diffNorm(got.Dense(), h4.Data) / norm(h4.Data); e > 1e-9 {
		t.Fatalf("bootstrap of H^(4) off by %g", e)
	}
}

// TT-TIHT recovers a low-TT-rank Hankel tensor from noiseless mini-batches
// and LearnTTTIHT learns the 2-RNN; the kernel identity behind its step
// holds: K_ij = <x_i (x) ..., x_j (x) ...>.
func TestTTTIHT(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	m := randRNN(rng, 2, 3, 2)
	h, _ := ExactHankel(m, 3)
	s := sampleFrom(t, m, 500, 3, 0, rng)
	x, _ := Design(s)
	k := kronKernel(s)
	for _, ij := range [][2]int{{0, 0}, {3, 7}, {10, 2}} {
		want := 0.0
		for c := range 27 {
			want += x.At(ij[0], c) * x.At(ij[1], c)
		}
		if !closeRel(k.At(ij[0], ij[1]), want, exactTol) {
			t.Fatalf("kernel %v: %g, want %g", ij, k.At(ij[0], ij[1]), want)
		}
	}
	got, st, err := TTTIHT(s, 2, TTTIHTConfig{Tol: 1e-8}, rng)
	if err != nil {
		t.Fatal(err)
	}
	if e := diffNorm(got.Dense(), h.Data) / norm(h.Data); e > 1e-6 {
		t.Fatalf("relative error %g after %d iterations", e, st.Iterations)
	}
	p := TwoRNNProblem{Name: "t", Target: m}
	sp, err := p.Splits(TwoRNNSplitConfig{N: 500, L: 1, TestN: 200}, rng)
	if err != nil {
		t.Fatal(err)
	}
	res, err := LearnTTTIHT(sp.Train, 2, TTTIHTConfig{Tol: 1e-8}, rng)
	if err != nil {
		t.Fatal(err)
	}
	mse, _ := res.Model.MSE(sp.Test)
	if ratio := mse / sp.Test.OutputVar(); res.ZeroFallback || ratio > 1e-8 {
		t.Fatalf("LearnTTTIHT: test MSE / variance %g (fallback %v)", ratio, res.ZeroFallback)
	}
}
