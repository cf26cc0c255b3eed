package spectral

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// SVT is the proximal operator of tau ||.||_*: on a matrix with known
// singular values it shrinks each by tau and drops those below.
func TestSVTShrinksSingularValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	h := Hankel{Len: 2, In: 3, Out: 1}
	// A 3 x 3 matrix Q1 diag(5, 2, 0.5) Q2^T with random orthogonal Q.
	q := func() *mat.Dense {
		var qr mat.QR
		qr.Factorize(mat.NewDense(3, 3, randVec(rng, 9, 1)))
		var m mat.Dense
		qr.QTo(&m)
		return &m
	}
	q1, q2 := q(), q()
	var w, tmp mat.Dense
	tmp.Mul(q1, mat.NewDiagDense(3, []float64{5, 2, 0.5}))
	w.Mul(&tmp, q2.T())
	dst := mat.NewDense(9, 1, nil)
	if err := svt(h, mat.NewDense(9, 1, w.RawMatrix().Data), 1, dst); err != nil {
		t.Fatal(err)
	}
	var want mat.Dense
	tmp.Mul(q1, mat.NewDiagDense(3, []float64{4, 1, 0}))
	want.Mul(&tmp, q2.T())
	if e := diffNorm(dst.RawMatrix().Data, want.RawMatrix().Data); e > exactTol*5 {
		t.Fatalf("SVT off by %g", e)
	}
}

// Noiseless and underdetermined (N = 60 < d^l = 81): the equality-
// constrained problem recovers the rank-2 Hankel tensor, least squares
// cannot; with noise, the hold-out-tuned penalised problem beats least
// squares.
func TestNuclearNormRecovery(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	m := randRNN(rng, 2, 3, 1)
	h, _ := ExactHankel(m, 4)
	s := sampleFrom(t, m, 60, 4, 0, rng)
	got, st, err := NuclearNorm(s, NuclearConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ls, _ := LeastSquares(s)
	eN, eLS := diffNorm(got.Data, h.Data)/norm(h.Data), diffNorm(ls.Data, h.Data)/norm(h.Data)
	t.Logf("noiseless: nuclear %.3g after %d iterations, LS %.3g", eN, st.Iterations, eLS)
	if eN > 1e-6 || eLS < 0.1 || !st.Converged {
		t.Fatalf("noiseless: nuclear error %g (converged %v), LS error %g", eN, st.Converged, eLS)
	}
	noisy := sampleFrom(t, m, 200, 4, 0.1, rng)
	got, _, lambda, err := NuclearHoldout(noisy, NuclearConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ls, _ = LeastSquares(noisy)
	eN, eLS = diffNorm(got.Data, h.Data)/norm(h.Data), diffNorm(ls.Data, h.Data)/norm(h.Data)
	t.Logf("noise 0.1: nuclear %.3g (lambda %.3g), LS %.3g", eN, lambda, eLS)
	if !(eN < eLS) || math.IsNaN(eN) {
		t.Fatalf("noisy: nuclear error %g not below LS error %g", eN, eLS)
	}
}
