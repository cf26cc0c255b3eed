package umps

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

const (
	probTol = 1e-10 // sums of probabilities, Z identities (the bar)
	evalTol = 1e-10 // sequential against parallel log-amplitudes
)

// The per-length distributions P_n are normalised: for D = 3, d = 2 the sum
// of P_n(s) over all 2^n strings is 1 for every n <= 8, and Z_n equals the
// brute-force sum of f(s)^2.
func TestPnSumsToOne(t *testing.T) {
	for _, init := range []Init{NearIdentity, RandomNormal} {
		m, err := New(3, 2, init, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		const maxN = 8
		lz, err := m.LogZn(maxN)
		if err != nil {
			t.Fatal(err)
		}
		var seqs [][]int
		brute := make([]float64, maxN+1)
		enumerate(m, maxN, func(s []int, amp float64) {
			seqs = append(seqs, append([]int(nil), s...))
			brute[len(s)] += amp * amp
		})
		lp, err := m.LogProbsN(seqs)
		if err != nil {
			t.Fatal(err)
		}
		sum := make([]float64, maxN+1)
		for b, s := range seqs {
			sum[len(s)] += math.Exp(lp[b])
		}
		for n := 0; n <= maxN; n++ {
			if math.Abs(sum[n]-1) > probTol {
				t.Errorf("init %d: sum of P_%d = %.15g, want 1", init, n, sum[n])
			}
			if e := relErr(math.Exp(lz[n]), brute[n]); e > probTol {
				t.Errorf("init %d: Z_%d = %.15g, brute force %.15g", init, n, math.Exp(lz[n]), brute[n])
			}
		}
	}
}

// Z_* is the sum of Z_n over all lengths (truncated where the terms fall
// below 1e-18 of the total), and the power method finds the spectral
// radius of the dense D^2 x D^2 operator.
func TestZStarIsSumOfZn(t *testing.T) {
	for _, rho := range []float64{0.3, 0.9} {
		m := testModel(t, 3, 2, rho, 11)
		tr, err := NewTransfer(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tr.LogZStar()
		if err != nil {
			t.Fatal(err)
		}
		maxN := int(math.Ceil(math.Log(1e-18)/math.Log(rho))) + 20
		lz, err := m.LogZn(maxN)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, v := range lz {
			sum += math.Exp(v)
		}
		if e := relErr(math.Exp(got), sum); e > probTol {
			t.Errorf("rho %g: Z_* = %.15g, sum of Z_n = %.15g", rho, math.Exp(got), sum)
		}
		r, err := tr.SpectralRadius(mustRegex(t, ".", "01"))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r-rho) > 1e-8 {
			t.Errorf("power method radius %.12g, eigendecomposition %.12g", r, rho)
		}
	}
}

// A model whose transfer operator has spectral radius above 1 has no Z_*.
func TestZStarDiverges(t *testing.T) {
	m := testModel(t, 3, 2, 1.2, 5)
	tr, err := NewTransfer(m)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.LogZStar()
	if err == nil || !strings.Contains(err.Error(), "spectral radius") {
		t.Fatalf("got %v, want a spectral radius error", err)
	}
	if _, err := tr.LogProbStar([]int{0, 1}); err == nil {
		t.Fatal("LogProbStar of a divergent model succeeded")
	}
}

// P_* sums to 1 over all strings (enumerated to a length where the tail
// is negligible).
func TestPStarSumsToOne(t *testing.T) {
	m := testModel(t, 3, 2, 0.1, 9)
	tr, err := NewTransfer(m)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	enumerate(m, 14, func(s []int, _ float64) {
		lp, err := tr.LogProbStar(s)
		if err != nil {
			t.Fatal(err)
		}
		sum += math.Exp(lp)
	})
	if math.Abs(sum-1) > 1e-9 { // the tail beyond length 14 is about 0.1^15
		t.Errorf("sum of P_* = %.15g, want 1", sum)
	}
}

// Parallel (log-depth) and sequential evaluation agree to 1e-10 in
// log-probability for lengths up to 10,000, in one padded batch.
func TestParallelMatchesSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, init := range []Init{NearIdentity, RandomNormal} {
		m, err := New(5, 3, init, rng)
		if err != nil {
			t.Fatal(err)
		}
		var seqs [][]int
		for _, n := range []int{0, 1, 2, 3, 7, 64, 1000, 10000} {
			s := make([]int, n)
			for i := range s {
				s[i] = rng.IntN(3)
			}
			seqs = append(seqs, s)
		}
		seq, sgs, err := m.LogAmplitudes(seqs)
		if err != nil {
			t.Fatal(err)
		}
		par, sgp, err := m.LogAmplitudesParallel(seqs)
		if err != nil {
			t.Fatal(err)
		}
		for b := range seqs {
			if math.IsInf(seq[b], 0) || math.IsNaN(seq[b]) {
				t.Fatalf("length %d: log amplitude %v", len(seqs[b]), seq[b])
			}
			if 2*math.Abs(seq[b]-par[b]) > evalTol || sgs[b] != sgp[b] {
				t.Errorf("init %d, length %d: sequential %.15g (%v), parallel %.15g (%v)",
					init, len(seqs[b]), seq[b], sgs[b], par[b], sgp[b])
			}
		}
	}
}

// Bad input gives one-line errors.
func TestEvalErrors(t *testing.T) {
	m, err := New(2, 2, NearIdentity, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.LogAmplitude([]int{0, 2}); err == nil || !strings.Contains(err.Error(), "position 1") {
		t.Errorf("symbol out of range: got %v", err)
	}
	if _, err := m.LogZn(-1); err == nil {
		t.Error("negative length accepted")
	}
	bad := *m
	bad.Alpha = []float64{1, math.NaN()}
	if _, _, err := bad.LogAmplitudesParallel([][]int{{0}}); err == nil || !strings.Contains(err.Error(), "alpha") {
		t.Errorf("NaN boundary: got %v", err)
	}
	if _, err := New(0, 2, NearIdentity, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("bond 0 accepted")
	}
}

func mustRegex(t *testing.T, pattern, alphabet string) *Regex {
	t.Helper()
	r, err := CompileRegex(pattern, alphabet)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestScaleToRadius(t *testing.T) {
	m, err := New(3, 2, NearIdentity, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.ScaleToRadius(0.5); err != nil {
		t.Fatal(err)
	}
	if r := exactRho(m); math.Abs(r-0.5) > 1e-6 {
		t.Errorf("spectral radius %.9g after rescaling, want 0.5", r)
	}
	if err := m.ScaleToRadius(-1); err == nil {
		t.Error("negative radius accepted")
	}
}
