package spectral

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randTT returns a random train with the given dims and inner ranks r.
func randTT(rng *rand.Rand, dims []int, r int) TT {
	K := len(dims)
	t := TT{Dims: dims, Ranks: make([]int, K+1), Cores: make([][]float64, K)}
	for k := range t.Ranks {
		t.Ranks[k] = r
	}
	t.Ranks[0], t.Ranks[K] = 1, 1
	for k := range K {
		t.Cores[k] = randVec(rng, t.Ranks[k]*dims[k]*t.Ranks[k+1], 1)
	}
	return t
}

func norm(v []float64) float64 { return mat.Norm(mat.NewVecDense(len(v), v), 2) }

func diffNorm(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// Dense checked against the defining product of core slices.
func TestTTDenseMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	tt := randTT(rng, []int{2, 3, 2}, 2)
	full := tt.Dense()
	for i := range 2 {
		for j := range 3 {
			for k := range 2 {
				s := 0.0
				for a := range 2 {
					for b := range 2 {
						s += tt.Cores[0][i*2+a] * tt.Cores[1][(a*3+j)*2+b] * tt.Cores[2][b*2+k]
					}
				}
				if !closeRel(full[(i*3+j)*2+k], s, exactTol) {
					t.Fatalf("entry (%d,%d,%d): %g, want %g", i, j, k, full[(i*3+j)*2+k], s)
				}
			}
		}
	}
}

// A tensor of TT-rank r is reproduced exactly by TT-SVD with cap r, and
// with no cap the ranks found are r.
func TestTTSVDExactOnLowRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	dims := []int{3, 3, 3, 3, 2}
	full := randTT(rng, dims, 3).Dense()
	for _, cap := range []int{3, 0} {
		tt, err := TTSVD(full, dims, cap, 1e-13)
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; k < len(dims); k++ {
			if tt.Ranks[k] > 3 {
				t.Fatalf("cap %d: rank %d is %d, want <= 3", cap, k, tt.Ranks[k])
			}
		}
		if e := diffNorm(tt.Dense(), full) / norm(full); e > exactTol {
			t.Fatalf("cap %d: relative error %g", cap, e)
		}
	}
}

// Oseledets' bound: the TT-SVD error is at most the root sum of squares of
// the best rank-r errors of the unfoldings, and at most tol ||T|| without a
// binding cap.
func TestTTSVDErrorBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	dims := []int{3, 4, 3, 2}
	full := randVec(rng, 72, 1)
	const r = 2
	tt, err := TTSVD(full, dims, r, 0)
	if err != nil {
		t.Fatal(err)
	}
	bound := 0.0
	rows := 1
	for k := 0; k < len(dims)-1; k++ {
		rows *= dims[k]
		var svd mat.SVD
		svd.Factorize(mat.NewDense(rows, 72/rows, full), mat.SVDNone)
		for i, s := range svd.Values(nil) {
			if i >= r {
				bound += s * s
			}
		}
	}
	if e := diffNorm(tt.Dense(), full); e > math.Sqrt(bound)*(1+1e-12) {
		t.Fatalf("rank-%d error %g above the bound %g", r, e, math.Sqrt(bound))
	}
	const tol = 0.3
	tt, err = TTSVD(full, dims, 0, tol)
	if err != nil {
		t.Fatal(err)
	}
	if e := diffNorm(tt.Dense(), full); e > tol*norm(full)*(1+1e-12) {
		t.Fatalf("tolerance %g: error %g above %g", tol, e, tol*norm(full))
	}
}

// Add doubles the ranks and equals the dense sum; rounding the train of
// T + T gives 2 T back with the original ranks.
func TestTTRoundSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	dims := []int{3, 2, 4, 2}
	a := randTT(rng, dims, 2)
	sum, err := a.Add(a)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ranks[1] != 4 {
		t.Fatalf("sum ranks %v", sum.Ranks)
	}
	r, err := sum.Round(0, 1e-13)
	if err != nil {
		t.Fatal(err)
	}
	want := a.Dense()
	for i := range want {
		want[i] *= 2
	}
	if e := diffNorm(r.Dense(), want) / norm(want); e > exactTol {
		t.Fatalf("rounded sum off by %g", e)
	}
	for k := 1; k < len(dims); k++ {
		if r.Ranks[k] > 2 {
			t.Fatalf("rounded ranks %v, want <= 2", r.Ranks)
		}
	}
	// With a cap, rounding equals TT-SVD of the dense tensor.
	capped, _ := sum.Round(1, 0)
	direct, _ := TTSVD(want, dims, 1, 0)
	if e := diffNorm(capped.Dense(), direct.Dense()) / norm(want); e > 1e-10 {
		t.Fatalf("capped rounding differs from TT-SVD by %g", e)
	}
}

// Contraction with Kronecker inputs equals the design matrix times the
// dense tensor.
func TestTTContractKron(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const l, d, p = 3, 3, 2
	tt := randTT(rng, []int{d, d, d, p}, 3)
	m := randRNN(rng, 2, d, p)
	s := sampleFrom(t, m, 15, l, 0, rng)
	got, err := tt.ContractKron(s.X, l, d)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := Design(s)
	var want mat.Dense
	want.Mul(x, mat.NewDense(27, p, tt.Dense()))
	for i, v := range want.RawMatrix().Data {
		if !closeRel(got.RawMatrix().Data[i], v, exactTol) {
			t.Fatalf("entry %d: %g, want %g", i, got.RawMatrix().Data[i], v)
		}
	}
	if _, err := tt.ContractKron(s.X, 2, d); err == nil {
		t.Fatal("wrong length accepted")
	}
}

// Section 4.1: H^(l) of a linear 2-RNN with n states has TT-ranks <= n.
func TestHankelHasLowTTRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	m := randRNN(rng, 2, 3, 2)
	h, _ := ExactHankel(m, 5)
	tt, err := TTSVD(h.Data, []int{3, 3, 3, 3, 3, 2}, 0, 1e-12)
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k < 6; k++ {
		if tt.Ranks[k] > 2 {
			t.Fatalf("TT-ranks %v, want <= 2", tt.Ranks)
		}
	}
}

func TestTTSVDBadInput(t *testing.T) {
	if _, err := TTSVD([]float64{1, 2, 3}, []int{2, 2}, 1, 0); err == nil {
		t.Fatal("size mismatch accepted")
	}
	if _, err := TTSVD([]float64{1, math.NaN()}, []int{2}, 1, 0); err == nil {
		t.Fatal("NaN accepted")
	}
	if _, err := TTSVD([]float64{1, 2}, []int{2}, -1, 0); err == nil {
		t.Fatal("negative rank accepted")
	}
}
