package umps

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/pkg/errors"
)

// Regex is a regular expression compiled over a model's alphabet: a tree of
// the four primitive operations of Section 4 (single symbols, concatenation,
// union, Kleene closure) plus the empty string. It is independent of any
// model; Transfer evaluates it for one.
//
// The syntax is Go's (regexp/syntax): literals, character classes
// ([01], [^0]), `.` for any symbol, concatenation, alternation `|`,
// `*`, `+`, `?`, `{m,n}`, and groups. A regex always matches whole strings;
// anchors, word boundaries and case folding are refused. Over an alphabet
// with a symbol of more than one character (CompileRegexSymbols) every
// symbol is written in angle brackets, <11>.
type Regex struct {
	pattern  string
	alphabet []rune
	names    []string // the symbols' names when they are written <name>
	root     *node
}

// kind is the operation at a node of a compiled regex.
type kind int

const (
	kindEps  kind = iota // the empty string
	kindSym              // one symbol out of syms
	kindCat              // subs in order
	kindAlt              // any one of subs
	kindStar             // subs[0] zero or more times
)

// node is one operation of a compiled regex.
type node struct {
	kind kind
	syms []int
	subs []*node
}

// Pattern returns the source text of the regex.
func (r *Regex) Pattern() string { return r.pattern }

// String prints the compiled tree in regex syntax over the alphabet.
func (r *Regex) String() string { return r.root.format(r.symbol) }

// symbol writes symbol i as the regex syntax does: <name>, or the
// character quoted.
func (r *Regex) symbol(i int) string {
	if r.names != nil {
		return "<" + r.names[i] + ">"
	}
	return regexp.QuoteMeta(string(r.alphabet[i]))
}

func (n *node) format(sym func(int) string) string {
	switch n.kind {
	case kindEps:
		return "()"
	case kindSym:
		if len(n.syms) == 1 {
			return sym(n.syms[0])
		}
		var s strings.Builder
		s.WriteByte('[')
		for _, c := range n.syms {
			s.WriteString(sym(c))
		}
		s.WriteByte(']')
		return s.String()
	case kindCat:
		var s strings.Builder
		for _, c := range n.subs {
			if c.kind == kindAlt {
				s.WriteString("(" + c.format(sym) + ")")
			} else {
				s.WriteString(c.format(sym))
			}
		}
		return s.String()
	case kindAlt:
		parts := make([]string, len(n.subs))
		for i, c := range n.subs {
			parts[i] = c.format(sym)
		}
		return strings.Join(parts, "|")
	}
	in := n.subs[0].format(sym)
	if n.subs[0].kind != kindSym {
		in = "(" + in + ")"
	}
	return in + "*"
}

// CompileRegex parses pattern over alphabet, whose i-th rune is symbol i.
// Errors: a malformed pattern (with the byte offset of the fault), a
// literal outside the alphabet, a class with no symbol of the alphabet, an
// unsupported construct, or a pattern that matches no string at all.
func CompileRegex(pattern, alphabet string) (*Regex, error) {
	alpha := []rune(alphabet)
	if len(alpha) == 0 {
		return nil, errors.New("umps: empty alphabet")
	}
	return compileRegex(pattern, pattern, alpha, nil)
}

// compileRegex compiles pattern over alpha; errors quote shown, the
// pattern as the user wrote it, and names, when set, the symbols that
// alpha's characters stand for.
func compileRegex(pattern, shown string, alpha []rune, names []string) (*Regex, error) {
	index := map[rune]int{}
	for i, c := range alpha {
		if _, dup := index[c]; dup {
			return nil, errors.Errorf("umps: alphabet %q repeats %q", string(alpha), c)
		}
		index[c] = i
	}
	re, err := syntax.Parse(pattern, syntax.Perl|syntax.DotNL)
	if err != nil {
		if shown != pattern {
			return nil, errors.Errorf("umps: regex %q: %v", shown, err)
		}
		return nil, parseError(pattern, err)
	}
	c := compiler{pattern: shown, alpha: alpha, index: index, named: names != nil}
	root, err := c.compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, errors.Errorf("umps: regex %q matches no string over the alphabet", shown)
	}
	return &Regex{pattern: shown, alphabet: alpha, names: names, root: root}, nil
}

// parseError turns a regexp/syntax error into one line with the offset.
func parseError(pattern string, err error) error {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return errors.Wrapf(err, "umps: regex %q", pattern)
	}
	pos := strings.Index(pattern, se.Expr)
	if se.Code == syntax.ErrMissingParen || se.Code == syntax.ErrMissingBracket || pos < 0 {
		pos = len(pattern)
	}
	return errors.Errorf("umps: regex %q: %s at offset %d (%q)", pattern, se.Code, pos, se.Expr)
}

