package layers_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rtnlab/rtn/internal/fuzzcheck"
	"github.com/rtnlab/rtn/layers"
)

// FuzzLoadModel reads model directories made of a fuzzed model.json and
// model.npz: an error naming a file, or a model whose parameters match
// its configuration, never a panic, and no allocation beyond a constant
// plus what the two files can hold (a model.json declaring billions of
// parameters beside a small model.npz is refused before the model is
// built; a deflated .npz entry expands up to about 1032 times).
func FuzzLoadModel(f *testing.F) {
	dir := f.TempDir()
	for i, cfg := range []layers.ModelConfig{
		{Cell: "lstm", Config: layers.CellConfig{In: 3, Hidden: 2}, Layers: 2, Out: 3, Kind: "categorical"},
		{Cell: "cp2rnn", Config: layers.CellConfig{In: 4, Hidden: 2, Rank: 2}, Out: 3, Kind: "categorical",
			Input: layers.InputNextSymbol, Symbols: []string{"a", "b", "c"}, Embed: 2},
		{Cell: "rnn", Config: layers.CellConfig{In: 2, Hidden: 3}, Out: 1, Kind: "real"},
	} {
		m, err := layers.NewModel(cfg, rand.New(rand.NewPCG(uint64(i), 1)))
		if err != nil {
			f.Fatal(err)
		}
		d := filepath.Join(dir, m.Config.Cell)
		if err := m.Save(d); err != nil {
			f.Fatal(err)
		}
		js, err1 := os.ReadFile(filepath.Join(d, layers.ModelConfigFile))
		npz, err2 := os.ReadFile(filepath.Join(d, layers.ModelParamsFile))
		if err1 != nil || err2 != nil {
			f.Fatal(err1, err2)
		}
		f.Add(js, npz)
		if i == 0 {
			f.Add([]byte(`{"format": "rtn-sequence-model/1", "cell": "lstm", "config": {"in": 5, "hidden": 4096}, "layers": 64, "out": 4, "kind": "categorical"}`), npz)
			f.Add([]byte(`{"format": "rtn-sequence-model/1", "cell": "mpscell", "config": {"in": 5, "hidden": 4294967296}, "out": 4, "kind": "categorical"}`), npz)
			f.Add([]byte(`{"format": "rtn-sequence-model/1", "cell": "rnn", "config": {"in": 1, "hidden": 1}, "layers": 1000000000000, "out": 1, "kind": "real"}`), npz)
		}
	}
	f.Fuzz(func(t *testing.T, js, npz []byte) {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, layers.ModelConfigFile), js, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, layers.ModelParamsFile), npz, 0o644); err != nil {
			t.Fatal(err)
		}
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(js)+len(npz), 10000), func() {
			m, err := layers.LoadModel(d)
			if err != nil {
				return
			}
			if err := m.Config.Validate(); err != nil {
				t.Fatalf("LoadModel returned a model whose config does not validate: %v", err)
			}
			if n, ok := m.Config.Size(); ok && n != float64(m.Seq.Params.Size()) {
				t.Fatalf("the config counts %g parameters, the model has %d", n, m.Seq.Params.Size())
			}
		})
	})
}
