package spectral

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/datasets"
)

const targetTol = 1e-12

// evalByMatrices computes alpha^T M_1 ... M_k Omega^T with
// M_t = sum_c x_t[c] A_c formed explicitly: an independent route to Eval.
func evalByMatrices(m RNN, x []float64) []float64 {
	n, d := m.States, m.In
	row := slices.Clone(m.Alpha)
	for t := 0; t < len(x)/d; t++ {
		M := make([]float64, n*n)
		for c := range d {
			for i := range n {
				for j := range n {
					M[i*n+j] += x[t*d+c] * m.A[(i*d+c)*n+j]
				}
			}
		}
		next := make([]float64, n)
		for j := range n {
			for i := range n {
				next[j] += row[i] * M[i*n+j]
			}
		}
		row = next
	}
	y := make([]float64, m.Out)
	for o := range y {
		for j := range n {
			y[o] += m.Omega[o*n+j] * row[j]
		}
	}
	return y
}

func TestRNNEvalMatchesMatrixProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m, err := RandomTwoRNN(RandomTwoRNNConfig{States: 4, In: 3, Out: 2}, rng)
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 6; k++ {
		x := make([]float64, k*3)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		got, want := m.Eval(x), evalByMatrices(m, x)
		for o := range got {
			if math.Abs(got[o]-want[o]) > targetTol*(1+math.Abs(want[o])) {
				t.Fatalf("length %d output %d: Eval %g, matrix product %g", k, o, got[o], want[o])
			}
		}
	}
}

func TestAdditionTwoRNNComputesRunningDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := AdditionProblem()
	s, err := p.Sample(50, 5, 0, rng)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.N() {
		x := s.Seq(i)
		want := 0.0
		for t := range 5 {
			want += x[t*3+1] - x[t*3]
		}
		if x[2] != 1 || x[14] != 1 {
			t.Fatalf("example %d: bias input not 1: %v", i, x)
		}
		if math.Abs(s.Y[i]-want) > targetTol {
			t.Fatalf("example %d: y = %g, want %g", i, s.Y[i], want)
		}
	}
}

func TestRandomTwoRNNSeededAndNormalised(t *testing.T) {
	a, err := RandomTwoRNN(RandomTwoRNNConfig{}, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RandomTwoRNN(RandomTwoRNNConfig{}, rand.New(rand.NewPCG(7, 7)))
	if !slices.Equal(a.A, b.A) || !slices.Equal(a.Alpha, b.Alpha) || !slices.Equal(a.Omega, b.Omega) {
		t.Fatal("same seed gave different targets")
	}
	if a.States != 5 || a.In != 3 || a.Out != 2 {
		t.Fatalf("defaults: n, d, p = %d, %d, %d, want 5, 3, 2", a.States, a.In, a.Out)
	}
	// Undo the normalisation: the unscaled model has mean y^2 = m on the
	// scale set and the scaled one 1/(100 m), so their product is 1/100
	// up to the sampling error of the two measurements.
	rng := rand.New(rand.NewPCG(8, 8))
	msScaled := targetMeanSquare(a, 20000, rng)
	un := a
	un.Alpha = slices.Clone(a.Alpha)
	if !(msScaled > 0) {
		t.Fatalf("scaled mean y^2 = %g", msScaled)
	}
	// Alpha is the first draw from the seed: redraw it to recover the
	// common factor 10 m it was divided by.
	raw := rand.New(rand.NewPCG(7, 7))
	alpha0 := make([]float64, 5)
	for i := range alpha0 {
		alpha0[i] = 0.2 * raw.NormFloat64()
	}
	factor := alpha0[0] / a.Alpha[0] // 10 m
	for i := range alpha0 {
		un.Alpha[i] = alpha0[i]
		if math.Abs(alpha0[i]/a.Alpha[i]-factor) > 1e-9*math.Abs(factor) {
			t.Fatalf("Alpha not divided by one common factor")
		}
	}
	msRaw := targetMeanSquare(un, 20000, rng)
	if got := msRaw / (factor / 10); math.Abs(got-1) > 0.15 {
		t.Fatalf("scale factor 10 m = %g but the raw mean y^2 is %g (ratio %g, want about 1)", factor, msRaw, got)
	}
}

func targetMeanSquare(m RNN, n int, rng *rand.Rand) float64 {
	x := make([]float64, 4*m.In)
	ss := 0.0
	for range n {
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for _, y := range m.Eval(x) {
			ss += y * y
		}
	}
	return ss / float64(n*m.Out)
}

func TestTwoRNNSampleNoise(t *testing.T) {
	p := AdditionProblem()
	clean, _ := p.Sample(4000, 3, 0, rand.New(rand.NewPCG(5, 5)))
	noisy, _ := p.Sample(4000, 3, 0.5, rand.New(rand.NewPCG(5, 5)))
	ss := 0.0
	for i := range noisy.N() {
		e := noisy.Y[i] - p.Target.Eval(noisy.Seq(i))[0]
		ss += e * e
	}
	if std := math.Sqrt(ss / 4000); math.Abs(std-0.5) > 0.03 {
		t.Fatalf("noise std %g, want 0.5", std)
	}
	if clean.Validate() != nil || noisy.Validate() != nil {
		t.Fatal("valid data rejected")
	}
}

func TestTwoRNNSplitsShapes(t *testing.T) {
	p, err := RandomTwoRNNProblem(RandomTwoRNNConfig{}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Splits(TwoRNNSplitConfig{N: 10, Noise: 0.1}, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for k, l := range []int{2, 4, 5} {
		if s.Train[k].Len != l || s.Train[k].N() != 10 {
			t.Fatalf("train %d: length %d, N %d", k, s.Train[k].Len, s.Train[k].N())
		}
	}
	if s.Test.Len != 6 || s.Test.N() != 1000 {
		t.Fatalf("test: length %d, N %d", s.Test.Len, s.Test.N())
	}
	for i := range s.Test.N() {
		y := p.Target.Eval(s.Test.Seq(i))
		if y[0] != s.Test.Y[2*i] || y[1] != s.Test.Y[2*i+1] {
			t.Fatal("test set is not noiseless")
		}
	}
}

func TestTwoRNNBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	cases := []struct {
		name, want string
		err        error
	}{
		{"negative std", "std", func() error { _, e := RandomTwoRNN(RandomTwoRNNConfig{Std: -1}, rng); return e }()},
		{"bad noise", "noise", func() error { _, e := AdditionProblem().Sample(3, 2, math.NaN(), rng); return e }()},
		{"zero n", "examples", func() error { _, e := AdditionProblem().Sample(0, 2, 0, rng); return e }()},
		{"nan output", "output", datasets.TwoRNNData{Len: 1, In: 1, Out: 1, X: []float64{1}, Y: []float64{math.NaN()}}.Validate()},
		{"short X", "inputs", datasets.TwoRNNData{Len: 2, In: 1, Out: 1, X: []float64{1}, Y: []float64{1}}.Validate()},
		{"bad target", "Omega", RNN{States: 1, In: 1, Out: 1, Alpha: []float64{1}, A: []float64{1}}.Validate()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
				t.Fatalf("error %v, want one mentioning %q", c.err, c.want)
			}
		})
	}
}
