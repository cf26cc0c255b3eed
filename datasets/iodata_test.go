package datasets

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mixedIOData draws sequences of lengths 1..4 with d = 2, p = 3 and
// labels some of them valid and test.
func mixedIOData(t *testing.T, labels bool) IOData {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	s := IOData{In: 2, Out: 3}
	for i := range 9 {
		x := make([]float64, (1+i%4)*2)
		for j := range x {
			x[j] = rng.NormFloat64() * 1e3
		}
		s.X = append(s.X, x)
		s.Y = append(s.Y, rng.NormFloat64(), math.SmallestNonzeroFloat64, -1.0/3)
		if labels {
			s.Split = append(s.Split, Part(i%3))
		}
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return s
}

func sameIOData(t *testing.T, a, b IOData) {
	t.Helper()
	if a.In != b.In || a.Out != b.Out || a.N() != b.N() || !slices.Equal(a.Split, b.Split) {
		t.Fatalf("shapes or split differ: d %d/%d p %d/%d N %d/%d split %v/%v", a.In, b.In, a.Out, b.Out, a.N(), b.N(), a.Split, b.Split)
	}
	bits := func(v []float64) []uint64 {
		out := make([]uint64, len(v))
		for i, x := range v {
			out[i] = math.Float64bits(x)
		}
		return out
	}
	if !slices.Equal(bits(a.Y), bits(b.Y)) {
		t.Fatal("outputs differ")
	}
	for i := range a.X {
		if !slices.Equal(bits(a.X[i]), bits(b.X[i])) {
			t.Fatalf("sequence %d differs", i)
		}
	}
}

func TestIODataRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, labels := range []bool{false, true} {
		for _, ext := range []string{".npz", ".csv"} {
			s := mixedIOData(t, labels)
			path := filepath.Join(dir, "d"+ext)
			if err := WriteIOData(path, s); err != nil {
				t.Fatal(err)
			}
			got, err := ReadIOData(path)
			if err != nil {
				t.Fatal(err)
			}
			sameIOData(t, s, got)
		}
	}
}

func TestIOCSVErrors(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"header", "y1,x1,x3\n1,2\n", "f.csv:1: header"},
		{"no y", "x1\n1\n", "f.csv:1: header"},
		{"ragged", "y1,x1,x2\n1,2,3\n# comment\n\n1,2,3,4\n", "f.csv:5: 4 fields"},
		{"too short", "y1,y2,x1\n1,2,3\n1,2\n", "f.csv:3: 2 fields"},
		{"nan input", "y1,x1,x2\n1,2,3,4,NaN\n", "f.csv:2: input x2 of step 2 is NaN"},
		{"nan output", "y1,x1\n1,2\nInf,3\n", "f.csv:3: output y1 is +Inf"},
		{"not a number", "y1,x1\n1,abc\n", `f.csv:2: input x1 of step 1: "abc" is not a number`},
		{"split", "split,y1,x1\ntrain,1,2\ntrian,1,2\n", "f.csv:3: split"},
		{"quote", "y1,x1\n1,\"2\n", "f.csv"},
		{"empty", "", "empty file"},
		{"no rows", "y1,x1\n", "no sequences"},
	} {
		_, err := ReadIOCSV(strings.NewReader(c.text), "f.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line containing %q", c.name, err, c.want)
		}
	}
}

func TestIONPZErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(s IOData) string {
		path := filepath.Join(dir, "d.npz")
		if err := writeIONPZ(path, s); err != nil {
			t.Fatal(err)
		}
		return path
	}
	s := mixedIOData(t, false)
	s.X[4] = slices.Clone(s.X[4])
	s.X[4][1] = math.NaN()
	if _, err := ReadIOData(write(s)); err == nil || !strings.Contains(err.Error(), "x[4, 0, 1] is NaN") {
		t.Errorf("NaN input: %v", err)
	}
	s = mixedIOData(t, false)
	s.Y[7] = math.Inf(-1)
	if _, err := ReadIOData(write(s)); err == nil || !strings.Contains(err.Error(), "y[2, 1] is -Inf") {
		t.Errorf("Inf output: %v", err)
	}
	if _, err := ReadIOData(filepath.Join(dir, "d.txt")); err == nil || !strings.Contains(err.Error(), "unknown sequence-data format") {
		t.Errorf("extension: %v", err)
	}
	junk := filepath.Join(dir, "junk.npz")
	os.WriteFile(junk, []byte("PK nonsense"), 0o644)
	if _, err := ReadIOData(junk); err == nil || !strings.Contains(err.Error(), "junk.npz") {
		t.Errorf("junk: %v", err)
	}
}

func TestIODataSplit(t *testing.T) {
	s := mixedIOData(t, true)
	tr, va, te, err := s.SplitParts(0.5, 0.5, nil)
	if err != nil || tr.N() != 3 || va.N() != 3 || te.N() != 3 {
		t.Fatalf("own split: %d %d %d %v", tr.N(), va.N(), te.N(), err)
	}
	if &tr.X[1][0] != &s.X[3][0] {
		t.Fatal("own split does not keep the file order")
	}
	short := s
	short.Split = s.Split[:1]
	if _, _, _, err := short.SplitParts(0, 0, nil); err == nil || !strings.Contains(err.Error(), "1 split labels for 9 sequences") {
		t.Errorf("a split shorter than the data: %v", err)
	}
	bad := s
	bad.Split = slices.Clone(s.Split)
	bad.Split[2] = Part(7)
	if _, _, _, err := bad.SplitParts(0, 0, nil); err == nil || !strings.Contains(err.Error(), "sequence 2 has split label 7") {
		t.Errorf("a split label out of range: %v", err)
	}
	s.Split = nil
	a, _, _, err := s.SplitParts(0.2, 0.2, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	b, _, _, _ := s.SplitParts(0.2, 0.2, rand.New(rand.NewPCG(3, 4)))
	sameIOData(t, a, b)
	if a.N() != 9-4 {
		t.Fatalf("train has %d sequences", a.N())
	}
	groups := s.ByLength()
	if len(groups) != 4 || groups[0].Len != 1 || groups[3].Len != 4 || groups[0].N() != 3 {
		t.Fatalf("ByLength: %d groups", len(groups))
	}
	back, err := IODataFrom(groups, nil)
	if err != nil || back.N() != s.N() {
		t.Fatalf("IODataFrom: %v", err)
	}
}
