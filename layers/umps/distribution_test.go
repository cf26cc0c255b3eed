package umps

import (
	"math"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/rtnlab/rtn/graph"
)

// shortLengths is a length model on lengths 0..6 only, so that every
// probability has a brute-force reference over the 127 binary strings.
var shortLengths = &LengthModel{Probs: []float64{0.05, 0.1, 0.15, 0.2, 0.2, 0.15, 0.15}}

// bruteRegex returns sum pi(|s|) P_|s|(s) over the strings of length <= 6
// that match pattern, and the probability of each of them.
func bruteRegex(t *testing.T, m *MPS, lm *LengthModel, pattern string) (float64, map[string]float64) {
	t.Helper()
	re := regexp.MustCompile("^(?:" + pattern + ")$")
	zn, err := m.LogZn(len(lm.Probs) - 1)
	if err != nil {
		t.Fatal(err)
	}
	total, each := 0.0, map[string]float64{}
	enumerate(m, len(lm.Probs)-1, func(s []int, amp float64) {
		b := make([]byte, len(s))
		for i, c := range s {
			b[i] = byte('0' + c)
		}
		if re.Match(b) {
			p := lm.Probs[len(s)] * amp * amp / math.Exp(zn[len(s)])
			total += p
			each[string(b)] = p
		}
	})
	return total, each
}

func TestDistributionRegexBruteForce(t *testing.T) {
	const tol = 1e-10
	m := testModel(t, 3, 2, 2.5, 11) // spectral radius > 1: Z_* diverges
	p := Distribution{M: m, Lengths: shortLengths}
	for _, pat := range []string{"()", "0.*", "1.*", "(0|1)*000", "(0|1)*0(0|1)*", "(00|0)*1?", "1(01)*"} {
		t.Run(pat, func(t *testing.T) {
			r, err := CompileRegex(pat, "01")
			if err != nil {
				t.Fatal(err)
			}
			lp, err := p.LogProbRegex(r)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := bruteRegex(t, m, shortLengths, pat)
			if e := relErr(math.Exp(lp), want); e > tol {
				t.Errorf("P(%s) = %v, brute force %v", pat, math.Exp(lp), want)
			}
		})
	}
}

// TestDistributionPartition is the identity P(()) + P(0.*) + P(1.*) = 1 on
// a model whose Z_* diverges, with a fitted length model (geometric tail).
func TestDistributionPartition(t *testing.T) {
	m := testModel(t, 4, 2, 3, 5)
	lm, err := FitLengths([]int{1, 2, 2, 3, 5, 8, 8, 9, 15})
	if err != nil {
		t.Fatal(err)
	}
	p := Distribution{M: m, Lengths: lm}
	total := 0.0
	for _, pat := range []string{"()", "0.*", "1.*"} {
		r, err := CompileRegex(pat, "01")
		if err != nil {
			t.Fatal(err)
		}
		lp, err := p.LogProbRegex(r)
		if err != nil {
			t.Fatal(err)
		}
		total += math.Exp(lp)
	}
	if math.Abs(total-1) > 1e-9 {
		t.Errorf("P(()) + P(0.*) + P(1.*) = %.15f, want 1", total)
	}
}

