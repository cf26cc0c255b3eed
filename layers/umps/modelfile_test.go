package umps

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/params"
)

// A model file round-trips the core and its metadata (length model
// included), is found inside a run directory, and a file that is not a
// u-MPS over its alphabet is refused with a message naming the file.
func TestModelFile(t *testing.T) {
	dir := t.TempDir()
	p, err := NewParams(3, 2, NearIdentity, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	lengths, err := FitLengths([]int{1, 2, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	meta := ModelMeta{Kind: "umps", Data: "tomita1", Alphabet: []string{"0", "1"}, Bond: 3, Norm: PerLength.String(), Lengths: lengths}
	path := filepath.Join(dir, "model.npz")
	if err := SaveModel(path, meta, p); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{path, dir} {
		m, got, err := LoadModel(from)
		if err != nil {
			t.Fatal(err)
		}
		if m.Bond != 3 || m.Symbols != 2 || got.Data != "tomita1" || got.LengthModelName() != "fitted" || got.Lengths == nil {
			t.Errorf("%s: bond %d, %d symbols, meta %+v", from, m.Bond, m.Symbols, got)
		}
		if d := got.Distribution(m); d.M != m || d.Lengths == nil {
			t.Errorf("%s: distribution %+v", from, d)
		}
	}
	star := ModelMeta{Kind: "umps", Alphabet: []string{"0", "1"}, Norm: AllLengths.String()}
	if star.LengthModelName() != "star" || (ModelMeta{Norm: PerLength.String()}).LengthModelName() != "none" {
		t.Error("length model names of P_* and of a file without a length model")
	}
	for name, bad := range map[string]ModelMeta{
		"kind":     {Kind: "rnn", Alphabet: []string{"0", "1"}},
		"alphabet": {Kind: "umps", Alphabet: []string{"0", "1", "2"}},
	} {
		f := filepath.Join(dir, name+".npz")
		if err := SaveModel(f, bad, p); err != nil {
			t.Fatal(err)
		}
		if _, _, err := LoadModel(f); err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	other := filepath.Join(dir, "other.npz")
	if err := params.SaveNPZ(other, meta, map[string]*params.Params{"weights": p}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadModel(other); err == nil {
		t.Error("a file without a params set accepted")
	}
	if _, _, err := LoadModel(filepath.Join(dir, "missing.npz")); err == nil {
		t.Error("a missing file accepted")
	}
}
