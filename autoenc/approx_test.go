package autoenc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"gonum.org/v1/gonum/mat"
)

// angleTol bounds the sine of the largest principal angle between the
// approximate and exact singular subspaces when nothing is dropped (the
// issue's 1e-6 target).
const angleTol = 1e-6

// subspaceSine is the sine of the largest principal angle between the
// column spans of a and b (both with orthonormal columns):
// ||(I - b b^T) a||_2.
func subspaceSine(a, b *mat.Dense) float64 {
	var bta, proj, res mat.Dense
	bta.Mul(b.T(), a)
	proj.Mul(b, &bta)
	res.Sub(a, &proj)
	var svd mat.SVD
	svd.Factorize(&res, mat.SVDNone)
	return svd.Values(nil)[0]
}

// TestApproxSVDMatchesExact checks Algorithms 1-3 against the exact SVD of
// Xi: with p = rank(Xi) (no nonzero singular value dropped) the subspaces
// agree to angleTol and the singular values to rounding, through both the
// kernel route (few active rows) and the covariance route.
func TestApproxSVDMatchesExact(t *testing.T) {
	for _, c := range []struct {
		name    string
		k       int
		lengths []int
		prep    func(*rand.Rand, [][]float64, int) // nil: N(0, 1) data
	}{
		{"tall", 2, []int{6, 5, 3, 6, 2, 4}, nil},                          // 26 x 12
		{"wide", 3, []int{7, 2}, nil},                                      // 9 x 21
		{"k=1", 1, []int{9, 8, 3, 5}, nil},                                 // 25 x 9
		{"sparse", 5, []int{12, 10, 11, 9, 12, 8, 10, 7, 3, 12}, sparsify}, // 94 x 60
		// The last slices (x_0, x_1 only) are zero though they have more
		// active rows than columns.
		{"zero slices", 1, []int{5, 5, 5, 6, 6, 7, 7}, zeroStart}, // 41 x 7
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(6, uint64(c.k)))
			seqs := randomSeqs(rng, c.k, c.lengths...)
			if c.prep != nil {
				c.prep(rng, seqs, c.k)
			}
			d, err := newData(seqs, c.k)
			if err != nil {
				t.Fatal(err)
			}
			ve, le, rank, err := exactSVD(d)
			if err != nil {
				t.Fatal(err)
			}
			va, la, err := ApproxSVD(seqs, c.k, rank)
			if err != nil {
				t.Fatal(err)
			}
			sin := subspaceSine(va, ve.Slice(0, d.rows, 0, rank).(*mat.Dense))
			t.Logf("rank %d: subspace sine %.3g", rank, sin)
			if sin > angleTol {
				t.Errorf("subspace sine %.3g > %g", sin, angleTol)
			}
			for j := range rank {
				if math.Abs(la[j]-le[j]) > 1e-9*le[0] {
					t.Errorf("singular value %d: approx %.12g, exact %.12g", j, la[j], le[j])
				}
			}
			// The approximate model reconstructs exactly too.
			m, err := Approximate(seqs, c.k, rank)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for _, s := range seqs {
				r, err := m.Reconstruct(s)
				if err != nil {
					t.Fatal(err)
				}
				for i := range s {
					worst = max(worst, math.Abs(r[i]-s[i]))
				}
			}
			if worst > exactTol {
				t.Errorf("approximate model: worst reconstruction error %.3g > %g", worst, exactTol)
			}
		})
	}
}

// TestApproxSVDTruncated checks the approximation for p < rank(Xi): the
// singular values cannot exceed the exact ones (interlacing), the leading
// ones are close, and the subspace is close but not equal to the exact one.
func TestApproxSVDTruncated(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	// Sequences from a 3-state linear system plus small noise: Xi has a
	// dominant rank-3-per-step structure, like real data.
	seqs := make([][]float64, 8)
	for q := range seqs {
		T := 10 + rng.IntN(10)
		s := make([]float64, T*4)
		h := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		for t := range T {
			h = []float64{0.9*h[0] - 0.3*h[1], 0.3*h[0] + 0.9*h[1], 0.5 * h[2]}
			for j := range 4 {
				s[t*4+j] = h[j%3] + 0.01*rng.NormFloat64()
			}
		}
		seqs[q] = s
	}
	d, _ := newData(seqs, 4)
	ve, le, _, err := exactSVD(d)
	if err != nil {
		t.Fatal(err)
	}
	const p = 6
	va, la, err := ApproxSVD(seqs, 4, p)
	if err != nil {
		t.Fatal(err)
	}
	for j := range p {
		if la[j] > le[j]*(1+1e-12) {
			t.Errorf("approx singular value %d = %g exceeds exact %g", j, la[j], le[j])
		}
	}
	if rel := math.Abs(la[0]-le[0]) / le[0]; rel > 1e-3 {
		t.Errorf("leading singular value off by %.3g relative", rel)
	}
	sin := subspaceSine(va.Slice(0, d.rows, 0, 2).(*mat.Dense), ve.Slice(0, d.rows, 0, p).(*mat.Dense))
	t.Logf("leading approx directions vs exact p-subspace: sine %.3g; lambda approx %v exact %v", sin, la[:3], le[:3])
	if sin > 0.05 {
		t.Errorf("leading approximate directions far from the exact subspace: sine %.3g", sin)
	}
}

