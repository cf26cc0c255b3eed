package reproduce

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/rtnlab/rtn/datasets"
)

// The README's two tables give the optimum of every problem and
// scikit-splearn's figure where it has one.
func TestReadPAutomaCReferences(t *testing.T) {
	dir := datasets.PAutomaCDir()
	if dir == "" {
		t.Skip("no PAutomaC data (shared/data/pautomac)")
	}
	refs, err := ReadPAutomaCReferences(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if r := refs[1]; r.Optimum != 29.8979 || r.Splearn != 31.0344 {
		t.Errorf("problem 1: %+v, want optimum 29.8979 and splearn 31.0344", r)
	}
	if r := refs[4]; r.Optimum != 80.8184 || !math.IsNaN(r.Splearn) {
		t.Errorf("problem 4: %+v, want optimum 80.8184 and no splearn figure", r)
	}
	if len(refs) != 47 {
		t.Errorf("%d problems, want 47", len(refs))
	}
}