// TestDistributionSampleChiSquare draws from '(0|1)*000' (ambiguous) and
// compares the counts of its 15 strings of length <= 6 with P(s)/P(R)
// from LogProbs, by Pearson's chi-square.
func TestDistributionSampleChiSquare(t *testing.T) {
	const (
		n = 20000
		// 99.99% quantile of chi-square with 14 degrees of freedom is 40.9.
		limit = 40.9
	)
	m := testModel(t, 3, 2, 2.5, 11)
	p := Distribution{M: m, Lengths: shortLengths}
	r, err := CompileRegex("(0|1)*000", "01")
	if err != nil {
		t.Fatal(err)
	}
	samples, method, err := p.Sample(r, n, SampleAuto, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if method != SampleExact {
		t.Errorf("method %v, want exact", method)
	}
	lpr, err := p.LogProbRegex(r)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	var strs [][]int
	for _, s := range samples {
		b := make([]byte, len(s))
		for i, c := range s {
			b[i] = byte('0' + c)
		}
		if !regexp.MustCompile(`^[01]*000$`).Match(b) {
			t.Fatalf("sample %q does not match", b)
		}
		counts[string(b)]++
	}
	_, each := bruteRegex(t, m, shortLengths, "(0|1)*000")
	keys := make([]string, 0, len(each))
	for k := range each {
		keys = append(keys, k)
		s := make([]int, len(k))
		for i := range k {
			s[i] = int(k[i] - '0')
		}
		strs = append(strs, s)
	}
	lps, err := p.LogProbs(strs)
	if err != nil {
		t.Fatal(err)
	}
	chi := 0.0
	for i, k := range keys {
		e := n * math.Exp(lps[i]-lpr)
		chi += (float64(counts[k]) - e) * (float64(counts[k]) - e) / e
	}
	if len(counts) > len(keys) || chi > limit {
		t.Errorf("chi-square %.2f over %d strings (limit %.1f), %d distinct samples", chi, len(keys), limit, len(counts))
	}
}

// TestDistributionStarAmbiguous checks that an ambiguous regex counts each
// string once under P_*: P(0*|00*) = P(0*).
func TestDistributionStarAmbiguous(t *testing.T) {
	m := testModel(t, 3, 2, 0.6, 2)
	p := Distribution{M: m}
	var got [2]float64
	for i, pat := range []string{"0*|00*", "0*"} {
		r, err := CompileRegex(pat, "01")
		if err != nil {
			t.Fatal(err)
		}
		if got[i], err = p.LogProbRegex(r); err != nil {
			t.Fatal(err)
		}
	}
	if e := relErr(got[0], got[1]); e > 1e-9 {
		t.Errorf("log P(0*|00*) = %v, log P(0*) = %v", got[0], got[1])
	}
}

func TestFitLengths(t *testing.T) {
	lm, err := FitLengths([]int{0, 2, 2, 4})
	if err != nil {
		t.Fatal(err)
	}
	h, err := lm.Horizon()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for n := 0; n <= h; n++ {
		total += math.Exp(lm.LogProb(n))
	}
	if math.Abs(total-1) > 1e-12 {
		t.Errorf("pi sums to %v up to the horizon %d", total, h)
	}
	if lm.LogProb(3) <= math.Inf(-1) || lm.LogProb(1000) <= math.Inf(-1) {
		t.Error("an unseen length has probability zero")
	}
	if _, err := FitLengths(nil); err == nil {
		t.Error("no error for no lengths")
	}
}

// The gradient of log P(R) under a length model, through the fused op,
// agrees with finite differences, for an ambiguous regex and a fitted
// length model with a geometric tail; its value is LogProbRegex's.
func TestLogProbRegexLengthsGradient(t *testing.T) {
	lm, err := FitLengths([]int{1, 2, 2, 3, 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pat string
		lm  *LengthModel
	}{{"(0|1)*0(0|1)*", shortLengths}, {"1(01)*", lm}, {"()", lm}} {
		t.Run(tc.pat, func(t *testing.T) {
			p := nllParams(t, RandomNormal)
			r, err := CompileRegex(tc.pat, "01")
			if err != nil {
				t.Fatal(err)
			}
			b := graph.NewBuilder()
			y := LogProbRegexLengths(b, b.Param(p, ParamA), b.Param(p, ParamAlpha), b.Param(p, ParamOmega), r, tc.lm)
			m, err := graph.Compile(b, b.Sum(y), p)
			if err != nil {
				t.Fatal(err)
			}
			if err := graph.CheckMachineGradients(m, p, graph.FDOptions{}); err != nil {
				t.Error(err)
			}
			if err := m.Run(); err != nil {
				t.Fatal(err)
			}
			mps, err := FromParams(p)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Distribution{M: mps, Lengths: tc.lm}.LogProbRegex(r)
			if err != nil {
				t.Fatal(err)
			}
			if relErr(m.Loss(), want) > 1e-12 {
				t.Errorf("op %v, LogProbRegex %v", m.Loss(), want)
			}
		})
	}
}