func TestApproxSVDBadP(t *testing.T) {
	seqs := randomSeqs(rand.New(rand.NewPCG(9, 9)), 2, 3, 2)
	for _, p := range []int{0, 7, 100} {
		if _, _, err := ApproxSVD(seqs, 2, p); err == nil {
			t.Errorf("p = %d: no error", p)
		} else {
			t.Logf("p = %d: %v", p, err)
		}
	}
	// Rank-deficient data: two identical one-step sequences have rank 1.
	if _, err := Approximate([][]float64{{1, 2}, {1, 2}}, 2, 2); err == nil {
		t.Error("p = 2 > rank 1: no error")
	}
}

// sparsify makes seqs look like piano rolls: unit k-1 is never on, a third
// of the frames are empty, and the other frames have each remaining unit
// on with probability 1/2 (value 1).
func sparsify(rng *rand.Rand, seqs [][]float64, k int) {
	for _, s := range seqs {
		for t := 0; t < len(s); t += k {
			empty := rng.IntN(3) == 0
			for j := range k {
				s[t+j] = 0
				if !empty && j < k-1 && rng.IntN(2) == 0 {
					s[t+j] = 1
				}
			}
		}
	}
}

// zeroStart zeroes the first two frames of every sequence.
func zeroStart(_ *rand.Rand, seqs [][]float64, k int) {
	for _, s := range seqs {
		clear(s[:min(2*k, len(s))])
	}
}

// deferTol bounds the differences between V Lambda formed after every
// slice and formed only when deferring costs more: the two orders of the
// same products differ by rounding only (about 1e-13 measured).
const deferTol = 1e-9

// TestApproxSVDDeferred checks that deferring the formation of V Lambda
// (sweep) changes Algorithms 1-3 only by rounding when slices are
// truncated (p < rank(Xi)), on synthetic piano rolls and on real-valued
// inputs so wide that few slices may be left pending.
func TestApproxSVDDeferred(t *testing.T) {
	pr, err := datasets.SyntheticPiano(datasets.SyntheticPianoConfig{Train: 20}, rand.New(rand.NewPCG(10, 10)))
	if err != nil {
		t.Fatal(err)
	}
	piano, err := newData(pr.Train.Seqs, datasets.PianoKeys)
	if err != nil {
		t.Fatal(err)
	}
	// Real values, with sweep.lag cut to lags 0-2, so that at most 2
	// slices are left pending.
	const k = 30
	rng := rand.New(rand.NewPCG(12, 12))
	seqs := make([][]float64, 40)
	for q := range seqs {
		seqs[q] = make([]float64, (10+q)*k)
		for t := range len(seqs[q]) / k {
			for range 5 {
				seqs[q][t*k+rng.IntN(k)] = rng.NormFloat64()
			}
		}
	}
	dense, err := newData(seqs, k)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		d    *data
		p    int
	}{{"piano/p=5", piano, 5}, {"piano/p=30", piano, 30}, {"real/p=20", dense, 20}} {
		d, p := c.d, c.p
		t.Run(c.name, func(t *testing.T) {
			ve, le, err := approxSVD(d, p, false)
			if err != nil {
				t.Fatal(err)
			}
			sw := newSweep(d, p, true)
			if d == dense {
				sw.lag = sw.lag[:3]
			}
			vd, ld, err := sw.run()
			if err != nil {
				t.Fatal(err)
			}
			for j := range p {
				if math.Abs(ld[j]-le[j]) > deferTol*le[0] {
					t.Errorf("singular value %d: deferred %.15g, eager %.15g", j, ld[j], le[j])
				}
			}
			sin := subspaceSine(vd, ve)
			t.Logf("subspace sine %.3g", sin)
			if sin > deferTol {
				t.Errorf("subspace sine %.3g > %g", sin, deferTol)
			}
		})
	}
}

// eigTol bounds the differences between the eigendecomposition of a
// symmetric positive semi-definite matrix and its SVD (relative to the
// largest value) for the well-separated values used here.
const eigTol = 1e-12

// TestTruncatedEigMatchesSVD checks Algorithm 3 as implemented
// (truncatedEig) against a general SVD, as INDIRECTSVD computes it, on
// Gram matrices of full and deficient rank.
func TestTruncatedEigMatchesSVD(t *testing.T) {
	for _, c := range []struct {
		name       string
		n, rank, p int
	}{
		{"full", 7, 7, 4},
		{"deficient", 8, 3, 3},
		{"p > n", 5, 5, 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(c.n)))
			x := mat.NewDense(c.n, c.rank, nil)
			for i := range c.n {
				for j := range c.rank {
					x.Set(i, j, rng.NormFloat64())
				}
			}
			var g mat.SymDense
			g.SymOuterK(1, x)
			vecs, vals, err := truncatedEig(&g, c.p)
			if err != nil {
				t.Fatal(err)
			}
			var svd mat.SVD
			if !svd.Factorize(&g, mat.SVDThinU) {
				t.Fatal("SVD did not converge")
			}
			sv := svd.Values(nil)
			want := min(c.p, c.n)
			if len(vals) != want {
				t.Fatalf("%d values, want %d", len(vals), want)
			}
			for j, v := range vals {
				if math.Abs(v-sv[j]) > eigTol*sv[0] {
					t.Errorf("value %d: eig %.15g, SVD %.15g", j, v, sv[j])
				}
			}
			var u mat.Dense
			svd.UTo(&u)
			sin := subspaceSine(vecs, u.Slice(0, c.n, 0, want).(*mat.Dense))
			if sin > eigTol*1e3 {
				t.Errorf("subspace sine %.3g", sin)
			}
		})
	}
}
