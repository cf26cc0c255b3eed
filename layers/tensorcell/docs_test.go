package tensorcell_test

import (
	"os"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/internal/docblocks"
)

// exampleFiles are the example tests docs/tensor-models.md shows.
var exampleFiles = []string{"example_test.go", "ops_example_test.go", "cells_example_test.go", "train_example_test.go"}

// TestDocsMirrorExamples checks that every Go block of
// docs/tensor-models.md is part of this package's example tests, which go
// test runs and checks against their Output comments (a function body
// taken out of its function loses one tab of indentation).
func TestDocsMirrorExamples(t *testing.T) {
	var src strings.Builder
	for _, f := range exampleFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	blocks, err := docblocks.Go("../../docs/tensor-models.md", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatal("docs/tensor-models.md has no Go block")
	}
	for _, bl := range blocks {
		if !docblocks.In(src.String(), bl) {
			t.Errorf("block not in %s:\n%s", strings.Join(exampleFiles, ", "), bl)
		}
	}
}
