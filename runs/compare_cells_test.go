package runs

import (
	"strings"
	"testing"
)

// TestCompareCellModel checks a comparison's cell model with the flags of
// rtn train: a stacked, embedded GRU with dropout in float32 builds,
// trains a batch, and reports its executor; the other models refuse those
// fields.
func TestCompareCellModel(t *testing.T) {
	f, spec, err := CompareProblem(CompareSpec{Model: "gru", Hidden: 4, Layers: 2, Dropout: 0.2, Embed: 3, DType: "float32"})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Executor.Kind != "tape" || spec.Executor.DType != "float32" {
		t.Errorf("executor %+v, want the tape in float32", spec.Executor)
	}
	p, err := f(1)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := p.LossGrad([]int{0, 1}, p.Params().Like()); err != nil || !(l > 0) {
		t.Errorf("loss %v, %v", l, err)
	}
	if n := p.Params().Size(); n == 0 || !p.Params().Has("embed/E") {
		t.Errorf("%d parameters, embedding table %v", n, p.Params().Has("embed/E"))
	}
	for _, bad := range []CompareSpec{{Model: "umps", Embed: 2}, {Model: "pcnn", Layers: 2}, {Model: "lstm", Dropout: 0.5}, {Model: "lstm", DType: "half"}} {
		if _, _, err := CompareProblem(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		} else if strings.Contains(err.Error(), "panic") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}
