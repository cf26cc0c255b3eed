package datasets

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadStringsPAutomaC(t *testing.T) {
	in := "3 4\r\n2 0 3\r\n0\r\n1 2\r\n"
	s, err := ReadStrings(strings.NewReader(in), PAutomaC, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Alphabet) != 4 || len(s.Seqs) != 3 || len(s.Seqs[1]) != 0 || s.Seqs[0][1] != 3 || s.Seqs[2][0] != 2 {
		t.Fatalf("got %+v", s)
	}
	if err := s.ValidateStrings(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteStrings(&buf, s, SPiCe); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != strings.ReplaceAll(in, "\r", "") {
		t.Fatalf("round trip: %q", got)
	}
}

func TestReadStringsErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "no header"},
		{"header", "3\n", "line 1"},
		{"header-words", "a b\n", "line 1"},
		{"count-low", "1 2\n1 0\n1 1\n", "line 3: more strings"},
		{"count-high", "3 2\n1 0\n1 1\n", "says 3 strings, the file has 2"},
		{"ragged", "2 2\n1 0\n3 1 1\n", "line 3: length field says 3 symbols, the line has 2"},
		{"symbol", "1 2\n2 0 2\n", "line 2: symbol \"2\" is not in the alphabet"},
		{"negative", "1 2\n1 -1\n", "line 2: symbol \"-1\""},
		{"length", "1 2\nx 0\n", "line 2: length field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadStrings(strings.NewReader(tc.in), PAutomaC, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func TestReadStringsLines(t *testing.T) {
	s, err := ReadStrings(strings.NewReader("b a\n\nc a b\n"), Lines, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Alphabet, ",") != "a,b,c" || len(s.Seqs) != 3 || len(s.Seqs[1]) != 0 {
		t.Fatalf("got %+v", s)
	}
	if got := s.Format(s.Seqs[2], " "); got != "c a b" {
		t.Fatalf("ids do not follow the sorted alphabet: %q", got)
	}
	if _, err := ReadStrings(strings.NewReader("a\nz\n"), Lines, []string{"a"}); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("unknown symbol: %v", err)
	}
}

func TestReadStringsFileNamesPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.train")
	if err := os.WriteFile(p, []byte("1 2\n1 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadStringsFile(p, PAutomaC, nil)
	if err == nil || !strings.Contains(err.Error(), "bad.train:2:") {
		t.Fatalf("err %v", err)
	}
}

// The sampled reader keeps the strings at i*N/n, with the alphabet and ids
// of a full read, for counted and Lines files, and reports a malformed
// file as the full read does.
func TestReadStringsSampleFile(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	var counted, lines strings.Builder
	const total = 37
	fmt.Fprintf(&counted, "%d 3\n", total)
	for i := range total {
		l := rng.IntN(4)
		if i == 5 {
			l = 0
		}
		fmt.Fprintf(&counted, "%d", l)
		var toks []string
		for range l {
			c := rng.IntN(3)
			fmt.Fprintf(&counted, " %d", c)
			toks = append(toks, []string{"zeta", "alpha", "mu"}[c])
		}
		counted.WriteString("\n")
		lines.WriteString(strings.Join(toks, " ") + "\n")
	}
	files := map[StringFormat]string{PAutomaC: counted.String(), Lines: lines.String()}
	for format, text := range files {
		p := filepath.Join(dir, format.String())
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		full, err := ReadStringsFile(p, format, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 5, 10, 36, 37, 100} {
			got, seen, err := ReadStringsSampleFile(p, format, nil, n)
			if err != nil {
				t.Fatal(err)
			}
			want := full.Seqs
			if n < total {
				want = make([][]int, n)
				for i := range want {
					want[i] = full.Seqs[i*total/n]
				}
			}
			if seen != total || !slices.Equal(got.Alphabet, full.Alphabet) || len(got.Seqs) != len(want) {
				t.Fatalf("%v, n = %d: %d strings of %d over %v, want %d of %d over %v", format, n, len(got.Seqs), seen, got.Alphabet, len(want), total, full.Alphabet)
			}
			for i := range want {
				if !slices.Equal(got.Seqs[i], want[i]) {
					t.Fatalf("%v, n = %d: string %d is %v, want %v", format, n, i, got.Seqs[i], want[i])
				}
			}
		}
	}
	bad := filepath.Join(dir, "bad.train")
	if err := os.WriteFile(bad, []byte("3 2\n1 0\n1 5\n0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadStringsSampleFile(bad, PAutomaC, nil, 1); err == nil || !strings.Contains(err.Error(), "bad.train:3:") {
		t.Fatalf("malformed file: %v", err)
	}
	if _, _, err := ReadStringsSampleFile(bad, PAutomaC, nil, 0); err == nil {
		t.Fatal("a sample of 0 strings accepted")
	}
}

func TestParseStringFormat(t *testing.T) {
	for _, f := range []StringFormat{PAutomaC, SPiCe, Lines} {
		g, err := ParseStringFormat(f.String())
		if err != nil || g != f {
			t.Fatalf("%v: %v %v", f, g, err)
		}
	}
	if _, err := ParseStringFormat("csv"); err == nil {
		t.Fatal("unknown format accepted")
	}
}

func TestReadSolution(t *testing.T) {
	p, err := ReadSolution(strings.NewReader("2\r\n0.25\r\n7.5e-01\r\n"))
	if err != nil || len(p) != 2 || p[0] != 0.25 || p[1] != 0.75 {
		t.Fatalf("%v %v", p, err)
	}
	for _, in := range []string{"", "x\n", "2\n0.5\n", "1\nNaN\n", "1\n-1\n"} {
		if _, err := ReadSolution(strings.NewReader(in)); err == nil {
			t.Fatalf("%q accepted", in)
		}
	}
}

func TestReadPAutomaCSharedData(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "data", "pautomac")
	train := filepath.Join(dir, "1.pautomac.train")
	if _, err := os.Stat(train); err != nil {
		t.Skip("PAutomaC data not present")
	}
	s, err := ReadStringsFile(train, PAutomaC, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Seqs) != 20000 || len(s.Alphabet) != 8 {
		t.Fatalf("%d strings over %d symbols", len(s.Seqs), len(s.Alphabet))
	}
	sol, err := ReadSolutionFile(filepath.Join(dir, "1.pautomac_solution.txt"))
	if err != nil || len(sol) != 1000 {
		t.Fatalf("%d %v", len(sol), err)
	}
}

// Distinct keeps the first appearance of each string and counts its
// copies; strings are told apart by every symbol, large ones included.
func TestDistinct(t *testing.T) {
	seqs := [][]int{{1, 2}, {}, {1, 2}, {258}, {2, 1}, {}, {2}, {1, 2}, {2 + 256}}
	got, copies := Distinct(seqs)
	want := [][]int{{1, 2}, {}, {258}, {2, 1}, {2}}
	if fmt.Sprint(got) != fmt.Sprint(want) || !slices.Equal(copies, []float64{3, 2, 2, 1, 1}) {
		t.Fatalf("Distinct = %v, %v; want %v, [3 2 2 1 1]", got, copies, want)
	}
}
