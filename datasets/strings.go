package datasets

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pkg/errors"
)

// StringFormat is a file format for samples of strings, the input of the
// string learners (weighted automata, u-MPS).
type StringFormat int

const (
	// PAutomaC is the PAutomaC competition format: a header line
	// "COUNT ALPHABET_SIZE", then one string per line written as
	// "LENGTH s1 ... sLENGTH" with symbols in [0, ALPHABET_SIZE). The empty
	// string is the line "0"; blank lines are skipped. Symbol i is named
	// strconv.Itoa(i).
	PAutomaC StringFormat = iota
	// SPiCe is the SPiCe competition format, laid out as PAutomaC.
	SPiCe
	// Lines holds one string per line, its symbols (valid UTF-8)
	// separated by white space; an empty or blank line is the empty
	// string, at the end of the file too, so that WriteStrings round-trips
	// a sample whose last string is empty. Unless an alphabet is given,
	// ReadStrings takes the sorted set of the tokens seen, ScanStrings
	// their order of first appearance.
	Lines
)

var stringFormatNames = [...]string{PAutomaC: "pautomac", SPiCe: "spice", Lines: "lines"}

// String returns the format's flag name.
func (f StringFormat) String() string {
	if f < 0 || int(f) >= len(stringFormatNames) {
		return fmt.Sprintf("StringFormat(%d)", int(f))
	}
	return stringFormatNames[f]
}

// ParseStringFormat maps a flag name (pautomac, spice, lines) to its format.
func ParseStringFormat(name string) (StringFormat, error) {
	for f, n := range stringFormatNames {
		if n == name {
			return StringFormat(f), nil
		}
	}
	return 0, errors.Errorf("datasets: unknown string format %q (known: pautomac, spice, lines)", name)
}

// StringsHeader is what a PAutomaC or SPiCe header line declares.
type StringsHeader struct {
	// Count is the number of strings the file says it holds.
	Count int
	// AlphabetSize is the number of symbols; ids are in [0, AlphabetSize).
	AlphabetSize int
}

