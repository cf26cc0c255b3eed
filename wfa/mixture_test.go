package wfa

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/spectral"
)

// allStrings returns every string over d symbols of length at most n.
func allStrings(d, n int) [][]int {
	out := [][]int{{}}
	last := [][]int{{}}
	for range n {
		var next [][]int
		for _, x := range last {
			for s := range d {
				next = append(next, append(append([]int(nil), x...), s))
			}
		}
		out, last = append(out, next...), next
	}
	return out
}

// closeTo reports |a - b| <= tol * max(|a|, |b|, 1e-300).
func closeTo(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*max(math.Abs(a), math.Abs(b), 1e-300)
}

// The mixture automaton's value on every string up to length 4 is the
// weighted sum of its components' values, signed weights included.
func TestMixIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	ws := []spectral.WFA{randomPFA(rng, 2, 3), randomPFA(rng, 3, 3), randomPFA(rng, 1, 3)}
	ws[1].Trans[2][4] = -0.3 // a signed component
	coef := []float64{0.25, 1.5, -0.4}
	m, err := Mix(ws, coef)
	if err != nil {
		t.Fatal(err)
	}
	if m.States != 6 {
		t.Fatalf("%d states, want 6", m.States)
	}
	for _, x := range allStrings(3, 4) {
		want := 0.0
		for i, w := range ws {
			want += coef[i] * w.Value(x)
		}
		if got := m.Value(x); !closeTo(got, want, 1e-12) {
			t.Fatalf("value of %v: %g, want %g", x, got, want)
		}
	}
	if _, err := Mix(ws, coef[:2]); err == nil {
		t.Fatal("mixture with too few coefficients accepted")
	}
}

// mixWeights finds the minimum of the floored validation log-loss: two
// mirrored components mix half and half, and with a third, useless one
// the weights match a brute-force search of the simplex.
func TestMixWeights(t *testing.T) {
	p := []float64{0.5, 0.5}
	u := [][]float64{{0.8, 0.2}, {0.2, 0.8}}
	w := mixWeights(u, p)
	if !closeTo(w[0], 0.5, 1e-3) || !closeTo(w[0]+w[1], 1, 1e-12) {
		t.Fatalf("weights %v, want 0.5 each", w)
	}
	p = []float64{0.5, 0.3, 0.2}
	u = [][]float64{{0.5, 0.1, 0.05}, {0.2, 0.4, 0.1}, {0.1, 0.1, -0.2}}
	w = mixWeights(u, p)
	best, bw := math.Inf(1), []float64(nil)
	for a := 0.0; a <= 1; a += 0.001 {
		for b := 0.0; a+b <= 1; b += 0.001 {
			c := []float64{a, b, max(0, 1-a-b)}
			if v := mixZLL(u, p, c); v < best {
				best, bw = v, c
			}
		}
	}
	if got := mixZLL(u, p, w); got > best+1e-6 || !closeTo(w[0]+w[1]+w[2], 1, 1e-12) {
		t.Fatalf("weights %v (figure %.8f), brute force %v (%.8f)", w, got, bw, best)
	}
}

