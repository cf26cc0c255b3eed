package spectral

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// exactTol is the tolerance of identities that hold up to rounding.
const exactTol = 1e-12

func randVec(rng *rand.Rand, n int, std float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = std * rng.NormFloat64()
	}
	return v
}

func randRNN(rng *rand.Rand, n, d, p int) RNN {
	return RNN{States: n, In: d, Out: p, Alpha: randVec(rng, n, 1), A: randVec(rng, n*d*n, 0.4), Omega: randVec(rng, p*n, 1)}
}

func oneHot(word []int, d int) []float64 {
	x := make([]float64, len(word)*d)
	for t, s := range word {
		x[t*d+s] = 1
	}
	return x
}

func closeRel(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

// Theorem 2 both ways: the WFA on symbols equals the 2-RNN on one-hot
// encodings, and the conversions are inverse to each other.
func TestWFARNNEquivalence(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 20 {
		n, d, p := 1+rng.IntN(5), 1+rng.IntN(4), 1+rng.IntN(3)
		w := WFA{States: n, Out: p, Alpha: randVec(rng, n, 1), Omega: randVec(rng, p*n, 1)}
		for range d {
			w.Trans = append(w.Trans, randVec(rng, n*n, 0.5))
		}
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		m := w.RNN()
		back := m.WFA()
		for s := range d {
			if !slices.Equal(back.Trans[s], w.Trans[s]) {
				t.Fatalf("trial %d: WFA -> RNN -> WFA changed symbol %d", trial, s)
			}
		}
		if !slices.Equal(back.Alpha, w.Alpha) || !slices.Equal(back.Omega, w.Omega) {
			t.Fatalf("trial %d: round trip changed the weights", trial)
		}
		if again := back.RNN(); !slices.Equal(again.A, m.A) {
			t.Fatalf("trial %d: RNN -> WFA -> RNN changed A", trial)
		}
		for k := 0; k <= 6; k++ {
			word := make([]int, k)
			for i := range word {
				word[i] = rng.IntN(d)
			}
			yw, err := w.Eval(word)
			if err != nil {
				t.Fatal(err)
			}
			ym := m.Eval(oneHot(word, d))
			for o := range yw {
				if !closeRel(ym[o], yw[o], exactTol) {
					t.Fatalf("trial %d word %v output %d: 2-RNN %g, WFA %g", trial, word, o, ym[o], yw[o])
				}
			}
		}
	}
}

func TestWFABadInput(t *testing.T) {
	w := WFA{States: 1, Out: 1, Alpha: []float64{1}, Trans: [][]float64{{1}}, Omega: []float64{1}}
	if _, err := w.Eval([]int{1}); err == nil {
		t.Fatal("symbol out of range accepted")
	}
	w.Trans[0] = []float64{1, 2}
	if err := w.Validate(); err == nil {
		t.Fatal("bad transition size accepted")
	}
}

func TestPredictMatchesEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	m := randRNN(rng, 4, 3, 2)
	p := TwoRNNProblem{Name: "t", Target: m}
	s, err := p.Sample(30, 5, 0, rng)
	if err != nil {
		t.Fatal(err)
	}
	y, err := m.Predict(s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.N() {
		for o := range 2 {
			if !closeRel(y.At(i, o), s.Y[i*2+o], exactTol) {
				t.Fatalf("example %d output %d: Predict %g, Eval %g", i, o, y.At(i, o), s.Y[i*2+o])
			}
		}
	}
	if mse, _ := m.MSE(s); mse > 1e-24 {
		t.Fatalf("MSE on its own outputs %g", mse)
	}
	s.In = 2
	if _, err := m.Predict(s); err == nil {
		t.Fatal("mismatched d accepted")
	}
}
