package datasets

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// polyphonicDir finds the shared polyphonic data directory by walking up
// from the test's working directory to a folder with a sibling
// shared/data/polyphonic, and skips the test when there is none.
func polyphonicDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Skipf("no working directory: %v", err)
	}
	for {
		cand := filepath.Join(dir, "shared", "data", "polyphonic")
		if _, err := os.Stat(filepath.Join(cand, "JSB_Chorales.mat")); err == nil {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("shared/data/polyphonic not found above the working directory; skipping the real-data test")
		}
		dir = parent
	}
}

// TestPianoMATSplits checks the four MAT files against the split sizes and
// frame counts of the data README.
func TestPianoMATSplits(t *testing.T) {
	dir := polyphonicDir(t)
	for _, c := range []struct {
		name    string
		seqs    [3]int
		frames  [3]int
		maxKeys int
	}{
		{"jsb", [3]int{229, 76, 77}, [3]int{13807, 4602, 4725}, 0},
		{"muse", [3]int{524, 135, 124}, [3]int{245202, 82755, 64339}, 0},
		{"nottingham", [3]int{694, 173, 170}, [3]int{176561, 45513, 44463}, 0},
		{"piano", [3]int{87, 12, 25}, [3]int{75911, 8540, 19036}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := LoadPiano(dir, c.name)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			for i, f := range []Frames{p.Train, p.Valid, p.Test} {
				if f.Len() != c.seqs[i] || f.NumFrames() != c.frames[i] {
					t.Errorf("split %d: %d sequences, %d frames; want %d, %d", i, f.Len(), f.NumFrames(), c.seqs[i], c.frames[i])
				}
			}
		})
	}
}