// ScanStrings reads a string sample from r in the given format and calls fn
// with each string in file order (and its 1-based line number), without
// holding the file in memory. The slice passed to fn is reused: fn must copy
// it to keep it. For PAutomaC and SPiCe, head (which may be nil) is called
// with the header before the first string.
//
// A non-nil alphabet fixes the symbols in every format: each symbol is
// looked up by its name (symbol i of a PAutomaC or SPiCe file is named
// strconv.Itoa(i)) and its id is the name's index in alphabet, so a sample
// reads the same whatever its format. With a nil alphabet the ids are
// those of the file: i for symbol i of a counted file, the order of first
// appearance for the tokens of a Lines file. It returns the alphabet: the
// given one, "0".."V-1" from a header, or the tokens in order of first
// appearance. Errors are *TextError values naming the line: a malformed
// header, a length field that disagrees with the symbols that follow, a
// symbol outside the header's range or the alphabet, a Lines token that is
// not valid UTF-8, a string count that disagrees with the header.
func ScanStrings(r io.Reader, format StringFormat, alphabet []string, head func(StringsHeader) error, fn func(line int, seq []int) error) ([]string, error) {
	var ids map[string]int
	if alphabet != nil {
		ids = make(map[string]int, len(alphabet))
		for i, a := range alphabet {
			if _, dup := ids[a]; dup {
				return nil, errors.Errorf("datasets: alphabet entry %q appears twice", a)
			}
			ids[a] = i
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<30)
	switch format {
	case PAutomaC, SPiCe:
		names, err := scanCounted(sc, ids, head, fn)
		if err != nil || alphabet == nil {
			return names, err
		}
		return alphabet, nil
	case Lines:
		return scanLines(sc, alphabet, ids, fn)
	}
	return nil, errors.Errorf("datasets: unknown string format %d", int(format))
}

// MaxAlphabet is the largest alphabet size a PAutomaC or SPiCe header may
// declare, 2^24: the names of that many symbols take about 400 MB, and an
// automaton holds one n x n matrix per symbol, so larger vocabularies are
// beyond what it can model.
const MaxAlphabet = 1 << 24

// scanCounted reads the PAutomaC/SPiCe layout and returns the names "0"
// .. of the header's alphabet. With ids not nil, symbol i is looked up
// there by its name strconv.Itoa(i), and no names are built (nil).
func scanCounted(sc *bufio.Scanner, ids map[string]int, head func(StringsHeader) error, fn func(int, []int) error) ([]string, error) {
	var byNumber map[int]int // ids by symbol number, for the names that are numbers
	if ids != nil {
		byNumber = make(map[int]int, len(ids))
		for name, id := range ids {
			if n, ok := SymbolNumber(name); ok {
				byNumber[n] = id
			}
		}
	}
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, &TextError{Line: 1, Msg: "read: " + err.Error(), Err: err}
		}
		return nil, &TextError{Msg: "empty input: no header line \"COUNT ALPHABET_SIZE\""}
	}
	f := strings.Fields(sc.Text())
	count, size := -1, 0
	if len(f) == 2 {
		c, err1 := strconv.Atoi(f[0])
		v, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil && c >= 0 && v >= 1 {
			count, size = c, v
		}
	}
	if count < 0 {
		return nil, &TextError{Line: 1, Msg: fmt.Sprintf("header %q is not \"COUNT ALPHABET_SIZE\" (counts >= 0 and >= 1)", clip(sc.Text()))}
	}
	if size > MaxAlphabet {
		return nil, &TextError{Line: 1, Msg: fmt.Sprintf("alphabet size %d is above the largest supported, %d", size, MaxAlphabet)}
	}
	if head != nil {
		if err := head(StringsHeader{Count: count, AlphabetSize: size}); err != nil {
			return nil, err
		}
	}
	var seq []int
	n, line := 0, 1
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		length, err := strconv.Atoi(f[0])
		if err != nil || length < 0 {
			return nil, &TextError{Line: line, Msg: fmt.Sprintf("length field %q is not a count", clip(f[0]))}
		}
		if length != len(f)-1 {
			return nil, &TextError{Line: line, Msg: fmt.Sprintf("length field says %d symbols, the line has %d", length, len(f)-1)}
		}
		seq = seq[:0]
		for _, s := range f[1:] {
			id, err := strconv.Atoi(s)
			if err != nil || id < 0 || id >= size {
				return nil, &TextError{Line: line, Msg: fmt.Sprintf("symbol %q is not in the alphabet [0, %d)", clip(s), size)}
			}
			if byNumber != nil {
				var ok bool
				if id, ok = byNumber[id]; !ok {
					return nil, &TextError{Line: line, Msg: fmt.Sprintf("symbol %q is not in the alphabet", clip(s))}
				}
			}
			seq = append(seq, id)
		}
		if n++; n > count {
			return nil, &TextError{Line: line, Msg: fmt.Sprintf("more strings than the header's count %d", count)}
		}
		if err := fn(line, seq); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &TextError{Line: line + 1, Msg: "read: " + err.Error(), Err: err}
	}
	if n != count {
		return nil, &TextError{Line: line, Msg: fmt.Sprintf("the header says %d strings, the file has %d", count, n)}
	}
	if ids != nil {
		return nil, nil // the caller's alphabet names the symbols
	}
	names := make([]string, size)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	return names, nil
}

// scanLines reads one white-space-separated string per line; ids indexes
// alphabet when it is not nil.
func scanLines(sc *bufio.Scanner, alphabet []string, ids map[string]int, fn func(int, []int) error) ([]string, error) {
	if ids == nil {
		ids = map[string]int{}
	}
	names := append([]string(nil), alphabet...)
	var seq []int
	line := 0
	for sc.Scan() {
		line++
		seq = seq[:0]
		text := sc.Text()
		if !utf8.ValidString(text) {
			return nil, invalidUTF8(line, text)
		}
		for _, s := range strings.Fields(text) {
			id, ok := ids[s]
			if !ok {
				if alphabet != nil {
					return nil, &TextError{Line: line, Msg: fmt.Sprintf("symbol %q is not in the alphabet", clip(s))}
				}
				id = len(names)
				ids[s] = id
				names = append(names, s)
			}
			seq = append(seq, id)
		}
		if err := fn(line, seq); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &TextError{Line: line + 1, Msg: "read: " + err.Error(), Err: err}
	}
	if len(names) == 0 {
		return nil, &TextError{Msg: "no symbols in the input"}
	}
	return names, nil
}

// invalidUTF8 is the error for a line of text that is not valid UTF-8,
// naming the column (in characters) of its first invalid byte.
func invalidUTF8(line int, text string) error {
	col := 1
	for i, r := range text {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(text[i:]); size == 1 {
				break
			}
		}
		col++
	}
	return &TextError{Line: line, Col: col, Msg: "invalid UTF-8"}
}