type compiler struct {
	pattern string
	alpha   []rune
	index   map[rune]int
	named   bool // alpha stands for symbols written <name>
}

// compile returns the node for re, or nil when re matches no string.
func (c *compiler) compile(re *syntax.Regexp) (*node, error) {
	if re.Flags&syntax.FoldCase != 0 && (re.Op == syntax.OpLiteral || re.Op == syntax.OpCharClass) {
		return nil, errors.Errorf("umps: regex %q: case-insensitive matching is not supported", c.pattern)
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return nil, nil
	case syntax.OpEmptyMatch:
		return &node{kind: kindEps}, nil
	case syntax.OpLiteral:
		cat := &node{kind: kindCat}
		for _, r := range re.Rune {
			i, ok := c.index[r]
			if !ok {
				return nil, errors.Errorf("umps: regex %q: symbol %q is not in the alphabet %q", c.pattern, r, string(c.alpha))
			}
			cat.subs = append(cat.subs, &node{kind: kindSym, syms: []int{i}})
		}
		return simplifyCat(cat), nil
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return nil, nil // the empty class
		}
		var syms []int
		for i, a := range c.alpha {
			for k := 0; k+1 < len(re.Rune); k += 2 {
				if re.Rune[k] <= a && a <= re.Rune[k+1] {
					syms = append(syms, i)
					break
				}
			}
		}
		if len(syms) == 0 && c.named {
			return nil, errors.Errorf("umps: regex %q: a class holds no symbol of the alphabet", c.pattern)
		}
		if len(syms) == 0 {
			return nil, errors.Errorf("umps: regex %q: class %s holds no symbol of the alphabet %q", c.pattern, clipRunes(re.String(), 40), string(c.alpha))
		}
		return &node{kind: kindSym, syms: syms}, nil
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		syms := make([]int, len(c.alpha))
		for i := range syms {
			syms[i] = i
		}
		return &node{kind: kindSym, syms: syms}, nil
	case syntax.OpCapture:
		return c.compile(re.Sub[0])
	case syntax.OpConcat:
		cat := &node{kind: kindCat}
		for _, s := range re.Sub {
			n, err := c.compile(s)
			if err != nil || n == nil {
				return nil, err
			}
			cat.subs = append(cat.subs, n)
		}
		return simplifyCat(cat), nil
	case syntax.OpAlternate:
		alt := &node{kind: kindAlt}
		for _, s := range re.Sub {
			n, err := c.compile(s)
			if err != nil {
				return nil, err
			}
			if n != nil {
				alt.subs = append(alt.subs, n)
			}
		}
		switch len(alt.subs) {
		case 0:
			return nil, nil
		case 1:
			return alt.subs[0], nil
		}
		return alt, nil
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		s, err := c.compile(re.Sub[0])
		if err != nil {
			return nil, err
		}
		return repeat(re.Op, s), nil
	}
	return nil, errors.Errorf("umps: regex %q: %s is not supported (a regex matches whole strings over the alphabet)", c.pattern, opName(re))
}

// repeat builds S*, S+ = S S* and S? = S | empty; an empty S gives the
// empty string for * and ?, and no match for +.
func repeat(op syntax.Op, s *node) *node {
	if s == nil {
		if op == syntax.OpPlus {
			return nil
		}
		return &node{kind: kindEps}
	}
	star := &node{kind: kindStar, subs: []*node{s}}
	switch op {
	case syntax.OpPlus:
		return &node{kind: kindCat, subs: []*node{s, star}}
	case syntax.OpQuest:
		return &node{kind: kindAlt, subs: []*node{s, {kind: kindEps}}}
	}
	return star
}

// simplifyCat unwraps a concatenation of one part and maps none to the
// empty string.
func simplifyCat(n *node) *node {
	switch len(n.subs) {
	case 0:
		return &node{kind: kindEps}
	case 1:
		return n.subs[0]
	}
	return n
}

func opName(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return "an anchor"
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return "a word boundary"
	}
	return fmt.Sprintf("operator %v", re.Op)
}

// nullable reports whether n matches the empty string.
func (n *node) nullable() bool {
	switch n.kind {
	case kindEps, kindStar:
		return true
	case kindSym:
		return false
	case kindCat:
		for _, s := range n.subs {
			if !s.nullable() {
				return false
			}
		}
		return true
	}
	for _, s := range n.subs {
		if s.nullable() {
			return true
		}
	}
	return false
}
