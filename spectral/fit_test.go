package spectral

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rtnlab/rtn/datasets"
)

// basisTol bounds the relative error of an exact (noiseless) recovery.
const basisTol = 1e-8

// sameFunction checks that a and b agree on random sequences of lengths
// 1..8 (brute force: the 2-RNNs may differ by a change of basis).
func sameFunction(t *testing.T, a, b RNN, rng *rand.Rand) {
	t.Helper()
	for l := 1; l <= 8; l++ {
		for range 5 {
			x := randVec(rng, l*a.In, 1)
			ya, yb := a.Eval(x), b.Eval(x)
			for o := range ya {
				if !closeRel(ya[o], yb[o], basisTol) {
					t.Fatalf("length %d output %d: %g vs %g", l, o, ya[o], yb[o])
				}
			}
		}
	}
}

func exactHankels(t *testing.T, m RNN, b Basis) map[int]Hankel {
	t.Helper()
	hs := map[int]Hankel{}
	for _, l := range b.Lengths() {
		h, err := ExactHankel(m, l)
		if err != nil {
			t.Fatal(err)
		}
		hs[l] = h
	}
	return hs
}

// RecoverBasis on exact Hankel tensors gives the target's function for
// several bases, and agrees with Recover on the basis {L} x {L}.
func TestRecoverBasisExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	m := randRNN(rng, 4, 2, 2)
	for _, b := range []Basis{
		{Prefix: []int{2}, Suffix: []int{2}},
		{Prefix: []int{1, 2}, Suffix: []int{1, 2}},
		{Prefix: []int{1, 2}, Suffix: []int{1}},
		{Prefix: []int{3}, Suffix: []int{1}},
	} {
		got, err := RecoverBasis(exactHankels(t, m, b), b, 4)
		if err != nil {
			t.Fatalf("%v: %v", b, err)
		}
		sameFunction(t, got, m, rng)
	}
	hs := exactHankels(t, m, Basis{Prefix: []int{2}, Suffix: []int{2}})
	old, err := Recover(hs[2], hs[4], hs[5], 4)
	if err != nil {
		t.Fatal(err)
	}
	sameFunction(t, old, m, rng)
	var re *RankError
	if _, err := RecoverBasis(exactHankels(t, m, Basis{Prefix: []int{1}, Suffix: []int{1}}), Basis{Prefix: []int{1}, Suffix: []int{1}}, 3); !errors.As(err, &re) || re.Max != 2 {
		t.Fatalf("rank 3 on 2 prefixes: %v", err)
	}
}

func TestChooseBasis(t *testing.T) {
	for _, c := range []struct {
		usable []int
		d, p   int
		rank   int
		want   string
	}{
		{[]int{2, 4, 5}, 3, 2, 5, "prefixes {2} x suffixes {2}"},
		{[]int{1, 2, 3, 4, 5}, 2, 1, 0, "prefixes {1,2} x suffixes {1,2}"},
		{[]int{1, 2, 3, 4}, 2, 2, 3, "prefixes {1,2} x suffixes {1}"},
		{[]int{1, 2, 3, 5, 6, 7}, 2, 1, 0, "prefixes {2,3} x suffixes {3}"},
	} {
		b, err := ChooseBasis(c.usable, c.d, c.p, c.rank)
		if err != nil || b.String() != c.want {
			t.Errorf("%v: %v, %v, want %s", c.usable, b, err, c.want)
		}
		for _, l := range b.Lengths() {
			if !slices.Contains(c.usable, l) {
				t.Errorf("%v: basis %v needs length %d", c.usable, b, l)
			}
		}
	}
	var re *RankError
	if _, err := ChooseBasis([]int{1, 2, 3}, 2, 1, 3); !errors.As(err, &re) || re.Max != 2 {
		t.Errorf("rank 3 with d = 2 and lengths 1..3: %v", err)
	}
	if _, err := ChooseBasis([]int{1, 5}, 2, 1, 0); err == nil {
		t.Error("lengths 1 and 5 gave a basis")
	}
}

