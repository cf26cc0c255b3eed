package umps

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

const (
	chiSamples = 100000 // samples per chi-square test (the figure)
	chiPMin    = 0.001  // smallest accepted p-value
)

// exactConditional returns, for the strings of length <= maxLen matching
// pattern, their probability under P_*(s | s in R) with each string counted
// once: f(s)^2 / Z, Z the brute-force mass of the language up to maxLen
// plus tail (the mass of longer strings, given separately).
func exactConditional(m *MPS, alphabet string, maxLen int, pattern string, total float64) map[string]float64 {
	re := regexp.MustCompile(`^(?:` + pattern + `)$`)
	out := map[string]float64{}
	enumerate(m, maxLen, func(s []int, amp float64) {
		k := key(s, alphabet)
		if re.MatchString(k) {
			out[k] = amp * amp / total
		}
	})
	return out
}

func key(s []int, alphabet string) string {
	a := []rune(alphabet)
	r := make([]rune, len(s))
	for i, c := range s {
		r[i] = a[c]
	}
	return string(r)
}

// chiSquare tests samples against the exact probabilities want; strings not
// in want, and bins expecting fewer than 5 draws, are pooled into one bin
// whose probability is the rest. It returns the p-value.
func chiSquare(t *testing.T, samples [][]int, alphabet string, want map[string]float64) float64 {
	t.Helper()
	n := float64(len(samples))
	counts := map[string]float64{}
	for _, s := range samples {
		counts[key(s, alphabet)]++
	}
	stat, bins := 0.0, 0
	restP, restN := 1.0, n
	for k, p := range want {
		if p*n < 5 {
			continue
		}
		e := p * n
		stat += (counts[k] - e) * (counts[k] - e) / e
		bins++
		restP -= p
		restN -= counts[k]
	}
	if restP*n >= 5 {
		e := restP * n
		stat += (restN - e) * (restN - e) / e
		bins++
	} else if restN > 20 {
		t.Errorf("%g draws outside the bins, expected %g", restN, restP*n)
	}
	return distuv.ChiSquared{K: float64(bins - 1)}.Survival(stat)
}

// The samplers are exact: 100,000 seeded draws match the exact conditional
// distribution (chi-square p > 0.001) for a fixed length, fill in the
// blank, an unambiguous regex with closures through Algorithm 1, and
// ambiguous regexes through the DFA path.
func TestSamplersChiSquare(t *testing.T) {
	m := testModel(t, 3, 2, 0.3, 31)
	const alphabet = "01"
	tr, err := NewTransfer(m)
	if err != nil {
		t.Fatal(err)
	}
	lz, err := m.LogZn(5)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		pattern string // the conditioning language, for the oracle
		maxLen  int
		draw    func(rng *rand.Rand, count int) ([][]int, error)
		logZ    func() (float64, error)
	}{
		{"fixed length 5", `.{5}`, 5,
			func(rng *rand.Rand, k int) ([][]int, error) { return tr.SampleLength(5, k, rng) },
			func() (float64, error) { return lz[5], nil }},
		{"fill in 1...01", `1...01`, 6,
			func(rng *rand.Rand, k int) ([][]int, error) { return tr.FillIn([]int{1}, []int{0, 1}, 3, k, rng) },
			func() (float64, error) { return tr.LogZ(mustRegex(t, `1...01`, alphabet)) }},
		{"algorithm 1 (01|1)*0?", `(01|1)*0?`, 12, algo1(t, tr, `(01|1)*0?`), zr(t, tr, `(01|1)*0?`)},
		{"algorithm 1 0(1*0)*|1{2,3}", `0(1*0)*|1{2,3}`, 12, algo1(t, tr, `0(1*0)*|1{2,3}`), zr(t, tr, `0(1*0)*|1{2,3}`)},
		{"dfa .*1.*", `.*1.*`, 12, exact(t, tr, `.*1.*`), exactZ(t, tr, `.*1.*`)},
		{"dfa (0|01)(1|11)", `(0|01)(1|11)`, 4, exact(t, tr, `(0|01)(1|11)`), exactZ(t, tr, `(0|01)(1|11)`)},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			logZ, err := c.logZ()
			if err != nil {
				t.Fatal(err)
			}
			want := exactConditional(m, alphabet, c.maxLen, c.pattern, math.Exp(logZ))
			samples, err := c.draw(rand.New(rand.NewPCG(uint64(i), 99)), chiSamples)
			if err != nil {
				t.Fatal(err)
			}
			if p := chiSquare(t, samples, alphabet, want); !(p > chiPMin) {
				t.Errorf("chi-square p-value %.3g", p)
			}
			again, _ := c.draw(rand.New(rand.NewPCG(uint64(i), 99)), 50)
			if fmt.Sprint(again[:50]) != fmt.Sprint(samples[:50]) {
				t.Error("same seed gave different samples")
			}
		})
	}
}

func algo1(t *testing.T, tr *Transfer, pattern string) func(*rand.Rand, int) ([][]int, error) {
	r := mustRegex(t, pattern, "01")
	return func(rng *rand.Rand, k int) ([][]int, error) { return tr.Sample(r, k, rng) }
}

func zr(t *testing.T, tr *Transfer, pattern string) func() (float64, error) {
	r := mustRegex(t, pattern, "01")
	return func() (float64, error) { return tr.LogZ(r) }
}

