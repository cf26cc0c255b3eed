package umps

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/params"
)

const (
	// growExactTol bounds the change a noiseless Grow makes to a log
	// probability: rounding only, the extra block contributing zeros.
	growExactTol = 1e-10
	// growNoiseTol bounds it for noise 1e-6: the change is O(sd).
	growNoiseTol = 1e-4
)

// growStrings are every string of length 0..5 over symbols symbols.
func growStrings(symbols int) [][]int {
	out := [][]int{{}}
	last := [][]int{{}}
	for n := 1; n <= 5; n++ {
		var next [][]int
		for _, s := range last {
			for c := 0; c < symbols; c++ {
				next = append(next, append(append([]int(nil), s...), c))
			}
		}
		out, last = append(out, next...), next
	}
	return out
}

// logProbsFunc is LogProbsN or LogProbsStar.
type logProbsFunc func(*MPS, [][]int) ([]float64, error)

// checkLogProbs fails t when f gives got and want values farther apart
// than tol on some string of seqs.
func checkLogProbs(t *testing.T, what string, f logProbsFunc, got, want *MPS, seqs [][]int, tol float64) {
	t.Helper()
	w, err := f(want, seqs)
	if err != nil {
		t.Fatal(err)
	}
	g, err := f(got, seqs)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range w {
		worst = math.Max(worst, math.Abs(g[i]-w[i]))
	}
	if worst > tol {
		t.Errorf("%s moved by up to %.3g, want <= %g", what, worst, tol)
	}
}

// contracted is the model p stands for (Contracted).
func contracted(t *testing.T, p *params.Params) *MPS {
	t.Helper()
	m, err := Contracted(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGrowKeepsTheDistribution(t *testing.T) {
	seqs := growStrings(3)
	for _, tc := range []struct {
		name string
		sd   float64
		tol  float64
	}{{"noiseless", 0, growExactTol}, {"noise 1e-6", 1e-6, growNoiseTol}} {
		t.Run(tc.name, func(t *testing.T) {
			m := testModel(t, 4, 3, 0.8, 11)
			g, err := Grow(m, 9, tc.sd, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			if g.Bond != 9 || g.Symbols != 3 {
				t.Fatalf("grown model D = %d, d = %d, want 9 and 3", g.Bond, g.Symbols)
			}
			for i := 0; i < 4; i++ {
				for c := 0; c < 3; c++ {
					for j := 0; j < 4; j++ {
						if g.A[(i*3+c)*9+j] != m.A[(i*3+c)*4+j] {
							t.Fatalf("A(%d)[%d,%d] = %v, want the model's %v", c, i, j, g.A[(i*3+c)*9+j], m.A[(i*3+c)*4+j])
						}
					}
				}
			}
			checkLogProbs(t, "log P_n", (*MPS).LogProbsN, g, m, seqs, tc.tol)
			checkLogProbs(t, "log P_*", (*MPS).LogProbsStar, g, m, seqs, tc.tol)
		})
	}
}

func TestGrowParamsKeepsTheContractedCore(t *testing.T) {
	seqs := growStrings(2)
	for _, tc := range []struct {
		name  string
		bound float64
		sd    float64
		tol   float64
	}{
		{"noiseless", 0.7, 0, growExactTol},
		{"noise 1e-6", 0.7, 1e-6, growNoiseTol},
		// A bound at the cap: the grown core is scaled to just below it.
		{"bound at the cap", maxBound * (1 - 1e-12), 0, 1e-6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewParamsFrom(testModel(t, 5, 2, 3, 4))
			if err != nil {
				t.Fatal(err)
			}
			if err := AddGamma(p, tc.bound); err != nil {
				t.Fatal(err)
			}
			q, err := GrowParams(p, 8, tc.sd, rand.New(rand.NewPCG(5, 6)))
			if err != nil {
				t.Fatal(err)
			}
			if !q.Has(ParamGamma) || q.Shape(ParamA)[0] != 8 {
				t.Fatalf("grown parameters %v, want %s and a core of bond 8", q, ParamGamma)
			}
			checkLogProbs(t, "log P_*", (*MPS).LogProbsStar, contracted(t, q), contracted(t, p), seqs, tc.tol)
		})
	}
}

func TestGrowParamsPerLength(t *testing.T) {
	p, err := NewParamsFrom(testModel(t, 3, 2, 1.5, 9))
	if err != nil {
		t.Fatal(err)
	}
	q, err := GrowParams(p, 6, 0, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if q.Has(ParamGamma) {
		t.Fatalf("grown per-length parameters have %s", ParamGamma)
	}
	checkLogProbs(t, "log P_n", (*MPS).LogProbsN, contracted(t, q), contracted(t, p), growStrings(2), growExactTol)
}

func TestGrowRejects(t *testing.T) {
	m := testModel(t, 4, 2, 0.5, 1)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		name string
		m    *MPS
		bond int
		sd   float64
		rng  *rand.Rand
	}{
		{"smaller bond", m, 3, 0, rng},
		{"negative noise", m, 6, -1, rng},
		{"NaN noise", m, 6, math.NaN(), rng},
		{"nil source", m, 6, 0, nil},
		{"invalid model", &MPS{Bond: 2, Symbols: 1, A: []float64{1}}, 4, 0, rng},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Grow(tc.m, tc.bond, tc.sd, tc.rng); err == nil {
				t.Error("no error")
			}
		})
	}
	if _, err := GrowParams(params.New(), 4, 0, rng); err == nil {
		t.Error("GrowParams on an empty parameter set: no error")
	}
}
