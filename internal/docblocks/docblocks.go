package docblocks

import (
	"os"
	"strings"

	"github.com/pkg/errors"
)

// Go returns the ```go blocks of a Markdown file, trimmed: those of the
// section under heading (a whole heading line such as "## Usage", up to
// the next heading of the same or a higher level), or of the whole file
// when heading is "". Lines inside code blocks are never headings.
func Go(file, heading string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, errors.Wrap(err, "docblocks")
	}
	var (
		blocks []string
		block  []string
		fence  string // the opening fence line of the block we are in
		in     = heading == ""
		found  = in
		level  = headingLevel(heading)
		isGo   bool
	)
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case fence != "":
			if strings.TrimSpace(line) == "```" {
				if isGo && in {
					blocks = append(blocks, strings.TrimSpace(strings.Join(block, "\n")))
				}
				fence, block = "", nil
				continue
			}
			block = append(block, line)
		case strings.HasPrefix(line, "```"):
			fence, isGo = line, strings.TrimSpace(line) == "```go"
		case heading != "" && line == heading:
			in, found = true, true
		case in && heading != "" && headingLevel(line) > 0 && headingLevel(line) <= level:
			in = false
		}
	}
	switch {
	case fence != "":
		return nil, errors.Errorf("docblocks: %s: the code block opened by %q is not closed", file, fence)
	case !found:
		return nil, errors.Errorf("docblocks: %s has no section %q", file, heading)
	}
	return blocks, nil
}

// headingLevel is the number of # of a Markdown heading line ("## Usage":
// 2), 0 for any other line.
func headingLevel(line string) int {
	n := len(line) - len(strings.TrimLeft(line, "#"))
	if n == 0 || !strings.HasPrefix(line[n:], " ") {
		return 0
	}
	return n
}

// In reports whether block is part of src as written, or with one tab
// more before each line that is not empty: a function body taken out of
// its function loses one level of indentation.
func In(src, block string) bool {
	if strings.Contains(src, block) {
		return true
	}
	lines := strings.Split(block, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "\t" + l
		}
	}
	return strings.Contains(src, strings.Join(lines, "\n"))
}
