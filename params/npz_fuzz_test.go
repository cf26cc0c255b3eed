package params

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rtnlab/rtn/internal/fuzzcheck"
)

// The fuzz targets of the .npy and .npz readers: an error or arrays whose
// values match their shapes, never a panic, and no allocation beyond a
// constant plus what the input's bytes can hold (a header's shape is not
// trusted before the values are there). A deflated entry expands up to
// about 1032 times and a one-byte value becomes a float64, hence the
// allowance per input byte of the .npz targets.

// npzPerByte is the allocation allowed per input byte of an .npz: a
// deflated byte gives up to about 1032 bytes, each up to a float64.
const npzPerByte = 10000

// npzSeeds returns small .npz files: one of Params.Save, one of
// WriteArrays with metadata and integer arrays, and one with a deflated
// entry as numpy.savez_compressed writes.
func npzSeeds(tb testing.TB) [][]byte {
	dir := tb.TempDir()
	p := New()
	w, _ := p.Add("W", 2, 3)
	copy(w, []float64{1, -2, 3.5, 0, 1e-300, 7})
	b, _ := p.Add("b", 3)
	b[1] = 2
	if err := p.Save(filepath.Join(dir, "p.npz")); err != nil {
		tb.Fatal(err)
	}
	if err := WriteArrays(filepath.Join(dir, "a.npz"), map[string]int{"n": 2}, []Array{
		{Name: "x", Shape: []int{2, 1}, Data: []float64{1, 2}},
		{Name: "k", Shape: []int{3}, Data: []float64{0, 1, 2}, Int: true},
		{Name: "s", Data: []float64{4}},
	}); err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, name := range []string{"p.npz", "a.npz"} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, raw)
	}
	var z bytes.Buffer
	zw := zip.NewWriter(&z)
	e, err := zw.CreateHeader(&zip.FileHeader{Name: "x.npy", Method: zip.Deflate})
	if err != nil {
		tb.Fatal(err)
	}
	if err := WriteNPY(e, []int{4}, []float64{0, 0, 0, 1}); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return append(out, z.Bytes())
}

func FuzzReadNPY(f *testing.F) {
	var b bytes.Buffer
	if err := WriteNPY(&b, []int{2, 2}, []float64{1, 2, 3, 4}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	b.Reset()
	if err := WriteNPY(&b, nil, []float64{3}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte("\x93NUMPY\x01\x00\x46\x00{'descr': '|u1', 'fortran_order': False, 'shape': (1000000000000, 1000000000), }\n\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b), 16), func() {
			shape, data, err := ReadNPY(bytes.NewReader(b))
			if err != nil {
				return
			}
			if n, err := shapeSize(shape); err != nil || n != len(data) {
				t.Fatalf("shape %v with %d values (%v)", shape, len(data), err)
			}
		})
	})
}

func FuzzReadNPZ(f *testing.F) {
	for _, s := range npzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b), npzPerByte), func() {
			var meta map[string]any
			sets, err := readNPZ(bytes.NewReader(b), int64(len(b)), "fuzz.npz", &meta)
			if err != nil {
				return
			}
			for name, p := range sets {
				for _, n := range p.Names() {
					if k, err := shapeSize(p.Shape(n)); err != nil || k != len(p.Data(n)) {
						t.Fatalf("set %s parameter %s: shape %v with %d values", name, n, p.Shape(n), len(p.Data(n)))
					}
				}
			}
		})
	})
}

func FuzzReadArrays(f *testing.F) {
	for _, s := range npzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "a.npz")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b), npzPerByte), func() {
			var meta map[string]any
			arrays, err := ReadArrays(path, &meta)
			if err != nil {
				return
			}
			for _, a := range arrays {
				if n, err := shapeSize(a.Shape); err != nil || n != len(a.Data) {
					t.Fatalf("array %s: shape %v with %d values", a.Name, a.Shape, len(a.Data))
				}
			}
		})
	})
}