// Fit's mixture: the weights sum to 1, each is at least MinMixtureWeight,
// the model is sum_i w_i f_i / Z_i of the components refitted on all
// strings (FitSpecs' shared builds give FitSpec's automata), its mass is
// 1, and the file round-trips the components.
func TestFitMixture(t *testing.T) {
	target := randomPFA(rand.New(rand.NewPCG(21, 22)), 3, 3)
	z, _ := target.Mass()
	for i := range target.Omega {
		target.Omega[i] /= z
	}
	s := datasets.Symbols{Alphabet: []string{"a", "b", "c"}, Seqs: sample(t, target, 5000, 1)}
	cfg := Config{Bases: []int{2, 3}, Ranks: []int{1, 2, 3, 4, 5, 6}, MixtureSE: -1}
	m, rep, err := Fit(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Components) < 2 || len(m.Components) != len(rep.Components) || m.Spec != rep.Components[0].Spec {
		t.Fatalf("no mixture: components %v, model %v", rep.Components, m.Components)
	}
	sum := 0.0
	var ws []spectral.WFA
	var coef []float64
	var specs []Spec
	for _, c := range m.Components {
		specs = append(specs, c.Spec)
	}
	shared, err := FitSpecs(s.Seqs, len(s.Alphabet), specs, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range m.Components {
		if c.Weight < MinMixtureWeight {
			t.Fatalf("component %v below the smallest weight", c)
		}
		sum += c.Weight
		w, err := FitSpec(s.Seqs, len(s.Alphabet), c.Spec, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(shared[i], w) {
			t.Fatalf("component %v: FitSpecs differs from FitSpec", c.Spec)
		}
		zc, _ := w.Mass()
		ws, coef = append(ws, w), append(coef, c.Weight/zc)
	}
	if !closeTo(sum, 1, 1e-12) {
		t.Fatalf("weights sum to %g", sum)
	}
	if mass, _ := m.WFA.Mass(); !closeTo(mass, 1, 1e-9) {
		t.Fatalf("mixture mass %g, want 1", mass)
	}
	for _, x := range allStrings(3, 4) {
		want := 0.0
		for i, w := range ws {
			want += coef[i] * w.Value(x)
		}
		if got := m.WFA.Value(x); !closeTo(got, want, 1e-9) {
			t.Fatalf("value of %v: %g, want %g", x, got, want)
		}
	}
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&b)
	if err != nil || len(back.Components) != len(m.Components) {
		t.Fatalf("round trip: %v, %v", back, err)
	}
	for i, c := range back.Components {
		if c != m.Components[i] {
			t.Fatalf("component %d read back as %v, want %v", i, c, m.Components[i])
		}
	}
	cfg.Mixture = 1
	single, rep1, err := Fit(s, cfg)
	if err != nil || single.Components != nil || rep1.Components != nil || single.WFA.States != rep1.Chosen.Rank {
		t.Fatalf("Mixture 1: %v, %v, %v", err, single.Components, rep1.Components)
	}
}

// FitSpecs sets bases of 0 to their default as FitSpec does, shares one
// build between them and longer or shorter bases of the same variant, and
// refuses what FitSpec refuses, with its error; fitEach stops when told.
func TestFitSpecsBases(t *testing.T) {
	target := randomPFA(rand.New(rand.NewPCG(23, 24)), 3, 3)
	seqs := sample(t, target, 2000, 2)
	specs := []Spec{
		{Variant: spectral.Factor, Rank: 3},
		{Variant: spectral.Factor, Rows: 3, Cols: 3, Rank: 3},
		{Variant: spectral.Factor, Rows: 6, Cols: 6, Rank: 2},
		{Variant: spectral.Classic, Rows: 2, Cols: 4, Rank: 2},
	}
	ws, err := FitSpecs(seqs, 3, specs, 7)
	if err != nil {
		t.Fatal(err)
	}
	for i, spec := range specs {
		w, err := FitSpec(seqs, 3, spec, rand.New(rand.NewPCG(7, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ws[i], w) {
			t.Fatalf("%v: FitSpecs differs from FitSpec", spec)
		}
	}
	// fitEach stops at the first automaton refused, before fitting the
	// next (Fit's mixture falls back to the single best there).
	calls := 0
	if err := fitEach(seqs, 3, specs, 7, func(int, spectral.WFA) bool { calls++; return false }); err != nil || calls != 1 {
		t.Fatalf("refusing the first automaton: %d calls, error %v, want 1 and none", calls, err)
	}
	bad := Spec{Variant: spectral.Factor, Rows: -1, Cols: 3, Rank: 2}
	_, want := FitSpec(seqs, 3, bad, rand.New(rand.NewPCG(7, 2)))
	if _, err := FitSpecs(seqs, 3, append(specs, bad), 7); err == nil || want == nil || err.Error() != want.Error() {
		t.Fatalf("bases %d, %d: error %v, want %v", bad.Rows, bad.Cols, err, want)
	}
}

// The mixture gate: mixtureZ is the mean over the validation strings
// (repeats expanded) of the per-string gain in floored log-value over its
// standard error, and Fit keeps a mixture only when that exceeds
// MixtureSE.
func TestMixtureGate(t *testing.T) {
	best := []float64{0.2, 0.3, -0.1, 0.5}
	other := []float64{0.4, 0.3, 0.2, 0.1}
	w := []float64{0.7, 0.3}
	p := []float64{0.4, 0.2, 0.2, 0.2}
	expanded := []int{0, 0, 1, 2, 3} // p times 5
	var d []float64
	for _, x := range expanded {
		mix := w[0]*best[x] + w[1]*other[x]
		d = append(d, math.Log(max(mix, Floor))-math.Log(max(best[x], Floor)))
	}
	mean, sq := 0.0, 0.0
	for _, v := range d {
		mean += v / float64(len(d))
	}
	for _, v := range d {
		sq += (v - mean) * (v - mean) / float64(len(d))
	}
	want := mean / math.Sqrt(sq/float64(len(d)))
	if got := mixtureZ([][]float64{best, other}, p, w, best, len(expanded)); !closeTo(got, want, 1e-12) {
		t.Fatalf("mixtureZ = %g, want %g", got, want)
	}

	target := randomPFA(rand.New(rand.NewPCG(21, 22)), 3, 3)
	z, _ := target.Mass()
	for i := range target.Omega {
		target.Omega[i] /= z
	}
	// Every string gains (or loses) log 2, or nothing: no spread.
	for _, c := range []struct {
		best, mix []float64
		want      float64
	}{
		{[]float64{0.25, 0.5}, []float64{0.5, 1}, math.Inf(1)},
		{[]float64{0.5, 1}, []float64{0.25, 0.5}, math.Inf(-1)},
		{[]float64{0.25, 0.5}, []float64{0.25, 0.5}, 0},
	} {
		if got := mixtureZ([][]float64{c.mix}, []float64{0.5, 0.5}, []float64{1}, c.best, 2); got != c.want {
			t.Fatalf("%v over %v: mixtureZ = %g, want %g", c.mix, c.best, got, c.want)
		}
	}

	// On this sample the mixture's gain is 0.88 standard errors over the
	// default split and 2.26 over 3 folds (every string validates once).
	s := datasets.Symbols{Alphabet: []string{"a", "b", "c"}, Seqs: sample(t, target, 5000, 1)}
	for _, c := range []struct {
		cfg     Config
		mixture bool
	}{
		{Config{MixtureSE: 1e9}, false},
		{Config{}, false}, // the default gate, one standard error
		{Config{MixtureSE: -1}, true},
		{Config{Folds: 3, MixtureSE: 2}, true},
		{Config{Folds: 3, MixtureSE: 3}, false},
	} {
		c.cfg.Bases, c.cfg.Ranks = []int{2, 3}, []int{1, 2, 3, 4, 5, 6}
		m, rep, err := Fit(s, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(rep.Components) > 0 && len(m.Components) > 0; got != c.mixture {
			t.Fatalf("folds %d, gate %g: mixture %v, want %v (%v)", c.cfg.Folds, c.cfg.MixtureSE, got, c.mixture, rep.Components)
		}
	}
	if _, _, err := Fit(s, Config{MixtureSE: math.NaN()}); err == nil {
		t.Fatal("a NaN gate accepted")
	}
}
