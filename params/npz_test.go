package params

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// numpyHeader returns the 10-byte prefix and header numpy 1.24.2's np.save
// writes for a '<f8' C-order array whose header dict is dict followed by
// spaces blanks (values recorded from np.save; the total is a multiple of 64).
func numpyHeader(dict string, spaces int) []byte {
	h := dict + strings.Repeat(" ", spaces) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	return b.Bytes()
}

func TestWriteNPYMatchesNumpy(t *testing.T) {
	// Headers and data bytes from numpy 1.24.2: np.save(f, a).
	tests := []struct {
		name   string
		shape  []int
		data   []float64
		dict   string
		spaces int
		hex    string
	}{
		{"arange(6).reshape(2,3)", []int{2, 3}, []float64{0, 1, 2, 3, 4, 5},
			"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 58,
			"0000000000000000000000000000f03f0000000000000040000000000000084000000000000010400000000000001440"},
		{"[-1.5]", []int{1}, []float64{-1.5},
			"{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", 60, "000000000000f8bf"},
		{"scalar 2.5", nil, []float64{2.5},
			"{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 62, "0000000000000440"},
		{"30 axes", ones(30), []float64{0},
			"{'descr': '<f8', 'fortran_order': False, 'shape': (" + strings.Repeat("1, ", 29) + "1), }", 38, "0000000000000000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, _ := hex.DecodeString(tc.hex)
			want := append(numpyHeader(tc.dict, tc.spaces), data...)
			var got bytes.Buffer
			if err := WriteNPY(&got, tc.shape, tc.data); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("bytes differ from numpy's:\n got %q\nwant %q", got.Bytes(), want)
			}
			if n := len(want) - len(data); n%64 != 0 {
				t.Fatalf("numpy header of %d bytes is not 64-aligned; fix the test", n)
			}
			shape, vals, err := ReadNPY(bytes.NewReader(want))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(shape) != fmt.Sprint(tc.shape) && !(len(shape) == 0 && len(tc.shape) == 0) {
				t.Fatalf("shape %v, want %v", shape, tc.shape)
			}
			if fmt.Sprint(vals) != fmt.Sprint(tc.data) {
				t.Fatalf("values %v, want %v", vals, tc.data)
			}
		})
	}
}

func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// rawNPY builds an NPY file with an arbitrary header dict and data bytes.
func rawNPY(dict string, data []byte) []byte {
	return append(numpyHeader(dict, 0), data...)
}

