package main

import (
	"os"
	"sort"
	"strings"
	"testing"
)

// TestHelpListsEveryCommand checks that rtn help, -h, -help and --help
// print every command of the dispatcher with a one-line description, on
// stdout with exit 0, and that the package documentation (doc.go) lists
// the same commands with the same descriptions.
func TestHelpListsEveryCommand(t *testing.T) {
	var names []string
	for n, c := range commands {
		names = append(names, n)
		if strings.TrimSpace(c.summary) == "" || strings.Contains(c.summary, "\n") {
			t.Errorf("command %s: summary %q is not one line", n, c.summary)
		}
	}
	sort.Strings(names)
	var first []string
	for _, arg := range []string{"help", "-h", "-help", "--help"} {
		t.Run(arg, func(t *testing.T) {
			stdout, stderr, code := invoke(arg)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			listed := usageLines(t, stdout, "commands:", "  ")
			if got, want := commandNames(listed), names; !equalStrings(got, want) {
				t.Errorf("lists %v, want %v", got, want)
			}
			for _, l := range listed {
				n := strings.Fields(l)[0]
				if c, ok := commands[n]; ok && !strings.HasSuffix(l, " "+c.summary) {
					t.Errorf("line %q lacks the summary %q", l, c.summary)
				}
			}
			if first == nil {
				first = listed
			} else if !equalStrings(listed, first) {
				t.Errorf("lists %q, help lists %q", listed, first)
			}
		})
	}
	t.Run("doc.go", func(t *testing.T) {
		src, err := os.ReadFile("doc.go")
		if err != nil {
			t.Fatal(err)
		}
		documented := usageLines(t, string(src), "// The commands,", "//\t")
		if !equalStrings(documented, first) {
			t.Errorf("doc.go lists\n%s\nrtn help lists\n%s\n(copy rtn help's lines into doc.go)",
				strings.Join(documented, "\n"), strings.Join(first, "\n"))
		}
	})
}

// TestEveryCommandHelp checks that "rtn <command> -h" exits 0 and prints a
// usage line for every command of the dispatcher.
func TestEveryCommandHelp(t *testing.T) {
	for n := range commands {
		t.Run(n, func(t *testing.T) {
			stdout, stderr, code := invoke(n, "-h")
			if code != 0 {
				t.Fatalf("exit %d (stderr %q)", code, stderr)
			}
			if !strings.Contains(stdout+stderr, "usage: rtn "+n) {
				t.Errorf("no \"usage: rtn %s\" line in stdout %q, stderr %q", n, stdout, stderr)
			}
		})
	}
}

// usageLines returns the lines after the first line that starts with
// header, up to the first blank line, with prefix removed; each must start
// with prefix.
func usageLines(t *testing.T, text, header, prefix string) []string {
	t.Helper()
	lines := strings.Split(text, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, header) {
			start = i + 1
			break
		}
	}
	if start < 0 {
		t.Fatalf("no line starting with %q in\n%s", header, text)
	}
	var out []string
	for _, l := range lines[start:] {
		if strings.TrimSpace(strings.TrimPrefix(l, "//")) == "" {
			if len(out) == 0 {
				continue // the blank comment line after the header
			}
			break
		}
		if !strings.HasPrefix(l, prefix) {
			t.Fatalf("line %q does not start with %q", l, prefix)
		}
		out = append(out, strings.TrimPrefix(l, prefix))
	}
	return out
}

func commandNames(lines []string) []string {
	var names []string
	for _, l := range lines {
		names = append(names, strings.Fields(l)[0])
	}
	return names
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
