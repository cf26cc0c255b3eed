package spectral

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rtnlab/rtn/datasets"
)

func sampleFrom(t *testing.T, m RNN, n, l int, noise float64, rng *rand.Rand) datasets.TwoRNNData {
	t.Helper()
	p := TwoRNNProblem{Name: "t", Target: m}
	s, err := p.Sample(n, l, noise, rng)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Eq. (2): f(x_1..x_l) = H^(l) .1 x_1 ... .l x_l, i.e. Y = X H<<l,1>>.
func TestDesignTimesHankelIsOutput(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	m := randRNN(rng, 3, 3, 2)
	for l := 1; l <= 4; l++ {
		h, err := ExactHankel(m, l)
		if err != nil {
			t.Fatal(err)
		}
		s := sampleFrom(t, m, 20, l, 0, rng)
		x, err := Design(s)
		if err != nil {
			t.Fatal(err)
		}
		var y mat.Dense
		y.Mul(x, h.Matrix(l))
		for i, v := range y.RawMatrix().Data {
			if !closeRel(v, s.Y[i], 1e-11) {
				t.Fatalf("l = %d entry %d: X H = %g, f = %g", l, i, v, s.Y[i])
			}
		}
	}
}

// Theorem 3 on exact Hankel tensors: the recovered 2-RNN computes f.
func TestRecoverFromExactHankel(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, c := range []struct{ n, d, p, L int }{{3, 3, 2, 1}, {5, 3, 2, 2}, {2, 2, 1, 1}, {4, 2, 3, 2}} {
		m := randRNN(rng, c.n, c.d, c.p)
		var hs [3]Hankel
		for k, l := range []int{c.L, 2 * c.L, 2*c.L + 1} {
			var err error
			if hs[k], err = ExactHankel(m, l); err != nil {
				t.Fatal(err)
			}
		}
		got, err := Recover(hs[0], hs[1], hs[2], c.n)
		if err != nil {
			t.Fatal(err)
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
		if _, err := Recover(hs[0], hs[1], hs[2], c.n+1); err == nil && c.n+1 <= hs[0].Rows() {
			t.Fatalf("%+v: rank above the Hankel rank accepted", c)
		}
	}
}

func TestRecoverBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	m := randRNN(rng, 2, 2, 1)
	h1, _ := ExactHankel(m, 1)
	h2, _ := ExactHankel(m, 2)
	h3, _ := ExactHankel(m, 3)
	for _, c := range []struct {
		name, want string
		err        error
	}{
		{"rank too large", "rank 3 out of range", func() error { _, e := Recover(h1, h2, h3, 3); return e }()},
		{"wrong lengths", "lengths", func() error { _, e := Recover(h1, h3, h3, 1); return e }()},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, c.err, c.want)
		}
	}
}

// The minimum-norm solution when N < d^l: interpolates the data and equals
// X^T (X X^T)^-1 Y.
func TestLeastSquaresUnderdetermined(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	m := randRNN(rng, 3, 3, 2)
	s := sampleFrom(t, m, 10, 3, 0.1, rng)
	h, err := LeastSquares(s)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := Design(s)
	var xxt, z, want mat.Dense
	xxt.Mul(x, x.T())
	if err := z.Solve(&xxt, targets(s)); err != nil {
		t.Fatal(err)
	}
	want.Mul(x.T(), &z)
	for i, v := range want.RawMatrix().Data {
		if !closeRel(h.Data[i], v, 1e-9) {
			t.Fatalf("entry %d: %g, want %g", i, h.Data[i], v)
		}
	}
}

// The acceptance check of the issue on the paper's random 2-RNN: noiseless
// least squares with N = 2 d^(2L+1) gives test MSE (length 6) below 1e-10
// times the test output variance.
func TestLearnLeastSquaresNoiseless(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	p, err := RandomTwoRNNProblem(RandomTwoRNNConfig{}, rng)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := p.Splits(TwoRNNSplitConfig{N: 2 * 243}, rng)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Learn(sp.Train, Config{Method: MethodLS, Rank: 5})
	if err != nil {
		t.Fatal(err)
	}
	mse, err := res.Model.MSE(sp.Test)
	if err != nil {
		t.Fatal(err)
	}
	v := sp.Test.OutputVar()
	t.Logf("LS, N = 486: test MSE %.3g, output variance %.3g, ratio %.3g", mse, v, mse/v)
	if res.ZeroFallback || mse > 1e-10*v {
		t.Fatalf("test MSE %g (fallback %v), want < 1e-10 * %g", mse, res.ZeroFallback, v)
	}
}