// SymbolNumber returns n and true when name is strconv.Itoa(n) for an
// n >= 0, the name of symbol n of a PAutomaC or SPiCe file; otherwise no
// symbol of those formats has that name.
func SymbolNumber(name string) (int, bool) {
	n, err := strconv.Atoi(name)
	return n, err == nil && n >= 0 && strconv.Itoa(n) == name
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// stringBlock is the number of symbols per storage block of ReadStrings.
const stringBlock = 1 << 20

// maxReserve is the most entries a reader reserves from a count its input
// declares: beyond it the slice grows with the entries read, so a header
// declaring millions of strings over an empty file costs nothing.
const maxReserve = 1 << 12

// ReadStrings reads a whole string sample from r with ScanStrings. The
// symbols of all strings are packed into blocks of about a million ids that
// the returned strings slice into, so a large file is held once, without an
// allocation per string and never whole as text. Unlike the Symbols of
// LoadText, the result may hold empty sequences (the empty string), which
// Symbols.Validate refuses; ValidateStrings accepts them. For Lines with a
// nil alphabet the alphabet is the sorted set of tokens, and ids follow
// that order.
func ReadStrings(r io.Reader, format StringFormat, alphabet []string) (Symbols, error) {
	var seqs [][]int
	var block []int
	head := func(h StringsHeader) error {
		// The header's count is not trusted with more than a small
		// reservation before the strings are there.
		seqs = make([][]int, 0, min(h.Count, maxReserve))
		return nil
	}
	names, err := ScanStrings(r, format, alphabet, head, func(_ int, seq []int) error {
		if cap(block)-len(block) < len(seq) {
			block = make([]int, 0, max(stringBlock, len(seq)))
		}
		n := len(block)
		block = append(block, seq...)
		seqs = append(seqs, block[n:len(block):len(block)])
		return nil
	})
	if err != nil {
		return Symbols{}, err
	}
	if format == Lines && alphabet == nil {
		names = sortAlphabet(names, seqs)
	}
	return Symbols{Alphabet: names, Seqs: seqs}, nil
}

// ReadStringsFile reads the file at path with ReadStrings; a *TextError
// carries the path.
func ReadStringsFile(path string, format StringFormat, alphabet []string) (Symbols, error) {
	var s Symbols
	err := readFile(path, func(r io.Reader) (err error) {
		s, err = ReadStrings(r, format, alphabet)
		return err
	})
	return s, err
}

// readFile runs read on the file at path; a *TextError it returns
// carries the path.
func readFile(path string, read func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return errors.Wrap(err, "datasets")
	}
	defer f.Close()
	err = read(f)
	var te *TextError
	if errors.As(err, &te) {
		te.Path = path
	}
	return err
}

// ReadStringsSampleFile reads n strings of the file at path, evenly spaced
// in file order, and holds only those: with N strings in the file, the
// strings at i*N/n for i < n (all of them when N <= n), with the alphabet
// and ids ReadStringsFile gives. A PAutomaC or SPiCe file is read once, its
// header giving N; a Lines file is read twice, once to count. It also
// returns N. Errors are those of ReadStringsFile.
func ReadStringsSampleFile(path string, format StringFormat, alphabet []string, n int) (Symbols, int, error) {
	if n < 1 {
		return Symbols{}, 0, errors.Errorf("datasets: a sample of %d strings, want >= 1", n)
	}
	scan := func(head func(StringsHeader) error, fn func(int, []int) error) (names []string, err error) {
		err = readFile(path, func(r io.Reader) (err error) {
			names, err = ScanStrings(r, format, alphabet, head, fn)
			return err
		})
		return names, err
	}
	total := -1
	if format == Lines {
		total = 0
		if _, err := scan(nil, func(int, []int) error { total++; return nil }); err != nil {
			return Symbols{}, 0, err
		}
	}
	var seqs [][]int
	next, k, i := 0, 0, 0 // next: index of the k-th string to keep; i: strings seen
	head := func(h StringsHeader) error {
		total = h.Count
		return nil
	}
	names, err := scan(head, func(_ int, seq []int) error {
		if total <= n || i == next {
			seqs = append(seqs, slices.Clone(seq))
			k++
			next = k * total / n
		}
		i++
		return nil
	})
	if err != nil {
		return Symbols{}, 0, err
	}
	if format == Lines && alphabet == nil {
		names = sortAlphabet(names, seqs)
	}
	return Symbols{Alphabet: names, Seqs: seqs}, i, nil
}

