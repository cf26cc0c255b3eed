package datasets

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// With an alphabet, the symbols of a counted file are looked up by name,
// as those of a Lines file: both forms of a sample read the same.
func TestReadStringsAlphabetByName(t *testing.T) {
	alphabet := []string{"0", "1", "10", "2"} // sorted names, not numeric order
	counted := "3 11\n2 10 2\n0\n1 1\n"
	lines := "10 2\n\n1\n"
	want := [][]int{{2, 3}, {}, {1}}
	for _, c := range []struct {
		format StringFormat
		in     string
	}{{PAutomaC, counted}, {SPiCe, counted}, {Lines, lines}} {
		s, err := ReadStrings(strings.NewReader(c.in), c.format, alphabet)
		if err != nil {
			t.Fatalf("%v: %v", c.format, err)
		}
		if !slices.Equal(s.Alphabet, alphabet) || !slices.EqualFunc(s.Seqs, want, slices.Equal[[]int]) {
			t.Fatalf("%v: got %v over %v, want %v over %v", c.format, s.Seqs, s.Alphabet, want, alphabet)
		}
	}
	// Without an alphabet a counted file keeps its numbering.
	s, err := ReadStrings(strings.NewReader(counted), PAutomaC, nil)
	if err != nil || len(s.Alphabet) != 11 || !slices.Equal(s.Seqs[0], []int{10, 2}) {
		t.Fatalf("no alphabet: %+v, %v", s, err)
	}
	for _, c := range []struct{ name, in, want string }{
		{"unknown", "2 11\n1 1\n1 5\n", "line 3: symbol \"5\" is not in the alphabet"},
		{"header", "1 3\n1 10\n", "line 2: symbol \"10\" is not in the alphabet [0, 3)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := ReadStrings(strings.NewReader(c.in), PAutomaC, alphabet); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
}

// A Lines token that is not UTF-8 is an error naming its line and
// column, whether the alphabet is given or read from the file.
func TestReadStringsLinesInvalidUTF8(t *testing.T) {
	for _, alphabet := range [][]string{nil, {"a", "b"}} {
		_, err := ReadStrings(strings.NewReader("b a\naé \xff\nb\n"), Lines, alphabet)
		if err == nil || !strings.Contains(err.Error(), "line 2, column 4: invalid UTF-8") {
			t.Fatalf("alphabet %v: err %v", alphabet, err)
		}
	}
}

// WriteStrings writes names: ScanStrings with the alphabet reads the
// sample back in every format, a Lines sample ending with the empty
// string included. Names a format cannot hold are refused before
// anything is written.
func TestWriteStringsNames(t *testing.T) {
	s := Symbols{Alphabet: []string{"0", "1", "10", "2"}, Seqs: [][]int{{2, 3}, {1}, {}}}
	for _, c := range []struct {
		format StringFormat
		want   string
	}{{PAutomaC, "3 11\n2 10 2\n1 1\n0\n"}, {SPiCe, "3 11\n2 10 2\n1 1\n0\n"}, {Lines, "10 2\n1\n\n"}} {
		var b bytes.Buffer
		if err := WriteStrings(&b, s, c.format); err != nil {
			t.Fatalf("%v: %v", c.format, err)
		}
		if b.String() != c.want {
			t.Fatalf("%v: wrote %q, want %q", c.format, b.String(), c.want)
		}
		back, err := ReadStrings(&b, c.format, s.Alphabet)
		if err != nil || !slices.EqualFunc(back.Seqs, s.Seqs, slices.Equal[[]int]) {
			t.Fatalf("%v: read back %v (%v), want %v", c.format, back.Seqs, err, s.Seqs)
		}
	}
	for _, c := range []struct {
		name     string
		alphabet []string
		id       int
		format   StringFormat
		want     string
	}{
		{"letter", []string{"0", "a"}, 0, PAutomaC, `symbol "a" cannot be written in the pautomac format`},
		{"padded", []string{"0", "01"}, 0, SPiCe, `symbol "01" cannot be written in the spice format`},
		{"negative", []string{"-1", "0"}, 0, PAutomaC, `symbol "-1" cannot be written`},
		{"space", []string{"a", "b c"}, 0, Lines, `symbol "b c" cannot be written in the lines format`},
		{"empty", []string{"a", ""}, 0, Lines, `symbol "" cannot be written`},
		{"utf8", []string{"a", "\xff"}, 0, Lines, `symbol "\xff" cannot be written`},
		{"twice", []string{"1", "1"}, 0, PAutomaC, `are both "1"`},
		{"range", []string{"a", "b"}, 2, Lines, "id 2 out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			err := WriteStrings(&b, Symbols{Alphabet: c.alphabet, Seqs: [][]int{{0}, {c.id}}}, c.format)
			if err == nil || !strings.Contains(err.Error(), c.want) || b.Len() != 0 {
				t.Fatalf("err %v, wrote %q, want %q and nothing written", err, b.String(), c.want)
			}
		})
	}
}

// Read against an alphabet, a counted file whose header declares a huge
// alphabet costs no memory for the names it declares.
func TestReadStringsAlphabetHugeHeader(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := ReadStrings(strings.NewReader("2 10000000\n1 0\n1 1\n"), PAutomaC, []string{"0", "1"})
	runtime.ReadMemStats(&after)
	if err != nil || len(s.Seqs) != 2 || !slices.Equal(s.Alphabet, []string{"0", "1"}) {
		t.Fatalf("read %+v, %v", s, err)
	}
	if b := after.TotalAlloc - before.TotalAlloc; b > 32<<20 {
		t.Errorf("reading 2 strings allocated %d bytes", b)
	}
}

// A header declaring more symbols than MaxAlphabet is refused on line 1,
// with or without an alphabet, before anything is allocated for them.
func TestReadStringsAlphabetTooLarge(t *testing.T) {
	for _, alphabet := range [][]string{nil, {"0", "1"}} {
		_, err := ReadStrings(strings.NewReader("2 16777217\n1 0\n1 1\n"), PAutomaC, alphabet)
		var te *TextError
		if !errors.As(err, &te) || te.Line != 1 || !strings.Contains(err.Error(), "above the largest supported") {
			t.Errorf("alphabet %v: %v", alphabet, err)
		}
	}
}