// TestPianoLoadersAgree checks that the JSB MAT-file and the original
// pickle give the same piano rolls frame for frame.
func TestPianoLoadersAgree(t *testing.T) {
	dir := polyphonicDir(t)
	m, err := LoadPianoMAT(filepath.Join(dir, "JSB_Chorales.mat"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadPianoPickle(filepath.Join(dir, "JSB_Chorales.pickle"))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range [][2]Frames{{m.Train, p.Train}, {m.Valid, p.Valid}, {m.Test, p.Test}} {
		if s[0].Len() != s[1].Len() {
			t.Fatalf("split %d: %d sequences in MAT, %d in pickle", i, s[0].Len(), s[1].Len())
		}
		for j := range s[0].Seqs {
			if !reflect.DeepEqual(s[0].Seqs[j], s[1].Seqs[j]) {
				t.Fatalf("split %d sequence %d differs between MAT and pickle", i, j)
			}
		}
	}
	// The README counts 64 empty frames in JSB.
	empty := 0
	for _, f := range []Frames{m.Train, m.Valid, m.Test} {
		for i := range f.Seqs {
			for s := range f.Steps(i) {
				if !slicesHasOne(f.Frame(i, s)) {
					empty++
				}
			}
		}
	}
	if empty != 64 {
		t.Errorf("%d empty frames in JSB, want 64", empty)
	}
}

func slicesHasOne(x []float64) bool {
	for _, v := range x {
		if v == 1 {
			return true
		}
	}
	return false
}

// matWriter writes MAT v5 test files.
type matWriter struct {
	order    binary.ByteOrder
	compress bool
}

func (w matWriter) element(typ uint32, data []byte) []byte {
	var b bytes.Buffer
	tag := make([]byte, 8)
	w.order.PutUint32(tag, typ)
	w.order.PutUint32(tag[4:], uint32(len(data)))
	b.Write(tag)
	b.Write(data)
	for b.Len()%8 != 0 {
		b.WriteByte(0)
	}
	return b.Bytes()
}

func (w matWriter) header(name string, class uint32, dims []int) []byte {
	var b bytes.Buffer
	flags := make([]byte, 8)
	w.order.PutUint32(flags, class)
	b.Write(w.element(miUINT32, flags))
	d := make([]byte, 4*len(dims))
	for i, x := range dims {
		w.order.PutUint32(d[4*i:], uint32(int32(x)))
	}
	b.Write(w.element(miINT32, d))
	b.Write(w.element(miINT8, []byte(name)))
	return b.Bytes()
}

// rollMatrix encodes a step-major T x k roll as a column-major uint8
// matrix element.
func (w matWriter) rollMatrix(roll []float64, k int) []byte {
	T := len(roll) / k
	data := make([]byte, len(roll))
	for t := range T {
		for j := range k {
			data[j*T+t] = byte(roll[t*k+j])
		}
	}
	body := append(w.header("", 9, []int{T, k}), w.element(miUINT8, data)...)
	return w.element(miMATRIX, body)
}

// file writes variables name -> list of rolls of width k.
func (w matWriter) file(names []string, rolls [][][]float64, k int) []byte {
	var b bytes.Buffer
	hdr := make([]byte, matHeaderLen)
	copy(hdr, "MATLAB 5.0 MAT-file, written by rtn tests")
	for i := 116; i < 124; i++ {
		hdr[i] = ' '
	}
	w.order.PutUint16(hdr[124:], 0x0100)
	w.order.PutUint16(hdr[126:], 'M'<<8|'I')
	b.Write(hdr)
	for v, name := range names {
		body := w.header(name, mxCellClass, []int{1, len(rolls[v])})
		for _, r := range rolls[v] {
			body = append(body, w.rollMatrix(r, k)...)
		}
		el := w.element(miMATRIX, body)
		if w.compress {
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			zw.Write(el)
			zw.Close()
			tag := make([]byte, 8)
			w.order.PutUint32(tag, miCOMPRESSED)
			w.order.PutUint32(tag[4:], uint32(z.Len()))
			b.Write(tag)
			b.Write(z.Bytes())
		} else {
			b.Write(el)
		}
	}
	return b.Bytes()
}

// smallSplits is a tiny seeded data set for the round-trip tests.
func smallSplits(t testing.TB) *PianoSplits {
	p, err := SyntheticPiano(SyntheticPianoConfig{Train: 3, Valid: 2, Test: 1, MinLen: 3, MaxLen: 7},
		rand.New(rand.NewPCG(7, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func splitNames() []string { return []string{"traindata", "validdata", "testdata"} }

func TestReadPianoMATRoundTrip(t *testing.T) {
	p := smallSplits(t)
	rolls := [][][]float64{p.Train.Seqs, p.Valid.Seqs, p.Test.Seqs}
	for _, w := range []matWriter{
		{binary.LittleEndian, true}, {binary.LittleEndian, false}, {binary.BigEndian, true},
	} {
		got, err := ReadPianoMAT(bytes.NewReader(w.file(splitNames(), rolls, PianoKeys)))
		if err != nil {
			t.Fatalf("%v compress=%v: %v", w.order, w.compress, err)
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("%v compress=%v: round trip differs", w.order, w.compress)
		}
	}
}

// TestReadPianoMATBad checks that truncated, corrupt and wrongly shaped
// files give one-line errors and never panic.
func TestReadPianoMATBad(t *testing.T) {
	p := smallSplits(t)
	rolls := [][][]float64{p.Train.Seqs, p.Valid.Seqs, p.Test.Seqs}
	for _, compress := range []bool{true, false} {
		good := matWriter{binary.LittleEndian, compress}.file(splitNames(), rolls, PianoKeys)
		for n := 0; n < len(good); n++ {
			if _, err := ReadPianoMAT(bytes.NewReader(good[:n])); err == nil {
				t.Fatalf("compress=%v: truncated to %d of %d bytes: no error", compress, n, len(good))
			} else if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
		}
		rng := rand.New(rand.NewPCG(3, 4))
		for range 2000 {
			bad := bytes.Clone(good)
			for range 1 + rng.IntN(3) {
				bad[matHeaderLen+rng.IntN(len(bad)-matHeaderLen)] ^= byte(1 + rng.IntN(255))
			}
			ReadPianoMAT(bytes.NewReader(bad)) // must not panic
		}
	}
	narrow := make([][][]float64, 3)
	for i := range narrow {
		narrow[i] = [][]float64{make([]float64, 4*87)}
	}
	cases := map[string][]byte{
		"87 keys":     matWriter{binary.LittleEndian, true}.file(splitNames(), narrow, 87),
		"no testdata": matWriter{binary.LittleEndian, true}.file(splitNames()[:2], rolls[:2], PianoKeys),
		"not MAT":     bytes.Repeat([]byte("x"), 200),
		"HDF5":        append([]byte("MATLAB 7.3 MAT-file"), make([]byte, 200)...),
	}
	for name, b := range cases {
		if _, err := ReadPianoMAT(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if _, err := LoadPianoMAT(filepath.Join(t.TempDir(), "missing.mat")); err == nil {
		t.Error("missing file: no error")
	}
}

// FuzzReadPianoMAT checks that no input makes the MAT reader panic.
func FuzzReadPianoMAT(f *testing.F) {
	p := smallSplits(f)
	rolls := [][][]float64{p.Train.Seqs, p.Valid.Seqs, p.Test.Seqs}
	f.Add(matWriter{binary.LittleEndian, true}.file(splitNames(), rolls, PianoKeys))
	f.Add(matWriter{binary.BigEndian, false}.file(splitNames(), rolls, PianoKeys))
	f.Fuzz(func(t *testing.T, b []byte) {
		ReadPianoMAT(bytes.NewReader(b))
	})
}