func TestReadNPYDtypes(t *testing.T) {
	f4, _ := hex.DecodeString("0000803f000000400000404000008040") // numpy: array([[1,2],[3,4]], '<f4')
	i8, _ := hex.DecodeString("fdffffffffffffff0400000000000000") // numpy: array([-3, 4], '<i8')
	tests := []struct {
		descr string
		shape string
		data  []byte
		want  []float64
	}{
		{"<f4", "(2, 2)", f4, []float64{1, 2, 3, 4}},
		{"<i8", "(2,)", i8, []float64{-3, 4}},
		{"<i4", "(3,)", []byte{0xff, 0xff, 0xff, 0xff, 7, 0, 0, 0, 0, 0, 0, 0}, []float64{-1, 7, 0}},
		{"|u1", "(3,)", []byte{0, 200, 255}, []float64{0, 200, 255}},
		{"|b1", "(1, 3)", []byte{1, 0, 1}, []float64{1, 0, 1}},
		{"<f8", "(0,)", nil, []float64{}},
	}
	for _, tc := range tests {
		t.Run(tc.descr, func(t *testing.T) {
			b := rawNPY("{'descr': '"+tc.descr+"', 'fortran_order': False, 'shape': "+tc.shape+", }", tc.data)
			_, got, err := ReadNPY(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReadNPYRejects(t *testing.T) {
	eight := make([]byte, 8)
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"fortran", rawNPY("{'descr': '<f8', 'fortran_order': True, 'shape': (1, 1), }", eight), "fortran_order True"},
		{"big endian", rawNPY("{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }", eight), "unsupported dtype"},
		{"complex", rawNPY("{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }", eight), "unsupported dtype"},
		{"structured", rawNPY("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }", eight), "bad header"},
		{"missing key", rawNPY("{'descr': '<f8', 'shape': (1,), }", eight), "bad header"},
		{"extra key", rawNPY("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': True}", eight), "bad header"},
		{"negative dim", rawNPY("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", eight), "bad header"},
		{"not a dict", rawNPY("hello", eight), "bad header"},
		{"short data", rawNPY("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", eight), "data ends after 1 of 2"},
		{"huge shape", rawNPY("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }", eight), "data ends"},
		{"overflow", rawNPY("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", eight), "too large"},
		{"bad magic", []byte("PK\x03\x04 not npy"), "bad magic"},
		{"version 9", []byte("\x93NUMPY\x09\x00\x00\x00"), "version 9.0"},
		{"empty", nil, "short file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadNPY(bytes.NewReader(tc.file))
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "params: npy: ") {
				t.Fatalf("error %q, want one line containing %q", msg, tc.want)
			}
		})
	}
}

// testSets returns two parameter sets with seeded random values; names
// contain '/' as optimizer slots do.
func testSets(t *testing.T, seed uint64) map[string]*Params {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	p, s := New(), New()
	for _, a := range []struct {
		set  *Params
		name string
		shp  []int
	}{{p, "W", []int{3, 4}}, {p, "layer/b", []int{4}}, {p, "A", []int{2, 3, 2}},
		{s, "m/W", []int{3, 4}}, {s, "t/W", []int{1}}} {
		if _, err := a.set.Add(a.name, a.shp...); err != nil {
			t.Fatal(err)
		}
		if err := a.set.InitNormal(a.name, rng, 1); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]*Params{"params": p, "optim": s}
}

type testMeta struct {
	Model string `json:"model"`
	Rank  int    `json:"rank"`
}

func sameBits(a, b *Params) error {
	if err := a.SameLayout(b); err != nil {
		return err
	}
	for _, n := range a.Names() {
		x, y := a.Data(n), b.Data(n)
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return fmt.Errorf("%s[%d]: %v versus %v", n, i, x[i], y[i])
			}
		}
	}
	return nil
}

func TestNPZRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ck.npz")
	sets := testSets(t, 1)
	sets["empty"] = New()
	if err := SaveNPZ(path, testMeta{"umps", 7}, sets); err != nil {
		t.Fatal(err)
	}
	var meta testMeta
	got, err := LoadNPZ(path, &meta)
	if err != nil {
		t.Fatal(err)
	}
	if meta != (testMeta{"umps", 7}) {
		t.Fatalf("meta %+v", meta)
	}
	if len(got) != 2 {
		t.Fatalf("sets %v, want params and optim (an empty set has no entries)", got)
	}
	for _, s := range []string{"params", "optim"} {
		if err := sameBits(sets[s], got[s]); err != nil {
			t.Fatalf("set %s: %v", s, err)
		}
	}
	// Entry names are what numpy.load shows as keys (minus ".npy").
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	want := "[meta.json optim/m/W.npy optim/t/W.npy params/W.npy params/layer/b.npy params/A.npy]"
	if fmt.Sprint(names) != want {
		t.Fatalf("entries %v, want %v", names, want)
	}
	// Same content, same bytes.
	path2 := filepath.Join(t.TempDir(), "ck2.npz")
	if err := SaveNPZ(path2, testMeta{"umps", 7}, sets); err != nil {
		t.Fatal(err)
	}
	b1, _ := os.ReadFile(path)
	b2, _ := os.ReadFile(path2)
	if !bytes.Equal(b1, b2) {
		t.Fatal("saving the same content twice gave different bytes")
	}
}

func TestNPZMetaOptional(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ck.npz")
	if err := SaveNPZ(path, nil, testSets(t, 1)); err != nil {
		t.Fatal(err)
	}
	meta := testMeta{"unchanged", 1}
	if _, err := LoadNPZ(path, &meta); err != nil {
		t.Fatal(err)
	}
	if meta != (testMeta{"unchanged", 1}) {
		t.Fatalf("meta %+v changed by a file without meta.json", meta)
	}
}

