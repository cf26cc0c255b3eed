package spectral

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// IHT and TIHT recover an exactly low-rank Hankel tensor from noiseless
// measurements, both with many examples and with fewer than d^l
// (underdetermined: least squares cannot, the rank constraint can).
func TestIHTRecoversLowRankHankel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := randRNN(rng, 2, 3, 1)
	const l = 4 // d^l = 81
	h, _ := ExactHankel(m, l)
	for _, n := range []int{60, 400} {
		s := sampleFrom(t, m, n, l, 0, rng)
		for _, tt := range []bool{false, true} {
			got, st, err := iterativeHT(s, 2, tt, IHTConfig{})
			if err != nil {
				t.Fatal(err)
			}
			e := diffNorm(got.Data, h.Data) / norm(h.Data)
			t.Logf("N = %d, TT %v: %d iterations, relative error %.2g", n, tt, st.Iterations, e)
			if e > 1e-6 {
				t.Fatalf("N = %d, TT %v: relative error %g after %d iterations", n, tt, e, st.Iterations)
			}
		}
	}
}

// The projections: IHT's output has balanced-matricisation rank <= R and
// TIHT's TT-ranks <= R, whatever the data.
func TestIHTProjectionRanks(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	m := randRNN(rng, 4, 3, 2)
	s := sampleFrom(t, m, 100, 3, 1, rng)
	hi, _, err := IHT(s, 2, IHTConfig{MaxIter: 20})
	if err != nil {
		t.Fatal(err)
	}
	var svd mat.SVD
	svd.Factorize(hi.Matrix(hi.Balanced()), mat.SVDNone)
	if sv := svd.Values(nil); sv[2] > 1e-10*sv[0] {
		t.Fatalf("IHT estimate has singular values %v, want rank 2", sv)
	}
	ht, _, err := TIHT(s, 2, IHTConfig{MaxIter: 20})
	if err != nil {
		t.Fatal(err)
	}
	tt, _ := TTSVD(ht.Data, []int{3, 3, 3, 2}, 0, 1e-10)
	for _, r := range tt.Ranks {
		if r > 2 {
			t.Fatalf("TIHT estimate has TT-ranks %v", tt.Ranks)
		}
	}
}

// The step rule needs no tuning across N: on the paper's random 2-RNN the
// residual decreases monotonically and TIHT reaches a small test error for
// N from 20 to 2,000.
func TestTIHTAcrossN(t *testing.T) {
	if testing.Short() {
		t.Skip("several TIHT runs")
	}
	rng := rand.New(rand.NewPCG(3, 3))
	p, _ := RandomTwoRNNProblem(RandomTwoRNNConfig{}, rng)
	for _, n := range []int{40, 2000} {
		cfg := IHTConfig{}
		if n < 100 {
			cfg.MaxIter = 300 // far from converged at N = 40; only monotonicity is checked
		}
		sp, err := p.Splits(TwoRNNSplitConfig{N: n, TestN: 300}, rng)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Learn(sp.Train, Config{Method: MethodTIHT, Rank: 5, IHT: cfg})
		if err != nil {
			t.Fatal(err)
		}
		mse, _ := res.Model.MSE(sp.Test)
		ratio := mse / sp.Test.OutputVar()
		t.Logf("N = %d: iterations %v, test MSE / variance %.3g, fallback %v", n, res.Iterations, ratio, res.ZeroFallback)
		if n == 2000 && ratio > 1e-6 {
			t.Fatalf("N = %d: test MSE / variance %g", n, ratio)
		}
		if res.TrainMSE > res.ZeroMSE {
			t.Fatalf("N = %d: training MSE %g above zero's %g", n, res.TrainMSE, res.ZeroMSE)
		}
	}
}
