package umps

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// A model file whose metadata does not describe its core is refused when
// read, with a message naming the file and what disagrees.
func TestLoadModelChecksMeta(t *testing.T) {
	dir := t.TempDir()
	p, err := NewParams(3, 2, NearIdentity, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	good := ModelMeta{Kind: "umps", Alphabet: []string{"0", "1"}, Bond: 3, Norm: AllLengths.String()}
	for _, tc := range []struct {
		name string
		edit func(*ModelMeta)
		want string
	}{
		{"twice", func(m *ModelMeta) { m.Alphabet = []string{"a", "a"} }, `names the symbol "a" twice`},
		{"empty-name", func(m *ModelMeta) { m.Alphabet = []string{"a", ""} }, "alphabet entry 1"},
		{"bond", func(m *ModelMeta) { m.Bond = 5 }, "gives bond 5, the core has bond 3"},
		{"no-bond", func(m *ModelMeta) { m.Bond = 0 }, "gives bond 0"},
		{"norm", func(m *ModelMeta) { m.Norm = "all" }, `unknown normalisation "all"`},
		{"lengths", func(m *ModelMeta) { m.Lengths = &LengthModel{Probs: []float64{2}} }, "length model"},
		{"symbols", func(m *ModelMeta) { m.Alphabet = []string{"0", "1", "2"} }, "the core has 2 symbols"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta := good
			tc.edit(&meta)
			path := filepath.Join(dir, tc.name+".npz")
			if err := SaveModel(path, meta, p); err != nil {
				t.Fatal(err)
			}
			_, _, err := LoadModel(path)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("LoadModel: %v, want an error naming %s and %q", err, path, tc.want)
			}
		})
	}
	path := filepath.Join(dir, "good.npz")
	if err := SaveModel(path, good, p); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadModel(path); err != nil {
		t.Errorf("a good model refused: %v", err)
	}
}