// mixedSample draws counts[l] noiseless sequences of each length l.
func mixedSample(t *testing.T, m RNN, counts map[int]int, rng *rand.Rand) datasets.IOData {
	t.Helper()
	var sets []datasets.TwoRNNData
	for l := 1; l <= 10; l++ {
		if counts[l] > 0 {
			sets = append(sets, sampleFrom(t, m, counts[l], l, 0, rng))
		}
	}
	s, err := datasets.IODataFrom(sets, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Interleave the lengths: Fit must not depend on the file order.
	p := rng.Perm(s.N())
	return s.Subset(p)
}

// Fit on noiseless sequences of mixed lengths (not L, 2L, 2L+1) recovers
// the target exactly, with least squares and with the rank chosen from
// the data.
func TestFitMixedLengthsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2))
	m := randRNN(rng, 3, 2, 2)
	for _, counts := range []map[int]int{
		{1: 10, 2: 12, 3: 20, 4: 40},
		{1: 5, 2: 10, 3: 20, 4: 40, 5: 70, 6: 9},
	} {
		train := mixedSample(t, m, counts, rng)
		for _, rank := range []int{3, 0} {
			res, err := Fit(train, FitConfig{Config: Config{Method: MethodLS, Rank: rank}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Recipe || res.ZeroFallback || res.Model.States != 3 {
				t.Fatalf("counts %v rank %d: %+v", counts, rank, res)
			}
			sameFunction(t, res.Model, m, rng)
			if res.TrainMSE > 1e-16 {
				t.Fatalf("train MSE %g", res.TrainMSE)
			}
		}
	}
}

// With lengths exactly L, 2L, 2L+1 Fit is Learn, bit for bit.
func TestFitRecipeIsLearn(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 3))
	m := randRNN(rng, 3, 2, 1)
	var train [3]datasets.TwoRNNData
	for k, l := range []int{2, 4, 5} {
		train[k] = sampleFrom(t, m, 40, l, 0.1, rng)
	}
	want, err := Learn(train, Config{Method: MethodTIHT, Rank: 3})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := datasets.IODataFrom(train[:], nil)
	got, err := Fit(all, FitConfig{Config: Config{Method: MethodTIHT, Rank: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Recipe || got.TrainMSE != want.TrainMSE || !slices.Equal(got.Model.A, want.Model.A) {
		t.Fatalf("recipe %v, train MSE %g vs %g", got.Recipe, got.TrainMSE, want.TrainMSE)
	}
	var re *RankError
	if _, err := Fit(all, FitConfig{Config: Config{Rank: 5}}); !errors.As(err, &re) || re.Max != 4 {
		t.Fatalf("rank 5 > d^L = 4: %v", err)
	}
	test := sampleFrom(t, m, 30, 6, 0, rng)
	io, _ := datasets.IODataFrom([]datasets.TwoRNNData{test}, nil)
	a, _ := want.Model.MSE(test)
	b, _ := want.Model.MSEIO(io)
	if math.Float64bits(a) != math.Float64bits(b) {
		t.Fatalf("MSEIO %g != MSE %g on one length", b, a)
	}
	pred, err := want.Model.PredictIO(all)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range all.X {
		if y := want.Model.Eval(x); !closeRel(pred[i], y[0], 1e-12) {
			t.Fatalf("PredictIO sequence %d: %g vs %g", i, pred[i], y[0])
		}
	}
}

// Low-rank recovery (TIHT) on mixed lengths, fewer sequences than
// unknowns at length 4, converges to the target (to IHT's tolerance).
func TestFitMixedTIHT(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	m := randRNN(rng, 2, 2, 1)
	train := mixedSample(t, m, map[int]int{1: 30, 2: 30, 3: 30, 4: 30, 5: 40}, rng)
	res, err := Fit(train, FitConfig{Config: Config{Method: MethodTIHT, Rank: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ZeroFallback || res.Basis.String() != "prefixes {1,2} x suffixes {1,2}" {
		t.Fatalf("%+v", res)
	}
	test := mixedSample(t, m, map[int]int{7: 50}, rng)
	mse, _ := res.Model.MSEIO(test)
	if mse > 1e-8*meanSquare(test.Y) {
		t.Fatalf("test MSE %g, mean y^2 %g", mse, meanSquare(test.Y))
	}
}

// FitSelect picks the target's rank on validation data.
func TestFitSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 5))
	m := randRNN(rng, 2, 2, 1)
	counts := map[int]int{1: 10, 2: 10, 3: 20, 4: 40, 5: 80}
	train, valid := mixedSample(t, m, counts, rng), mixedSample(t, m, map[int]int{3: 20, 6: 20}, rng)
	res, mses, err := FitSelect(train, valid, FitConfig{Config: Config{Method: MethodLS}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if res.Model.States != 2 || len(mses) != 4 || mses[1] > 1e-20 || !(mses[0] > 1e-6) {
		t.Fatalf("rank %d, validation MSEs %v", res.Model.States, mses)
	}
}
