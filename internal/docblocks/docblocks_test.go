package docblocks

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const page = "# Title\n\n```go\nfunc a() {}\n```\n\n## One\n\ntext\n\n```go\nx := 1\n```\n\n```sh\n# a shell comment, not a heading\nrtn train\n```\n\n### Sub\n\n```go\n\ty := 2\n```\n\n## Two\n\n```go\nz := 3\n```\n"

func TestGo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		heading string
		want    []string
	}{
		{"", []string{"func a() {}", "x := 1", "y := 2", "z := 3"}},
		{"## One", []string{"x := 1", "y := 2"}},
		{"### Sub", []string{"y := 2"}},
		{"## Two", []string{"z := 3"}},
	} {
		t.Run(tc.heading, func(t *testing.T) {
			got, err := Go(file, tc.heading)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := Go(file, "## Three"); err == nil {
		t.Error("a missing section: no error")
	}
	open := filepath.Join(t.TempDir(), "open.md")
	if err := os.WriteFile(open, []byte("```go\nx := 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Go(open, ""); err == nil {
		t.Error("an unclosed block: no error")
	}
}

func TestIn(t *testing.T) {
	src := "func f() {\n\tx := 1\n\n\tif x > 0 {\n\t\tx++\n\t}\n}\n"
	for _, tc := range []struct {
		block string
		want  bool
	}{
		{"func f() {\n\tx := 1", true},
		{"x := 1\n\nif x > 0 {\n\tx++\n}", true}, // the body, one tab less
		{"x := 2", false},
		{"x := 1\nif x > 0 {", false}, // a line left out
	} {
		if got := In(src, tc.block); got != tc.want {
			t.Errorf("In(%q) = %v, want %v", tc.block, got, tc.want)
		}
	}
}
