package runs

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rtnlab/rtn/internal/fuzzcheck"
	"github.com/rtnlab/rtn/pfa"
	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
)

// fuzzStringsModels returns small strings model files: a pfa, an hmm and
// a wfa.
func fuzzStringsModels(tb testing.TB) [][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	w := spectral.WFA{States: 2, Out: 1, Alpha: []float64{1, 0}, Omega: []float64{0.5, 0.2},
		Trans: [][]float64{{0.2, 0.1, 0, 0.3}, {0.1, 0, 0.2, 0.1}}}
	var out [][]byte
	for _, m := range []StringsModel{
		{Format: StringsModelFormat, Family: FamilyPFA, Alphabet: []string{"a", "b"}, PFA: pfa.Random(pfa.KindPFA, 3, 2, rng)},
		{Format: StringsModelFormat, Family: FamilyHMM, Alphabet: []string{"0", "1", "2"}, PFA: pfa.Random(pfa.KindHMM, 2, 3, rng)},
		{Format: StringsModelFormat, Family: FamilyWFA, Alphabet: []string{"x", "y"}, WFA: &wfa.Model{WFA: w, Alphabet: []string{"x", "y"}}},
	} {
		if err := m.Validate(); err != nil {
			tb.Fatal(err)
		}
		var b bytes.Buffer
		if err := json.NewEncoder(&b).Encode(&m); err != nil {
			tb.Fatal(err)
		}
		path := filepath.Join(tb.TempDir(), "m.json")
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			tb.Fatal(err)
		}
		if _, err := LoadStringsModel(path); err != nil {
			tb.Fatalf("a seed model does not load: %v", err)
		}
		out = append(out, b.Bytes())
	}
	return out
}

// FuzzLoadStringsModel: a strings model file loads with an error or as a
// model that scores, samples and ranks strings over its alphabet, never a
// panic, and allocates no more than a bounded multiple of its size.
func FuzzLoadStringsModel(f *testing.F) {
	for _, b := range fuzzStringsModels(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "m.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b), 1000), func() {
			m, err := LoadStringsModel(path)
			if err != nil {
				return
			}
			seqs := [][]int{{}, {0}, {len(m.Alphabet) - 1, 0}}
			if _, err := ScoreStrings(m, seqs, nil, 1); err != nil {
				t.Fatalf("a loaded model does not score strings over its alphabet: %v", err)
			}
			if _, err := RankStrings(m, seqs, 2); err != nil {
				t.Fatalf("a loaded model does not rank after prefixes over its alphabet: %v", err)
			}
			m.Sample(2, 5, rand.New(rand.NewPCG(1, 1)))
		})
	})
}
