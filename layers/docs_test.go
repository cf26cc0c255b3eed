package layers_test

import (
	"os"
	"strings"
	"testing"
)

// TestDocsMirrorExample checks that the Go code the README and
// docs/design.md show for defining a cell is example_test.go, which go
// test runs: the README's block is the whole file from its imports on,
// and design.md's blocks are excerpts of it (a function body taken out
// of its function loses one tab of indentation).
func TestDocsMirrorExample(t *testing.T) {
	b, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	example := string(b)
	whole := strings.TrimSpace(example[strings.Index(example, "import ("):])
	for _, tc := range []struct {
		file, section string
		blocks        int
	}{
		{"../README.md", "## Define a new recurrent cell", 1},
		{"../docs/design.md", "## Define a new cell and train it", 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			blocks := goBlocks(t, tc.file, tc.section)
			if len(blocks) != tc.blocks {
				t.Fatalf("%d Go blocks in %q, want %d", len(blocks), tc.section, tc.blocks)
			}
			if tc.blocks == 1 && blocks[0] != whole {
				t.Errorf("the block is not example_test.go from its imports on:\n%s", blocks[0])
			}
			for _, bl := range blocks {
				if !strings.Contains(example, bl) && !strings.Contains(example, indent(bl)) {
					t.Errorf("block not in example_test.go:\n%s", bl)
				}
			}
		})
	}
}

// goBlocks returns the ```go blocks of a Markdown file's section (from
// its heading to the next heading of the same level), trimmed.
func goBlocks(t *testing.T, file, heading string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, heading+"\n")
	if i < 0 {
		t.Fatalf("%s has no section %q", file, heading)
	}
	text = text[i+len(heading):]
	if j := strings.Index(text, "\n## "); j >= 0 {
		text = text[:j]
	}
	var blocks []string
	for {
		i := strings.Index(text, "```go\n")
		if i < 0 {
			return blocks
		}
		text = text[i+len("```go\n"):]
		j := strings.Index(text, "```\n")
		if j < 0 {
			t.Fatalf("%s: unterminated Go block in %q", file, heading)
		}
		blocks = append(blocks, strings.TrimSpace(text[:j]))
		text = text[j:]
	}
}

// indent puts a tab before every line of s that is not empty.
func indent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "\t" + l
		}
	}
	return strings.Join(lines, "\n")
}