// Distinct returns the distinct strings of seqs, in order of first
// appearance (the strings themselves, not copies), and the number of
// copies of each.
func Distinct(seqs [][]int) ([][]int, []float64) {
	idx := map[string]int{}
	var out [][]int
	var copies []float64
	var key []byte
	for _, s := range seqs {
		key = key[:0]
		for _, x := range s {
			key = binary.LittleEndian.AppendUint32(key, uint32(x))
		}
		i, ok := idx[string(key)]
		if !ok {
			i = len(out)
			idx[string(key)] = i
			out, copies = append(out, s), append(copies, 0)
		}
		copies[i]++
	}
	return out, copies
}

// ValidateStrings is Symbols.Validate for string samples: empty sequences
// are allowed, everything else is checked.
func (s Symbols) ValidateStrings() error {
	if err := checkAlphabet(s.Alphabet); err != nil {
		return err
	}
	v := len(s.Alphabet)
	for i, seq := range s.Seqs {
		for t, id := range seq {
			if id < 0 || id >= v {
				return errors.Errorf("datasets: string %d step %d: id %d out of range [0, %d)", i, t, id, v)
			}
		}
	}
	return nil
}

// WriteStrings writes s in the given format, each symbol under its name,
// so that ScanStrings with s.Alphabet reads s back. PAutomaC and SPiCe
// name symbols by number: every name must be a number strconv.Itoa(n),
// n >= 0, and the header's alphabet size is the largest n plus one. Lines
// writes names separated by single spaces: every name must be valid UTF-8,
// not empty and without white space. A name that breaks the rule, or s
// failing ValidateStrings, is an error before anything is written.
func WriteStrings(w io.Writer, s Symbols, format StringFormat) error {
	if err := s.ValidateStrings(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	switch format {
	case PAutomaC, SPiCe:
		size := 0
		for _, a := range s.Alphabet {
			n, ok := SymbolNumber(a)
			if !ok {
				return errors.Errorf("datasets: symbol %q cannot be written in the %v format, which names symbols 0, 1, 2, ... (the lines format writes any name)", clip(a), format)
			}
			size = max(size, n+1)
		}
		fmt.Fprintf(bw, "%d %d\n", len(s.Seqs), size)
		for _, seq := range s.Seqs {
			bw.WriteString(strconv.Itoa(len(seq)))
			for _, id := range seq {
				bw.WriteByte(' ')
				bw.WriteString(s.Alphabet[id])
			}
			bw.WriteByte('\n')
		}
	case Lines:
		for _, a := range s.Alphabet {
			if a == "" || !utf8.ValidString(a) || strings.IndexFunc(a, unicode.IsSpace) >= 0 {
				return errors.Errorf("datasets: symbol %q cannot be written in the lines format: it is empty, holds white space or is not valid UTF-8", clip(a))
			}
		}
		for _, seq := range s.Seqs {
			bw.WriteString(s.Format(seq, " "))
			bw.WriteByte('\n')
		}
	default:
		return errors.Errorf("datasets: unknown string format %d", int(format))
	}
	return errors.Wrap(bw.Flush(), "datasets")
}

// ReadSolution reads a PAutomaC solution file: a first line with the count,
// then one probability per line. A value that is not a finite number >= 0
// or a count that disagrees with the header is a *TextError naming the line.
func ReadSolution(r io.Reader) ([]float64, error) {
	sc := bufio.NewScanner(r)
	if !sc.Scan() {
		return nil, &TextError{Msg: "empty input: no count line"}
	}
	count, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
	if err != nil || count < 0 {
		return nil, &TextError{Line: 1, Msg: fmt.Sprintf("first line %q is not a count", clip(sc.Text()))}
	}
	p := make([]float64, 0, min(count, maxReserve))
	line := 1
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, &TextError{Line: line, Msg: fmt.Sprintf("%q is not a finite probability", clip(t))}
		}
		p = append(p, v)
	}
	if err := sc.Err(); err != nil {
		return nil, &TextError{Line: line + 1, Msg: "read: " + err.Error(), Err: err}
	}
	if len(p) != count {
		return nil, &TextError{Line: line, Msg: fmt.Sprintf("the first line says %d values, the file has %d", count, len(p))}
	}
	return p, nil
}

// ReadSolutionFile reads the file at path with ReadSolution.
func ReadSolutionFile(path string) ([]float64, error) {
	var p []float64
	err := readFile(path, func(r io.Reader) (err error) {
		p, err = ReadSolution(r)
		return err
	})
	return p, err
}
