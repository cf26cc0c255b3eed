package params

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestArraysRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.npz")
	in := []Array{
		{Name: "x", Shape: []int{2, 3}, Data: []float64{1.5, -2, math.SmallestNonzeroFloat64, math.MaxFloat64, 0, -0.1}},
		{Name: "n", Shape: []int{3}, Data: []float64{4, -5, 1 << 40}, Int: true},
		{Name: "s", Data: []float64{7}},
	}
	type meta struct{ Kind string }
	if err := WriteArrays(path, meta{"test"}, in); err != nil {
		t.Fatal(err)
	}
	var m meta
	out, err := ReadArrays(path, &m)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != "test" || len(out) != len(in) {
		t.Fatalf("meta %+v, %d arrays", m, len(out))
	}
	for i := range in {
		a, b := in[i], out[i]
		if a.Name != b.Name || !slices.Equal(a.Shape, b.Shape) || len(a.Data) != len(b.Data) {
			t.Fatalf("array %d: wrote %+v, read %+v", i, a, b)
		}
		for j := range a.Data {
			if math.Float64bits(a.Data[j]) != math.Float64bits(b.Data[j]) {
				t.Fatalf("array %s value %d: %g != %g", a.Name, j, a.Data[j], b.Data[j])
			}
		}
	}
	// The same contents give the same bytes.
	path2 := filepath.Join(t.TempDir(), "b.npz")
	if err := WriteArrays(path2, meta{"test"}, in); err != nil {
		t.Fatal(err)
	}
	b1, _ := os.ReadFile(path)
	b2, _ := os.ReadFile(path2)
	if !slices.Equal(b1, b2) {
		t.Fatal("equal contents gave different files")
	}
	if !strings.Contains(string(b1), "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }") {
		t.Fatal("the integer array is not stored as <i8")
	}
}

func TestWriteArraysErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.npz")
	for _, a := range []Array{
		{Name: "x", Shape: []int{2}, Data: []float64{1}},
		{Name: "n", Shape: []int{1}, Data: []float64{0.5}, Int: true},
	} {
		if err := WriteArrays(path, nil, []Array{a}); err == nil {
			t.Errorf("%+v: no error", a)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("failed writes left %d files", len(ents))
	}
}

func TestReadArraysErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.npz")
	os.WriteFile(bad, []byte("not a zip"), 0o644)
	if _, err := ReadArrays(bad, nil); err == nil || !strings.Contains(err.Error(), "bad.npz") {
		t.Fatalf("error %v", err)
	}
	if _, err := ReadArrays(filepath.Join(dir, "missing.npz"), nil); err == nil {
		t.Fatal("missing file: no error")
	}
}
