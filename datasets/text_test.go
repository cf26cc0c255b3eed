package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadText(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		opts  TextOptions
		alpha []string
		seqs  [][]int
	}{
		{"inferred chars", "cab\n\nbb\r\nc a", TextOptions{},
			[]string{" ", "a", "b", "c"}, [][]int{{3, 1, 2}, {2, 2}, {3, 0, 1}}},
		{"given chars", "ba\nab\n", TextOptions{Alphabet: []string{"b", "a", "z"}},
			[]string{"b", "a", "z"}, [][]int{{0, 1}, {1, 0}}},
		{"unicode", "éa\n", TextOptions{},
			[]string{"a", "é"}, [][]int{{1, 0}}},
		{"tokens", "  the cat\tsat \n   \nthe end\n", TextOptions{Tokens: true},
			[]string{"cat", "end", "sat", "the"}, [][]int{{3, 0, 2}, {3, 1}}},
		{"given tokens", "x yy\n", TextOptions{Tokens: true, Alphabet: []string{"yy", "x"}},
			[]string{"yy", "x"}, [][]int{{1, 0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := LoadText(strings.NewReader(c.in), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.Alphabet, c.alpha) || !reflect.DeepEqual(s.Seqs, c.seqs) {
				t.Fatalf("LoadText = %q %v, want %q %v", s.Alphabet, s.Seqs, c.alpha, c.seqs)
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestLoadTextErrors(t *testing.T) {
	cases := []struct {
		name      string
		in        string
		opts      TextOptions
		line, col int
		wants     string
	}{
		{"unknown char", "ab\n\nabx\n", TextOptions{Alphabet: []string{"a", "b"}}, 3, 3,
			`datasets: line 3, column 3: symbol "x" is not in the alphabet`},
		{"unknown after unicode", "éé?\n", TextOptions{Alphabet: []string{"é"}}, 1, 3, `symbol "?"`},
		{"unknown token", "a b\nb  cc a\n", TextOptions{Tokens: true, Alphabet: []string{"a", "b"}}, 2, 4,
			`line 2, column 4: symbol "cc"`},
		{"invalid utf8", "ab\na\xffb\n", TextOptions{}, 2, 2, "invalid UTF-8"},
		{"empty", "\n\r\n\n", TextOptions{}, 0, 0, "datasets: no sequences in the input"},
		{"empty tokens", "  \n\t\n", TextOptions{Tokens: true}, 0, 0, "no sequences"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadText(strings.NewReader(c.in), c.opts)
			var te *TextError
			if !errors.As(err, &te) {
				t.Fatalf("LoadText error = %v, want a *TextError", err)
			}
			if te.Line != c.line || te.Col != c.col || !strings.Contains(err.Error(), c.wants) {
				t.Fatalf("LoadText error = %q at %d:%d, want %q at %d:%d", err, te.Line, te.Col, c.wants, c.line, c.col)
			}
		})
	}
	for _, alpha := range [][]string{{}, {"a", "a"}, {"ab"}} {
		if _, err := LoadText(strings.NewReader("a\n"), TextOptions{Alphabet: alpha}); err == nil {
			t.Errorf("LoadText accepted alphabet %q", alpha)
		}
	}
	if _, err := LoadText(strings.NewReader("a\n"), TextOptions{Tokens: true, Alphabet: []string{"a b"}}); err == nil {
		t.Error("LoadText accepted a token holding a space")
	}
}

func TestLoadTextFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(good, []byte("ab\nba\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("ab\nbc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadTextFile(good, TextOptions{})
	if err != nil || len(s.Seqs) != 2 {
		t.Fatalf("LoadTextFile = %v, %v", s, err)
	}
	_, err = LoadTextFile(bad, TextOptions{Alphabet: []string{"a", "b"}})
	if want := "datasets: " + bad + `:2:2: symbol "c" is not in the alphabet`; err == nil || err.Error() != want {
		t.Fatalf("LoadTextFile error = %v, want %s", err, want)
	}
	_, err = LoadTextFile(filepath.Join(dir, "missing.txt"), TextOptions{})
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.txt") {
		t.Fatalf("LoadTextFile(missing) = %v", err)
	}
}
