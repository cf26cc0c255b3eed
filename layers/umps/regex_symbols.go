package umps

import (
	"strings"
	"unicode/utf8"

	"github.com/pkg/errors"
)

// symbolRuneBase is the first of the private-use characters that stand
// for the symbols of a multi-character alphabet inside a compiled regex.
const symbolRuneBase = 0xE000

// maxRegexSymbols bounds the alphabets CompileRegexSymbols writes with
// private-use characters (U+E000 to U+F8FF).
const maxRegexSymbols = 0xF8FF - symbolRuneBase + 1

// CompileRegexSymbols is CompileRegex over an alphabet of named symbols
// (symbol i is symbols[i]). When every symbol is one character it is
// CompileRegex over their concatenation. Otherwise (the numbered symbols
// of PAutomaC files) each symbol is written in angle brackets, <11> for
// the symbol "11", in literals and classes alike ([<1><11>], [^<0>]);
// spaces between the parts are ignored, and any other character outside
// the brackets that is not regex syntax is refused as ambiguous, since
// "11" could be the symbol 11 or the symbol 1 twice.
func CompileRegexSymbols(pattern string, symbols []string) (*Regex, error) {
	single := true
	for _, s := range symbols {
		single = single && utf8.RuneCountInString(s) == 1
	}
	if single {
		return CompileRegex(pattern, strings.Join(symbols, ""))
	}
	if len(symbols) > maxRegexSymbols {
		return nil, errors.Errorf("umps: an alphabet of %d symbols is too large for a regex (limit %d)", len(symbols), maxRegexSymbols)
	}
	index := make(map[string]int, len(symbols))
	alpha := make([]rune, len(symbols))
	for i, s := range symbols {
		if s == "" || strings.ContainsAny(s, "<>") {
			return nil, errors.Errorf("umps: symbol %q cannot be written in a regex", s)
		}
		if _, dup := index[s]; dup {
			return nil, errors.Errorf("umps: alphabet repeats the symbol %q", s)
		}
		index[s] = i
		alpha[i] = rune(symbolRuneBase + i)
	}
	inner, err := translateSymbols(pattern, index)
	if err != nil {
		return nil, err
	}
	return compileRegex(inner, pattern, alpha, append([]string(nil), symbols...))
}

// translateSymbols rewrites pattern with each <name> replaced by its
// symbol's private-use character, keeping the regex syntax and the
// counts of {m,n}, dropping spaces, and refusing any other character.
func translateSymbols(pattern string, index map[string]int) (string, error) {
	var b strings.Builder
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case c == '<':
			end := strings.IndexByte(pattern[i:], '>')
			if end < 0 {
				return "", errors.Errorf("umps: regex %q: '<' at offset %d is not closed by '>'", pattern, i)
			}
			name := pattern[i+1 : i+end]
			k, ok := index[name]
			if !ok {
				return "", errors.Errorf("umps: regex %q: symbol <%s> at offset %d is not in the alphabet", pattern, name, i)
			}
			b.WriteRune(rune(symbolRuneBase + k))
			i += end + 1
		case c == '{':
			end := strings.IndexByte(pattern[i:], '}')
			if end < 0 || strings.Trim(pattern[i+1:i+end], "0123456789,") != "" {
				return "", errors.Errorf("umps: regex %q: '{' at offset %d does not start a count {m,n}", pattern, i)
			}
			b.WriteString(pattern[i : i+end+1])
			i += end + 1
		case c == ' ':
			i++
		case strings.IndexByte("()|*+?[]^.-", c) >= 0:
			b.WriteByte(c)
			i++
		default:
			r, _ := utf8.DecodeRuneInString(pattern[i:])
			return "", errors.Errorf("umps: regex %q: %q at offset %d is ambiguous over an alphabet of multi-character symbols: write every symbol in angle brackets, as <11>", pattern, r, i)
		}
	}
	return b.String(), nil
}
