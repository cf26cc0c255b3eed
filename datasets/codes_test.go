package datasets

import (
	"slices"
	"strings"
	"testing"
)

// TestSymbolCodes checks that one-hot inputs become their codes, targets
// are kept, and a row that is not one-hot is refused naming the split.
func TestSymbolCodes(t *testing.T) {
	task := &Task{Name: "t", In: 3, Out: 2, Kind: Categorical,
		Train: []Example{{T: 2, X: []float64{0, 0, 1, 1, 0, 0}, Y: []float64{1, 0}}},
		Test:  []Example{{T: 1, X: []float64{0, 1, 0}, Y: []float64{1}}}}
	c, err := task.SymbolCodes()
	if err != nil {
		t.Fatal(err)
	}
	if c.In != 1 || !slices.Equal(c.Train[0].X, []float64{2, 0}) || !slices.Equal(c.Test[0].X, []float64{1}) || c.Valid != nil {
		t.Fatalf("codes %+v", c)
	}
	if !slices.Equal(c.Train[0].Y, task.Train[0].Y) || task.In != 3 || task.Train[0].X[2] != 1 {
		t.Fatal("the targets changed or the task was modified")
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, x := range [][]float64{{0, 0, 0}, {1, 1, 0}, {0, 0.5, 0}} {
		bad := *task
		bad.Test = []Example{{T: 1, X: x, Y: []float64{0}}}
		if _, err := bad.SymbolCodes(); err == nil || !strings.Contains(err.Error(), "test: example 0 step 0: the input is not one-hot") {
			t.Errorf("input %v: error %v", x, err)
		}
	}
}
