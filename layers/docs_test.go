package layers_test

import (
	"os"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/internal/docblocks"
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
			blocks, err := docblocks.Go(tc.file, tc.section)
			if err != nil {
				t.Fatal(err)
			}
			if len(blocks) != tc.blocks {
				t.Fatalf("%d Go blocks in %q, want %d", len(blocks), tc.section, tc.blocks)
			}
			if tc.blocks == 1 && blocks[0] != whole {
				t.Errorf("the block is not example_test.go from its imports on:\n%s", blocks[0])
			}
			for _, bl := range blocks {
				if !docblocks.In(example, bl) {
					t.Errorf("block not in example_test.go:\n%s", bl)
				}
			}
		})
	}
}

// TestDocsRegisterSection checks that the Go blocks of design.md's
// section on registering and using a model are parts of example tests.
func TestDocsRegisterSection(t *testing.T) {
	var src strings.Builder
	for _, f := range []string{"use_example_test.go", "tensorcell/example_test.go", "tensorcell/train_example_test.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	blocks, err := docblocks.Go("../docs/design.md", "## Register, stack, save and use a model")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 {
		t.Fatalf("%d Go blocks, want 2", len(blocks))
	}
	for _, bl := range blocks {
		if !docblocks.In(src.String(), bl) {
			t.Errorf("block not in an example test:\n%s", bl)
		}
	}
}
