package report

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteCSVAndJSON(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv")
	if err := WriteCSV(p, []string{"a", "b"}, [][]string{{"1", "x,y"}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "a,b\n1,\"x,y\"\n" {
		t.Errorf("csv %q", b)
	}
	j := filepath.Join(dir, "t.json")
	if err := WriteJSON(j, map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(j); string(b) != "{\n  \"n\": 1\n}\n" {
		t.Errorf("json %q", b)
	}
	if err := WriteCSV(filepath.Join(dir, "new", "dir", "t.csv"), nil, nil); err != nil {
		t.Errorf("a file in a missing directory: %v", err)
	}
	if err := WriteCSV(filepath.Join(p, "under", "a", "file.csv"), nil, nil); err == nil {
		t.Error("a file under a regular file was written")
	}
}
