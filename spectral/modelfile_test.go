package spectral

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestModelFileRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	m := randRNN(rng, 3, 4, 2)
	m.A[5] = math.SmallestNonzeroFloat64
	m.Omega[1] = -1.0 / 3
	dir := t.TempDir()
	for _, path := range []string{filepath.Join(dir, "m.npz"), dir} {
		np, js := ModelPaths(path)
		if err := SaveModel(np, js, m, ModelInfo{Method: "tiht", Basis: "prefixes {2} x suffixes {2}", TrainMSE: 0.5}); err != nil {
			t.Fatal(err)
		}
		got, info, err := LoadModel(np)
		if err != nil {
			t.Fatal(err)
		}
		bits := func(v []float64) []uint64 {
			out := make([]uint64, len(v))
			for i, x := range v {
				out[i] = math.Float64bits(x)
			}
			return out
		}
		if got.States != 3 || got.In != 4 || got.Out != 2 || !slices.Equal(bits(got.A), bits(m.A)) ||
			!slices.Equal(bits(got.Alpha), bits(m.Alpha)) || !slices.Equal(bits(got.Omega), bits(m.Omega)) {
			t.Fatalf("%s: model changed", path)
		}
		if info.Method != "tiht" || info.TrainMSE != 0.5 || info.Format != ModelFormat {
			t.Fatalf("info %+v", info)
		}
		if b, err := os.ReadFile(js); err != nil || !strings.Contains(string(b), `"method": "tiht"`) {
			t.Fatalf("%s: %q %v", js, b, err)
		}
	}
	if _, _, err := LoadModel(filepath.Join(dir, "model.json")); err == nil {
		t.Fatal("loading the JSON file as a model worked")
	}
}

// SaveModel needs both file names and writes nothing without one.
func TestSaveModelPaths(t *testing.T) {
	dir := t.TempDir()
	np := filepath.Join(dir, "m.npz")
	if err := SaveModel(np, "", randRNN(rand.New(rand.NewPCG(2, 10)), 2, 2, 1), ModelInfo{}); err == nil || !strings.Contains(err.Error(), "needs both file names") {
		t.Errorf("no JSON path: %v", err)
	}
	if _, err := os.Stat(np); !os.IsNotExist(err) {
		t.Errorf("the .npz was written (%v)", err)
	}
}