// tempLeftovers lists files in dir other than keep.
func tempLeftovers(t *testing.T, dir string, keep ...string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
outer:
	for _, e := range es {
		for _, k := range keep {
			if e.Name() == k {
				continue outer
			}
		}
		left = append(left, e.Name())
	}
	return left
}

func TestSaveNPZFailureKeepsPrevious(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ck.npz")
	good := testSets(t, 1)
	if err := SaveNPZ(path, testMeta{"good", 1}, good); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	bad := testSets(t, 2)
	tests := []struct {
		name string
		save func() error
	}{
		{"unmarshalable meta", func() error { return SaveNPZ(path, math.NaN(), bad) }},
		{"bad set name", func() error { return SaveNPZ(path, nil, map[string]*Params{"a/b": bad["params"]}) }},
		{"directory under a file", func() error { return SaveNPZ(filepath.Join(path, "nope", "ck.npz"), nil, bad) }},
		{"write error midway", func() error {
			return WriteFileAtomic(path, func(w io.Writer) error {
				w.Write([]byte("partial"))
				return fmt.Errorf("disk on fire")
			})
		}},
		{"panic midway", func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return WriteFileAtomic(path, func(w io.Writer) error {
				w.Write([]byte("partial"))
				panic("boom")
			})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.save()
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Fatal("previous checkpoint changed")
			}
			var meta testMeta
			got, err := LoadNPZ(path, &meta)
			if err != nil {
				t.Fatal(err)
			}
			if meta.Model != "good" || sameBits(got["params"], good["params"]) != nil {
				t.Fatal("previous checkpoint does not load as saved")
			}
			if left := tempLeftovers(t, dir, "ck.npz"); len(left) > 0 {
				t.Fatalf("left behind %v", left)
			}
		})
	}
}

func TestWriteFileAtomicKeepsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.csv")
	write := func(s string) func(w io.Writer) error {
		return func(w io.Writer) error { _, err := w.Write([]byte(s)); return err }
	}
	if err := WriteFileAtomic(path, write("a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, write("b")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "b" || st.Mode().Perm() != 0o600 {
		t.Fatalf("content %q mode %v, want \"b\" and 0600", b, st.Mode().Perm())
	}
}

// loadNoPanic calls readNPZ (LoadNPZ without the file) on b and turns a
// panic into a test failure.
func loadNoPanic(t *testing.T, b []byte, what string) error {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: LoadNPZ panicked: %v", what, r)
		}
	}()
	var meta testMeta
	_, err := readNPZ(bytes.NewReader(b), int64(len(b)), "bad.npz", &meta)
	checkFileError(t, err, "bad.npz", what)
	return err
}

// checkFileError fails unless err is nil or one line naming path.
func checkFileError(t *testing.T, err error, path, what string) {
	t.Helper()
	if err != nil && (strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "checkpoint "+path+": ")) {
		t.Fatalf("%s: error %q is not one line naming the file", what, err)
	}
}

func TestLoadNPZTruncatedAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ck.npz")
	sets := testSets(t, 3)
	if err := SaveNPZ(path, testMeta{"m", 1}, sets); err != nil {
		t.Fatal(err)
	}
	full, _ := os.ReadFile(path)
	// A flipped bit in an array's data fails the zip checksum.
	v := binary.LittleEndian.AppendUint64(nil, math.Float64bits(sets["params"].Data("W")[1]))
	at := bytes.Index(full, v)
	if at < 0 {
		t.Fatal("cannot find W's data in the file")
	}
	flipped := append([]byte(nil), full...)
	flipped[at] ^= 1
	if err := loadNoPanic(t, flipped, "flipped bit"); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("flipped data bit: got %v, want a checksum error", err)
	}
	// Every truncation is an error: the zip directory is at the end.
	for n := 0; n < len(full); n++ {
		if loadNoPanic(t, full[:n], fmt.Sprintf("truncated to %d bytes", n)) == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(full))
		}
	}
	// Random corruption never panics.
	rng := rand.New(rand.NewPCG(4, 5))
	for i := 0; i < 2000; i++ {
		b := append([]byte(nil), full...)
		for k := 0; k < 1+rng.IntN(3); k++ {
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
		}
		loadNoPanic(t, b, fmt.Sprintf("corruption %d", i))
	}
	if err := loadNoPanic(t, []byte("just text"), "text"); err == nil || !strings.Contains(err.Error(), "not a valid .npz") {
		t.Fatalf("text file: got %v", err)
	}
	// Through the file system too.
	bad := filepath.Join(dir, "bad.npz")
	if err := os.WriteFile(bad, full[:len(full)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadNPZ(bad, nil)
	checkFileError(t, err, bad, "half file")
	if err == nil {
		t.Fatal("half file: no error")
	}
	missing := filepath.Join(dir, "missing.npz")
	_, err = LoadNPZ(missing, nil)
	checkFileError(t, err, missing, "missing file")
	if err == nil {
		t.Fatal("missing file: no error")
	}
}

// writeZip writes a zip with the given entries.
func writeZip(t *testing.T, path string, entries map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for n, b := range entries {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadNPZBadEntries(t *testing.T) {
	var good bytes.Buffer
	if err := WriteNPY(&good, []int{2}, []float64{1, 2}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		entries map[string][]byte
		want    string
	}{
		{"bad npy", map[string][]byte{"params/W.npy": []byte("\x93NUMPY\x01\x00\x05\x00{oops")}, "entry params/W.npy: npy: bad header"},
		{"trailing bytes", map[string][]byte{"params/W.npy": append(good.Bytes(), 0)}, "1 bytes after the array"},
		{"top-level array", map[string][]byte{"W.npy": good.Bytes()}, `unexpected entry "W.npy"`},
		{"bad meta", map[string][]byte{"meta.json": []byte("{"), "params/W.npy": good.Bytes()}, "meta.json"},
		{"zero-size", map[string][]byte{"params/W.npy": rawNPY("{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }", nil)}, "non-positive dimension"},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("c%d.npz", i))
			writeZip(t, path, tc.entries)
			_, err := LoadNPZ(path, &testMeta{})
			checkFileError(t, err, path, tc.name)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// A 0-d array (np.savez of a Python float) loads as shape [1].
	var scalar bytes.Buffer
	if err := WriteNPY(&scalar, nil, []float64{3}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "scalar.npz")
	writeZip(t, path, map[string][]byte{"trainer/lr.npy": scalar.Bytes()})
	sets, err := LoadNPZ(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := sets["trainer"].Shape("lr"); len(s) != 1 || s[0] != 1 || sets["trainer"].Data("lr")[0] != 3 {
		t.Fatalf("scalar loaded as %v %v", s, sets["trainer"].Data("lr"))
	}
}

func TestParamsSaveLoadInto(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.npz")
	src := testSets(t, 5)["params"]
	if err := src.Save(path); err != nil {
		t.Fatal(err)
	}
	dst := src.Like()
	if err := LoadInto(path, dst); err != nil {
		t.Fatal(err)
	}
	if err := sameBits(src, dst); err != nil {
		t.Fatal(err)
	}

	layout := func(specs ...any) *Params {
		p := New()
		for i := 0; i < len(specs); i += 2 {
			if _, err := p.Add(specs[i].(string), specs[i+1].([]int)...); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	tests := []struct {
		name string
		p    *Params
		want string
	}{
		{"shape", layout("W", []int{4, 4}, "layer/b", []int{4}, "A", []int{2, 3, 2}),
			`params: checkpoint ` + path + `: parameter "W" has shape [3 4], model wants [4 4]`},
		{"missing", layout("W", []int{3, 4}, "V", []int{1}),
			`params: checkpoint ` + path + `: no parameter "V"`},
		{"extra", layout("W", []int{3, 4}, "layer/b", []int{4}),
			`params: checkpoint ` + path + `: parameter "A" is not in the model`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.p.Clone()
			err := LoadInto(path, tc.p)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
			if sameBits(before, tc.p) != nil {
				t.Fatal("failed load modified the parameters")
			}
		})
	}
}

// A file in directories that do not exist yet is written, the directories
// created.
func TestWriteFileAtomicCreatesDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "x.csv")
	if err := WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "x" {
		t.Fatalf("read back %q, %v", b, err)
	}
}