// The aberrant-estimate rule: an estimate that fits the length-(2L+1) set
// worse than the zero function is replaced by zero, with a reason; one
// that fits better is kept. A numerical breakdown (H^(2L) = 0 here) also
// falls back.
func TestLearnZeroFallback(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	m := randRNN(rng, 2, 2, 1)
	s := sampleFrom(t, m, 50, 3, 0, rng)
	zero := meanSquare(s.Y)
	bad := m
	bad.Omega = []float64{3 * m.Omega[0], 3 * m.Omega[1]} // MSE = 4 mean(f^2)
	if r := judge(Result{ZeroMSE: zero}, bad, s); !r.ZeroFallback || r.Reason == "" || r.TrainMSE != zero {
		t.Fatalf("3 f kept: %+v", r)
	}
	if r := judge(Result{ZeroMSE: zero}, m, s); r.ZeroFallback || r.TrainMSE > 1e-20 {
		t.Fatalf("the target itself rejected: %+v", r)
	}
	var train [3]datasets.TwoRNNData
	for k, l := range []int{1, 2, 3} {
		train[k] = sampleFrom(t, m, 20, l, 0, rng)
	}
	clear(train[1].Y)
	res, err := Learn(train, Config{Method: MethodLS, Rank: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !res.ZeroFallback || !strings.Contains(res.Reason, "numerical rank") {
		t.Fatalf("H^(2L) = 0 did not fall back: %+v", res)
	}
	for _, v := range res.Model.Omega {
		if v != 0 {
			t.Fatal("fallback model is not zero")
		}
	}
}

func TestLearnBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	m := randRNN(rng, 2, 2, 1)
	var train [3]datasets.TwoRNNData
	for k, l := range []int{1, 2, 3} {
		train[k] = sampleFrom(t, m, 10, l, 0, rng)
	}
	bad := train
	bad[2] = train[1]
	for _, c := range []struct {
		name, want string
		train      [3]datasets.TwoRNNData
		cfg        Config
	}{
		{"lengths", "lengths", bad, Config{Rank: 1}},
		{"rank", "rank 3 out of range", train, Config{Rank: 3}},
		{"method", "unknown method", train, Config{Rank: 1, Method: Method(9)}},
	} {
		_, err := Learn(c.train, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// ChooseRank finds the number of states from exact Hankel tensors and
// from noiseless data, and Learn uses it when no rank is given.
func TestChooseRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	for n := 1; n <= 4; n++ {
		m := randRNN(rng, n, 3, 2)
		h, _ := ExactHankel(m, 4)
		if r, err := ChooseRank(h); err != nil || r != n {
			t.Fatalf("n = %d: ChooseRank %d (%v)", n, r, err)
		}
	}
	m := randRNN(rng, 3, 3, 2)
	var train [3]datasets.TwoRNNData
	for k, l := range []int{2, 4, 5} {
		train[k] = sampleFrom(t, m, 500, l, 0, rng)
	}
	res, err := Learn(train, Config{Method: MethodLS})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model.States != 3 {
		t.Fatalf("Learn chose %d states, want 3", res.Model.States)
	}
	if _, err := ChooseRank(Hankel{Len: 3, In: 1, Out: 1, Data: []float64{1}}); err == nil {
		t.Fatal("odd length accepted")
	}
}

func TestParseMethod(t *testing.T) {
	for _, m := range []Method{MethodTIHT, MethodLS, MethodIHT, MethodNuclear} {
		if got, err := ParseMethod(m.String()); err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %v, %v", m, got, err)
		}
	}
	if _, err := ParseMethod("svd"); err == nil {
		t.Error("an unknown method was accepted")
	}
	if (Config{}).Method != MethodTIHT {
		t.Error("the zero Method is not TIHT")
	}
}