func exact(t *testing.T, tr *Transfer, pattern string) func(*rand.Rand, int) ([][]int, error) {
	r := mustRegex(t, pattern, "01")
	return func(rng *rand.Rand, k int) ([][]int, error) {
		s, err := tr.NewExactSampler(r)
		if err != nil {
			return nil, err
		}
		return s.Sample(k, rng)
	}
}

func exactZ(t *testing.T, tr *Transfer, pattern string) func() (float64, error) {
	r := mustRegex(t, pattern, "01")
	return func() (float64, error) {
		s, err := tr.NewExactSampler(r)
		if err != nil {
			return 0, err
		}
		return s.LogZ(), nil
	}
}

// The DFA path's normaliser counts each string once: it equals brute force
// for ambiguous regexes, where Table 1 over-counts.
func TestExactSamplerLogZ(t *testing.T) {
	m := testModel(t, 3, 2, 0.1, 41)
	tr, err := NewTransfer(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{`.*1.*`, `(0|01)(1|11)`, `(0|1|01)*`, `0*1*|1*0*`, `.{3}`, `(01|1)*`} {
		r := mustRegex(t, p, "01")
		s, err := tr.NewExactSampler(r)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		want := bruteZR(m, "01", 14, p)
		if e := relErr(math.Exp(s.LogZ()), want); e > 1e-10 {
			t.Errorf("%s: DFA Z %.15g, brute force %.15g", p, math.Exp(s.LogZ()), want)
		}
	}
}

// Ambiguity detection agrees with its definition: Table 1 (which counts
// matches) equals the language's mass exactly when the regex is
// unambiguous.
func TestAmbiguous(t *testing.T) {
	m := testModel(t, 3, 2, 0.1, 51)
	tr, err := NewTransfer(m)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		pattern   string
		ambiguous bool
	}{
		{`.*`, false}, {`(01|1)*`, false}, {`((01)*1)*`, false}, {`0{2,4}1?`, false},
		{`(1*0)*1*`, false}, {`1(0|1)*0|0`, false},
		{`.*1.*`, true}, {`(0|01)(1|11)`, true}, {`(0|1|01)*`, true}, {`0*1*|1*0*`, true},
		{`(0?|1?)1`, true}, {`(0|00)*`, true}, {`0*0*`, true},
	}
	for _, c := range cases {
		r := mustRegex(t, c.pattern, "01")
		if got := r.Ambiguous(); got != c.ambiguous {
			t.Errorf("%s: Ambiguous() = %v, want %v", c.pattern, got, c.ambiguous)
		}
		lz, err := tr.LogZ(r)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		differs := relErr(math.Exp(lz), bruteZR(m, "01", 14, c.pattern)) > 1e-10
		if differs != c.ambiguous {
			t.Errorf("%s: Table 1 differs from the language mass: %v, ambiguous %v", c.pattern, differs, c.ambiguous)
		}
	}
	_, err = tr.Sample(mustRegex(t, `.*1.*`, "01"), 1, rand.New(rand.NewPCG(1, 1)))
	if err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("Algorithm 1 on an ambiguous regex: got %v", err)
	}
}

// The completion distribution is f(p c s)^2 normalised over c.
func TestComplete(t *testing.T) {
	m := testModel(t, 4, 3, 2, 61)
	tr, err := NewTransfer(m)
	if err != nil {
		t.Fatal(err)
	}
	prefix, suffix := []int{2, 0, 1}, []int{1, 1, 0, 2}
	got, err := tr.Complete(prefix, suffix)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, 3)
	total := 0.0
	for c := range want {
		s := append(append(append([]int(nil), prefix...), c), suffix...)
		la, _, err := m.LogAmplitude(s)
		if err != nil {
			t.Fatal(err)
		}
		want[c] = math.Exp(2 * la)
		total += want[c]
	}
	for c := range want {
		if math.Abs(got[c]-want[c]/total) > 1e-12 {
			t.Errorf("p(%d) = %.15g, want %.15g", c, got[c], want[c]/total)
		}
	}
	if _, err := tr.Complete([]int{3}, nil); err == nil {
		t.Error("prefix symbol outside the alphabet accepted")
	}
}

// The chi-square test has power: Algorithm 1 forced onto an ambiguous
// regex (bypassing the refusal) weights "011" twice and is rejected.
func TestChiSquareDetectsAmbiguityBias(t *testing.T) {
	m := testModel(t, 3, 2, 0.3, 31)
	tr, err := NewTransfer(m)
	if err != nil {
		t.Fatal(err)
	}
	const p = `(0|01)(1|11)`
	r := mustRegex(t, p, "01")
	samples, err := tr.sampleNode(r.root, chiSamples, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	s, err := tr.NewExactSampler(r)
	if err != nil {
		t.Fatal(err)
	}
	want := exactConditional(m, "01", 4, p, math.Exp(s.LogZ()))
	if pv := chiSquare(t, samples, "01", want); pv > chiPMin {
		t.Errorf("biased sampler passed with p = %.3g", pv)
	}
}

// An exact sampler whose dense system would be too large is refused with
// the reason, before any allocation.
func TestExactSamplerTooLarge(t *testing.T) {
	m, err := New(20, 2, NearIdentity, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTransfer(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.NewExactSampler(mustRegex(t, `.{20}`, "01")); err == nil || !strings.Contains(err.Error(), "DFA states") {
		t.Errorf("got %v", err)
	}
}
