package spectral

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rtnlab/rtn/internal/fuzzcheck"
)

// FuzzLoadModel reads fuzzed linear 2-RNN model files: an error naming
// the file, or a model that validates and evaluates, never a panic, and
// no allocation beyond a constant plus what the file can hold (a deflated
// .npz entry expands up to about 1032 times).
func FuzzLoadModel(f *testing.F) {
	dir := f.TempDir()
	for i, m := range []RNN{
		{States: 2, In: 1, Out: 1, Alpha: []float64{1, 0.5}, A: []float64{0.1, 0.2, 0.3, 0.4}, Omega: []float64{1, -1}},
		{States: 1, In: 2, Out: 2, Alpha: []float64{1}, A: []float64{0.5, -0.5}, Omega: []float64{2, 3}},
	} {
		npz, js := ModelPaths(filepath.Join(dir, string(rune('a'+i))+".npz"))
		if err := SaveModel(npz, js, m, ModelInfo{Method: "ls", Seed: 1}); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(npz)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "m.npz")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b), 10000), func() {
			m, _, err := LoadModel(path)
			if err != nil {
				return
			}
			if err := m.Validate(); err != nil {
				t.Fatalf("LoadModel returned a model that does not validate: %v", err)
			}
			if y := m.Eval(make([]float64, 2*m.In)); len(y) != m.Out {
				t.Fatalf("Eval gave %d outputs, want %d", len(y), m.Out)
			}
		})
	})
}
