package compare_test

import (
	"os"
	"testing"

	"github.com/rtnlab/rtn/internal/docblocks"
)

// TestOptimizersDocMirrorsExample checks that the Go blocks of
// docs/optimizers.md's custom-optimizer section are part of
// Example_customOptimizer, which go test runs and checks against its
// Output comment (a function body taken out of its function loses one
// tab of indentation).
func TestOptimizersDocMirrorsExample(t *testing.T) {
	src, err := os.ReadFile("example_custom_test.go")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := docblocks.Go("../../docs/optimizers.md", "## A custom optimizer in a comparison")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatal("docs/optimizers.md has no Go block in its custom-optimizer section")
	}
	for _, bl := range blocks {
		if !docblocks.In(string(src), bl) {
			t.Errorf("block not in example_custom_test.go:\n%s", bl)
		}
	}
}
