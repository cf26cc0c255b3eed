package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/internal/fuzzcheck"
)

// The fuzz targets of the text and sequence-data readers: on any input a
// reader returns an error or a result that validates, never panics, and
// allocates no more than a constant plus a small multiple of the input
// (a header's count or size is not trusted before the input holds it).
// `go test -fuzz '^FuzzReadStrings$' ./datasets` runs one; .ci/run runs
// each for a few seconds.

// fuzzAlphabetCap is the largest header alphabet the string-file target
// reads: the names of a declared alphabet cost about 32 bytes a symbol
// (up to MaxAlphabet, 2^24, by design: a caller's head function checks
// the size first, as the wfa commands' memory check does), which would
// only slow the fuzzer down.
const fuzzAlphabetCap = 1 << 16

// declaredAlphabet returns the alphabet size a counted file's header
// line declares, 0 when it declares none.
func declaredAlphabet(b []byte) int {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) != 2 {
		return 0
	}
	v, _ := strconv.Atoi(f[1])
	return v
}

func FuzzReadStrings(f *testing.F) {
	f.Add([]byte("3 2\n2 0 1\n0\n3 1 1 0\n"), uint8(PAutomaC), "", 2)
	f.Add([]byte("2 12\n1 11\n2 3 10\n"), uint8(SPiCe), "3 10 11", 1)
	f.Add([]byte("a b c\n\nc a\n"), uint8(Lines), "", 5)
	f.Add([]byte("é ü\nü\n"), uint8(Lines), "ü é", 1)
	f.Add([]byte("16777216 3\n"), uint8(PAutomaC), "", 3)
	f.Fuzz(func(t *testing.T, b []byte, format uint8, alphabet string, n int) {
		fm := StringFormat(format % 3)
		if fm != Lines && declaredAlphabet(b) > fuzzAlphabetCap {
			t.Skip("a header alphabet above the fuzzing cap")
		}
		var alpha []string
		if alphabet != "" {
			alpha = strings.Fields(alphabet)
		}
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b)+len(alphabet), 64), func() {
			s, err := ReadStrings(bytes.NewReader(b), fm, alpha)
			if err != nil {
				return
			}
			if err := s.ValidateStrings(); err != nil {
				t.Fatalf("ReadStrings returned strings that do not validate: %v", err)
			}
		})
		path := filepath.Join(t.TempDir(), "s.txt")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b)+len(alphabet), 64), func() {
			s, total, err := ReadStringsSampleFile(path, fm, alpha, n%1000)
			if err != nil {
				return
			}
			if err := s.ValidateStrings(); err != nil {
				t.Fatalf("ReadStringsSampleFile returned strings that do not validate: %v", err)
			}
			if len(s.Seqs) > n%1000 || len(s.Seqs) > total {
				t.Fatalf("a sample of %d strings of %d, asked for %d", len(s.Seqs), total, n%1000)
			}
		})
	})
}

func FuzzLoadText(f *testing.F) {
	f.Add([]byte("abc\nba\r\n\ncab\n"), false, "")
	f.Add([]byte("the cat\n  sat on\tthe mat\n"), true, "")
	f.Add([]byte("ab\nba\n"), false, "a b")
	f.Add([]byte("x y\n"), true, "x y z")
	f.Fuzz(func(t *testing.T, b []byte, tokens bool, alphabet string) {
		opts := TextOptions{Tokens: tokens}
		if alphabet != "" {
			opts.Alphabet = strings.Fields(alphabet)
		}
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b)+len(alphabet), 256), func() {
			s, err := LoadText(bytes.NewReader(b), opts)
			if err != nil {
				return
			}
			if err := s.Validate(); err != nil {
				t.Fatalf("LoadText returned symbols that do not validate: %v", err)
			}
		})
	})
}

func FuzzReadSolution(f *testing.F) {
	f.Add([]byte("3\n0.5\n0.25\n1e-7\n"))
	f.Add([]byte("1000000000\n"))
	f.Add([]byte("2\nNaN\n1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b), 64), func() {
			p, err := ReadSolution(bytes.NewReader(b))
			if err != nil {
				return
			}
			for i, v := range p {
				if !(v >= 0) || v > 1e308 {
					t.Fatalf("value %d is %v", i, v)
				}
			}
		})
	})
}

func FuzzReadIOCSV(f *testing.F) {
	f.Add([]byte("y1,x1,x2\n0.5,1,2,3,4\n-1,0,0\n"))
	f.Add([]byte("split,y1,y2,x1\n# a comment\ntrain,1,2,3\ntest,0,0,1,2,3\n"))
	f.Add([]byte("y1,x1\n1,NaN\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b), 256), func() {
			s, err := ReadIOCSV(bytes.NewReader(b), "fuzz.csv")
			if err != nil {
				return
			}
			if err := s.Validate(); err != nil {
				t.Fatalf("ReadIOCSV returned data that do not validate: %v", err)
			}
		})
	})
}

// FuzzReadIOData reads .npz sequence-data files. A deflated entry expands
// up to about 1032 times and a one-byte value becomes a float64, hence
// the allowance per input byte.
func FuzzReadIOData(f *testing.F) {
	dir := f.TempDir()
	for i, s := range []IOData{
		{In: 2, Out: 1, X: [][]float64{{1, 2, 3, 4}, {5, 6}}, Y: []float64{0.5, -1}},
		{In: 1, Out: 2, X: [][]float64{{1}, {2, 3}}, Y: []float64{1, 2, 3, 4}, Split: []Part{PartTrain, PartTest}},
	} {
		path := filepath.Join(dir, strconv.Itoa(i)+".npz")
		if err := WriteIOData(path, s); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "d.npz")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b), 10000), func() {
			s, err := ReadIOData(path)
			if err != nil {
				return
			}
			if err := s.Validate(); err != nil {
				t.Fatalf("ReadIOData returned data that do not validate: %v", err)
			}
		})
	})
}
