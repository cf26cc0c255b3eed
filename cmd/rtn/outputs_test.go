package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/runs"
)

// An output that names an input, directly or through a link, is refused;
// a new path or another file is not.
func TestCheckNotInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	other := filepath.Join(dir, "other.txt")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{in, link, filepath.Join(dir, ".", "in.txt")} {
		err := flagPathError(runs.CheckNotInput("-out", out, "", in))
		if err == nil || !strings.Contains(err.Error(), "-out") || !strings.Contains(err.Error(), "destroy") {
			t.Errorf("out %s over input %s: %v", out, in, err)
		}
	}
	for _, out := range []string{other, filepath.Join(dir, "new.txt"), ""} {
		if err := flagPathError(runs.CheckNotInput("-out", out, in)); err != nil {
			t.Errorf("out %s: %v", out, err)
		}
	}
}

// A file output is refused when it is a directory or its directory
// cannot exist (under a file, or a symbolic link to nothing), whatever
// its extension.
func TestCheckOutFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "results")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), broken); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{dir, filepath.Join(file, "m.json"), filepath.Join(broken, "m.json")} {
		if err := flagPathError(runs.CheckOutFile("-out", bad)); err == nil || !strings.HasPrefix(err.Error(), "-out ") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	for _, good := range []string{file, filepath.Join(dir, "model"), filepath.Join(dir, "new", "m.json")} {
		if err := flagPathError(runs.CheckOutFile("-out", good)); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}
