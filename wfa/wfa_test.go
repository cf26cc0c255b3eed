package wfa

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/spectral"
)

// sample draws count strings from w.
func sample(t *testing.T, w spectral.WFA, count int, seed uint64) [][]int {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	var out [][]int
	for range count {
		x, err := w.Sample(rng, 60)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, x)
	}
	return out
}

// Fit on a sample of a small automaton selects a non-divergent automaton
// close to the target: its test perplexity is within 2 % of the optimum.
func TestFitRecoversTarget(t *testing.T) {
	target := randomPFA(rand.New(rand.NewPCG(21, 22)), 3, 3)
	z, _ := target.Mass()
	for i := range target.Omega {
		target.Omega[i] /= z
	}
	s := datasets.Symbols{Alphabet: []string{"a", "b", "c"}, Seqs: sample(t, target, 5000, 1)}
	m, rep, err := Fit(s, Config{Bases: []int{2}, Ranks: []int{1, 2, 3, 4, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := m.WFA.SpectralRadius(); !(r < 1) {
		t.Fatalf("selected automaton has spectral radius %g", r)
	}
	for _, c := range rep.Candidates {
		if c.Spec == rep.Chosen && c.Rejected != "" {
			t.Fatalf("chosen candidate was rejected: %s", c.Rejected)
		}
	}
	test := NewEvalSet(sample(t, target, 400, 2))
	truth := make([]float64, len(test.Seqs))
	for i, x := range test.Seqs {
		truth[i] = target.Value(x)
	}
	opt, _ := Score(&Model{WFA: target}, test.Seqs, truth)
	got, err := Score(m, test.Seqs, truth)
	if err != nil || !(got <= 1.02*opt) {
		t.Fatalf("perplexity %g (%v), optimum %g", got, err, opt)
	}
}

// A model file round-trips bit for bit, including awkward values.
func TestModelRoundTrip(t *testing.T) {
	w := randomPFA(rand.New(rand.NewPCG(23, 24)), 3, 2)
	w.Alpha[0], w.Omega[1], w.Trans[1][4] = 1.0/3, -math.SmallestNonzeroFloat64, math.MaxFloat64/7
	m := &Model{WFA: w, Alphabet: []string{"x", "y"}, Spec: Spec{Variant: spectral.Factor, Rows: 3, Cols: 4, Rank: 3}, Finetuned: true}
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	bits := func(v []float64) []uint64 {
		u := make([]uint64, len(v))
		for i, x := range v {
			u[i] = math.Float64bits(x)
		}
		return u
	}
	if !slices.Equal(bits(got.WFA.Alpha), bits(w.Alpha)) || !slices.Equal(bits(got.WFA.Omega), bits(w.Omega)) ||
		got.Spec != m.Spec || !got.Finetuned || !slices.Equal(got.Alphabet, m.Alphabet) {
		t.Fatalf("round trip changed the model: %+v", got)
	}
	for s := range w.Trans {
		if !slices.Equal(bits(got.WFA.Trans[s]), bits(w.Trans[s])) {
			t.Fatalf("transitions of symbol %d changed", s)
		}
	}
	if _, err := Read(bytes.NewReader([]byte(`{"format":"rtn-wfa-1","alphabet":["x"],"variant":"classic","states":1,"alpha":[1],"transitions":[[0.5]],"omega":["NaN"]}`))); err == nil {
		t.Fatal("a malformed model was accepted")
	}
	if _, err := Read(bytes.NewReader([]byte(`{"format":"rtn-wfa-1","alphabet":["x","x"],"variant":"classic","states":1,"alpha":[1],"transitions":[[0.25],[0.25]],"omega":[0.5]}`))); err == nil || !strings.Contains(err.Error(), `names the symbol "x" twice`) {
		t.Fatalf("a model naming a symbol twice: %v", err)
	}
}

// Score is the PAutomaC perplexity: the optimum when the model is the
// truth, and the floor keeps a model with negative values finite.
func TestScoreAndFloor(t *testing.T) {
	w := randomPFA(rand.New(rand.NewPCG(25, 26)), 2, 2)
	seqs := [][]int{{}, {0}, {1, 1}, {0, 1, 0}}
	truth := make([]float64, len(seqs))
	for i, x := range seqs {
		truth[i] = w.Value(x)
	}
	m := &Model{WFA: w}
	got, err := Score(m, seqs, truth)
	if err != nil {
		t.Fatal(err)
	}
	h, sum := 0.0, 0.0
	for _, v := range truth {
		sum += v
	}
	for _, v := range truth {
		h -= v / sum * math.Log2(v/sum)
	}
	if math.Abs(got-math.Exp2(h)) > 1e-12*got {
		t.Fatalf("score %g, want 2^H = %g", got, math.Exp2(h))
	}
	neg := w
	neg.Omega = []float64{-1, -1}
	if q := (&Model{WFA: neg}).Predict(seqs); q[0] != Floor {
		t.Fatalf("negative value predicted as %g, want the floor", q[0])
	}
}

// LOO by hand: distinct strings weighted by their counts minus one,
// floored values normalised over the distinct strings; ZLL when no string
// repeats.
func TestLOO(t *testing.T) {
	w := randomPFA(rand.New(rand.NewPCG(27, 28)), 2, 2)
	w.Omega[0] = -w.Omega[0] // some values negative: the floor applies
	e := NewEvalSet([][]int{{0}, {1, 0}, {0}, {}, {0}, {1, 0}, {1, 1, 1}})
	distinct := [][]int{{0}, {1, 0}, {}, {1, 1, 1}}
	weight := []float64{2, 1, 0, 0}
	q, sum := make([]float64, len(distinct)), 0.0
	for i, x := range distinct {
		q[i] = max(w.Value(x), Floor)
		sum += q[i]
	}
	want := 0.0
	for i := range q {
		want -= weight[i] / 3 * math.Log(q[i]/sum)
	}
	if got := e.LOO(w); math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Fatalf("LOO = %g, want %g", got, want)
	}
	once := NewEvalSet(distinct)
	if got, zll := once.LOO(w), once.ZLL(w); got != zll {
		t.Fatalf("LOO without repeats = %g, want ZLL %g", got, zll)
	}
}

// A degenerate candidate (mass near 0, every value floored) is rejected
// although its zll is low, and so is a divergent one.
func TestJudgeRejects(t *testing.T) {
	valid := NewEvalSet([][]int{{0}, {1}, {0, 1}})
	tiny := spectral.WFA{States: 1, Out: 1, Alpha: []float64{1e-17}, Omega: []float64{0.5}, Trans: [][]float64{{0.2}, {0.2}}}
	if c := judge(tiny, Spec{Rank: 1}, valid, Config{MaxFloored: 0.5}); c.Rejected != "mass out of range" {
		t.Fatalf("tiny-mass candidate: %+v", c)
	}
	big := spectral.WFA{States: 1, Out: 1, Alpha: []float64{1}, Omega: []float64{0.5}, Trans: [][]float64{{0.6}, {0.6}}}
	if c := judge(big, Spec{Rank: 1}, valid, Config{MaxFloored: 0.5}); c.Rejected != "diverges" {
		t.Fatalf("divergent candidate: %+v", c)
	}
	good := spectral.WFA{States: 1, Out: 1, Alpha: []float64{1}, Omega: []float64{0.5}, Trans: [][]float64{{0.25}, {0.25}}}
	if c := judge(good, Spec{Rank: 1}, valid, Config{MaxFloored: 0.5}); c.Rejected != "" {
		t.Fatalf("good candidate rejected: %+v", c)
	}
}

// NDCG@5 of a ranking against SPiCe targets, by hand; a perfect ranking
// scores 1; a malformed target line is refused with its line number.
func TestNDCG5(t *testing.T) {
	targets, err := ReadTargets(strings.NewReader("1.5 0 0.5 -1 0.3 2 0.2\n"))
	if err != nil {
		t.Fatal(err)
	}
	ideal := 0.5 + 0.3/math.Log2(3) + 0.2/math.Log2(4)
	targets[0].Ideal = ideal
	got, err := NDCG5([][]int{{2, 0, End}}, targets)
	want := (0.2 + 0.5/math.Log2(3) + 0.3/math.Log2(4)) / ideal
	if err != nil || math.Abs(got-want) > 1e-15 {
		t.Fatalf("NDCG5 = %g (%v), want %g", got, err, want)
	}
	if got, _ := NDCG5([][]int{{0, End, 2}}, targets); math.Abs(got-1) > 1e-15 {
		t.Fatalf("perfect ranking scores %g", got)
	}
	if _, err := ReadTargets(strings.NewReader("1 0 0.5\n1 0\n")); err == nil || !strings.Contains(err.Error(), ":2:") && !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("malformed targets: %v", err)
	}
}

// Cross-validation: every string validates exactly once, a candidate's
// figures are the size-weighted means (ZLL, LOO, perplexity) and maxima
// (floored share, radius) of its folds' judgements, and the returned
// configuration is the unrejected candidate of lowest mean ZLL (the
// default criterion).
func TestFitCrossValidation(t *testing.T) {
	const n, k = 1003, 3
	parts, err := folds(n, Config{Folds: k, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, n)
	for _, p := range parts {
		if len(p) < n/k {
			t.Fatalf("fold of %d strings, want >= %d", len(p), n/k)
		}
		for _, j := range p {
			seen[j]++
		}
	}
	if slices.ContainsFunc(seen, func(c int) bool { return c != 1 }) {
		t.Fatal("a string is validated more or less than once")
	}
	target := randomPFA(rand.New(rand.NewPCG(21, 22)), 3, 3)
	z, _ := target.Mass()
	for i := range target.Omega {
		target.Omega[i] /= z
	}
	s := datasets.Symbols{Alphabet: []string{"a", "b", "c"}, Seqs: sample(t, target, 3000, 5)}
	perFold := map[Spec][]Candidate{}
	cfg := Config{Variants: []spectral.HankelVariant{spectral.Classic}, Bases: []int{2}, Ranks: []int{1, 2, 3, 4}, Folds: k, Seed: 4,
		OnCandidate: func(c Candidate, _ spectral.WFA) { perFold[c.Spec] = append(perFold[c.Spec], c) }}
	_, rep, err := Fit(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	parts, _ = folds(len(s.Seqs), Config{Folds: k, Seed: 4})
	const tol = 1e-12
	best := -1
	for i, c := range rep.Candidates {
		fs := perFold[c.Spec]
		if len(fs) != k {
			t.Fatalf("%v: judged on %d folds, want %d", c.Spec, len(fs), k)
		}
		var zll, loo, perp, fl, rad float64
		for f, j := range fs {
			share := float64(len(parts[f])) / float64(len(s.Seqs))
			zll += share * j.ZLL
			loo += share * j.LOO
			perp += share * j.Perplexity
			fl, rad = max(fl, j.Floored), max(rad, j.Radius)
		}
		if math.Abs(c.ZLL-zll) > tol*math.Abs(zll) || math.Abs(c.LOO-loo) > tol*math.Abs(loo) || math.Abs(c.Perplexity-perp) > tol*perp || c.Floored != fl || c.Radius != rad {
			t.Fatalf("%v: %+v, want zll %g perplexity %g floored %g radius %g", c.Spec, c, zll, perp, fl, rad)
		}
		if c.Rejected == "" && (best < 0 || c.ZLL < rep.Candidates[best].ZLL) {
			best = i
		}
	}
	if best < 0 || rep.Chosen != rep.Candidates[best].Spec {
		t.Fatalf("chose %v, want the lowest mean zll", rep.Chosen)
	}
}

// Encode maps the strings' ids to the model's by name, and refuses an id
// outside the strings' alphabet, a name the model does not know and a
// model whose names and matrices disagree.
func TestModelEncode(t *testing.T) {
	m := &Model{Alphabet: []string{"a", "b", "c"}, WFA: spectral.WFA{States: 1, Out: 1, Alpha: []float64{1}, Omega: []float64{0.5},
		Trans: [][]float64{{0.1}, {0.1}, {0.1}}}}
	for _, tc := range []struct {
		alphabet []string
		seqs     [][]int
		want     [][]int
		err      string
	}{
		{[]string{"a", "b", "c"}, [][]int{{0, 2}, {}}, [][]int{{0, 2}, {}}, ""},
		{[]string{"c", "a", "b"}, [][]int{{0, 2}, {1}}, [][]int{{2, 1}, {0}}, ""},
		{[]string{"b"}, [][]int{{0, 0}}, [][]int{{1, 1}}, ""},
		{[]string{"a", "b", "c", "d"}, [][]int{{0, 1}}, [][]int{{0, 1}}, ""},
		{[]string{"a", "b", "c", "d"}, [][]int{{3}}, nil, `"d", which the model does not know`},
		{[]string{"a", "b", "c"}, [][]int{{5}}, nil, "symbol id 5, outside its alphabet of 3"},
		{[]string{"a", "b", "c"}, [][]int{{-1}}, nil, "symbol id -1"},
		{[]string{"c", "b"}, [][]int{{2}}, nil, "symbol id 2, outside its alphabet of 2"},
		{nil, [][]int{{0}}, nil, "outside its alphabet of 0"},
	} {
		got, err := m.Encode(datasets.Symbols{Alphabet: tc.alphabet, Seqs: tc.seqs})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("alphabet %v, strings %v: %v, want %q", tc.alphabet, tc.seqs, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.EqualFunc(got, tc.want, slices.Equal[[]int]) {
			t.Errorf("alphabet %v, strings %v: %v (%v), want %v", tc.alphabet, tc.seqs, got, err, tc.want)
		}
	}
	bad := *m
	bad.Alphabet = []string{"a", "b", "c", "d"}
	if _, err := bad.Encode(datasets.Symbols{Alphabet: bad.Alphabet}); err == nil || !strings.Contains(err.Error(), "names 4 symbols for 3 transition matrices") {
		t.Errorf("a model whose names and matrices disagree: %v", err)
	}
	if _, err := FitSpec([][]int{{0, 1}, {1}}, 2, Spec{Variant: spectral.Classic, Rows: 1, Cols: 1, Rank: 1}, nil); err == nil {
		t.Error("FitSpec ran without a random generator")
	}
}
