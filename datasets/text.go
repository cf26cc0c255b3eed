package datasets

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pkg/errors"
)

// TextOptions controls LoadText. The zero value reads characters and
// infers the alphabet.
type TextOptions struct {
	// Tokens makes each white-space-separated token of a line one symbol.
	// If false (the default), every character (Unicode code point) of a
	// line, spaces included, is one symbol.
	Tokens bool
	// Alphabet, if non-nil, fixes the alphabet and the ids (the index of a
	// symbol in Alphabet); a symbol not in it is an error. In character
	// mode every entry must be a single character. If nil, the alphabet is
	// the sorted set of distinct symbols in the input (byte order, which
	// is code point order).
	Alphabet []string
}

// TextError is an error of LoadText or LoadTextFile tied to a place in the
// input.
type TextError struct {
	// Path is the file name, empty when reading from an io.Reader.
	Path string
	// Line and Col are the 1-based line and character (code point) column
	// of the problem; Line is 0 when the problem is not tied to a line
	// (empty input), Col is 0 when it is tied to a whole line.
	Line, Col int
	// Msg describes the problem.
	Msg string
	// Err is the underlying error, if any (a read error).
	Err error
}

// Error formats the error as "datasets: path:line:col: msg", or, without a
// path, "datasets: line L, column C: msg".
func (e *TextError) Error() string {
	var b strings.Builder
	b.WriteString("datasets: ")
	switch {
	case e.Path != "" && e.Line > 0 && e.Col > 0:
		fmt.Fprintf(&b, "%s:%d:%d: ", e.Path, e.Line, e.Col)
	case e.Path != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.Path, e.Line)
	case e.Path != "":
		fmt.Fprintf(&b, "%s: ", e.Path)
	case e.Line > 0 && e.Col > 0:
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Col)
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *TextError) Unwrap() error { return e.Err }

// LoadText reads one symbol sequence per line from r. Lines end with "\n"
// or "\r\n"; a line that is empty (or, in token mode, holds only white
// space) is skipped. It fails, with a *TextError naming line and column,
// on invalid UTF-8, on a symbol outside a given alphabet, on a read error,
// and when no sequence is found.
func LoadText(r io.Reader, opts TextOptions) (Symbols, error) {
	given := opts.Alphabet != nil
	ids := map[string]int{}
	var names []string
	if given {
		if err := checkAlphabet(opts.Alphabet); err != nil {
			return Symbols{}, err
		}
		for i, a := range opts.Alphabet {
			if err := checkTextSymbol(a, opts.Tokens); err != nil {
				return Symbols{}, errors.Errorf("datasets: alphabet entry %d %q %v", i, a, err)
			}
			ids[a] = i
		}
		names = slices.Clone(opts.Alphabet)
	}
	var seqs [][]int
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		text, rerr := br.ReadString('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return Symbols{}, &TextError{Line: line, Msg: "read: " + rerr.Error(), Err: rerr}
		}
		text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
		seq, err := parseLine(text, line, opts.Tokens, func(sym string) (int, bool) {
			id, ok := ids[sym]
			if !ok && !given {
				id, ok = len(names), true
				ids[sym] = id
				names = append(names, sym)
			}
			return id, ok
		})
		if err != nil {
			return Symbols{}, err
		}
		if len(seq) > 0 {
			seqs = append(seqs, seq)
		}
		if rerr != nil {
			break
		}
	}
	if len(seqs) == 0 {
		return Symbols{}, &TextError{Msg: "no sequences in the input"}
	}
	if !given {
		names = sortAlphabet(names, seqs)
	}
	return Symbols{Alphabet: names, Seqs: seqs}, nil
}

// parseLine splits one line (without its terminator) into symbols and maps
// them to ids with lookup, which reports false for an unknown symbol.
func parseLine(text string, line int, tokens bool, lookup func(string) (int, bool)) ([]int, error) {
	var seq []int
	col, start, startCol := 0, -1, 0
	emit := func(sym string, c int) error {
		id, ok := lookup(sym)
		if !ok {
			return &TextError{Line: line, Col: c, Msg: fmt.Sprintf("symbol %q is not in the alphabet", sym)}
		}
		seq = append(seq, id)
		return nil
	}
	for i, r := range text {
		col++
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(text[i:]); size == 1 {
				return nil, &TextError{Line: line, Col: col, Msg: "invalid UTF-8"}
			}
		}
		if !tokens {
			if err := emit(string(r), col); err != nil {
				return nil, err
			}
			continue
		}
		switch space := unicode.IsSpace(r); {
		case space && start >= 0:
			if err := emit(text[start:i], startCol); err != nil {
				return nil, err
			}
			start = -1
		case !space && start < 0:
			start, startCol = i, col
		}
	}
	if tokens && start >= 0 {
		if err := emit(text[start:], startCol); err != nil {
			return nil, err
		}
	}
	return seq, nil
}

// checkTextSymbol reports why a given alphabet entry can never be read.
func checkTextSymbol(a string, tokens bool) error {
	if !utf8.ValidString(a) {
		return errors.Errorf("is not valid UTF-8")
	}
	if tokens {
		if a == "" || strings.IndexFunc(a, unicode.IsSpace) >= 0 {
			return errors.Errorf("is empty or holds white space, which cannot be a token")
		}
		return nil
	}
	if utf8.RuneCountInString(a) != 1 {
		return errors.Errorf("is not a single character")
	}
	if a == "\n" {
		return errors.Errorf("is a line break")
	}
	return nil
}

// LoadTextFile reads the file at path with LoadText; a *TextError carries
// the path.
func LoadTextFile(path string, opts TextOptions) (Symbols, error) {
	f, err := os.Open(path)
	if err != nil {
		return Symbols{}, errors.Wrap(err, "datasets")
	}
	defer f.Close()
	s, err := LoadText(f, opts)
	var te *TextError
	if errors.As(err, &te) {
		te.Path = path
	}
	return s, err
}

// sortAlphabet renumbers seqs, whose ids index names in order of first
// appearance, to the sorted order of names, and returns the sorted names.
func sortAlphabet(names []string, seqs [][]int) []string {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	remap := make([]int, len(names))
	for i, n := range names {
		remap[i], _ = slices.BinarySearch(sorted, n)
	}
	for _, seq := range seqs {
		for t, id := range seq {
			seq[t] = remap[id]
		}
	}
	return sorted
}
