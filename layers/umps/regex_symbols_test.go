package umps

import (
	"reflect"
	"strings"
	"testing"
)

// TestCompileRegexSymbols checks the <name> syntax over an alphabet of
// multi-character symbols against the same regex written with one
// character per symbol: the compiled trees must be identical, and String
// must write the symbols back in brackets.
func TestCompileRegexSymbols(t *testing.T) {
	symbols := []string{"1", "11", "2"}
	for _, c := range []struct{ named, plain, str string }{
		{`<1>(<11>|<2>)*`, `a(b|c)*`, `<1>[<11><2>]*`},
		{`[<1><2>]<11>{2,3}`, `[ac]b{2,3}`, ""},
		{`[^<11>] .`, `[^b].`, ""},
		{`(<2> <1>)+|()`, `(ca)+|()`, ""},
	} {
		got, err := CompileRegexSymbols(c.named, symbols)
		if err != nil {
			t.Fatalf("%s: %v", c.named, err)
		}
		want, err := CompileRegex(c.plain, "abc")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.root, want.root) {
			t.Errorf("%s compiles to %s, want the tree of %s (%s)", c.named, got, c.plain, want)
		}
		if c.str != "" && got.String() != c.str {
			t.Errorf("%s prints as %s, want %s", c.named, got, c.str)
		}
		if got.Pattern() != c.named {
			t.Errorf("pattern %q, want %q", got.Pattern(), c.named)
		}
	}
	// one-character symbols keep the plain syntax
	r, err := CompileRegexSymbols(`a(b|c)*`, []string{"a", "b", "c"})
	if err != nil || r.String() != `a[bc]*` {
		t.Errorf("plain alphabet: %v, %v", r, err)
	}
}

// TestCompileRegexSymbolsErrors checks that an ambiguous or malformed
// pattern is refused with a message naming the fault.
func TestCompileRegexSymbolsErrors(t *testing.T) {
	symbols := []string{"1", "11", "2"}
	for _, c := range []struct{ pattern, want string }{
		{`11`, "ambiguous"},
		{`<1>1`, "ambiguous"},
		{`<3>`, "symbol <3> at offset 0 is not in the alphabet"},
		{`<1`, "not closed"},
		{`<1>{x}`, "does not start a count"},
		{`\.<1>`, "ambiguous"},
		{`(<1>`, "missing closing )"},
		{`[^<1><11><2>]`, "a class holds no symbol"},
	} {
		_, err := CompileRegexSymbols(c.pattern, symbols)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one saying %q", c.pattern, err, c.want)
		}
	}
	for _, alpha := range [][]string{{"1", "1"}, {"1", "<2>"}, {"1", ""}} {
		if _, err := CompileRegexSymbols(`.`, alpha); err == nil {
			t.Errorf("alphabet %q accepted", alpha)
		}
	}
}
