package runs_test

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/internal/docblocks"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/runs"
)

// SignSGD moves every parameter by the learning rate against the sign of
// its gradient. It keeps no state.
type SignSGD struct{ lr float64 }

var _ optim.Optimizer = (*SignSGD)(nil)

func (o *SignSGD) Name() string               { return "signsgd" }
func (o *SignSGD) LearningRate() float64      { return o.lr }
func (o *SignSGD) SetLearningRate(lr float64) { o.lr = lr }
func (o *SignSGD) State() *params.Params      { return params.New() }

func (o *SignSGD) LoadState(s *params.Params) error {
	if s.Len() != 0 {
		return fmt.Errorf("signsgd: a checkpoint of another optimizer (%d state tensors)", s.Len())
	}
	return nil
}

func (o *SignSGD) Step(p, g *params.Params) error {
	if err := p.SameLayout(g); err != nil {
		return err
	}
	for _, name := range p.Names() {
		w, d := p.Data(name), g.Data(name)
		for i := range w {
			switch {
			case d[i] > 0:
				w[i] -= o.lr
			case d[i] < 0:
				w[i] += o.lr
			}
		}
	}
	return nil
}

func init() {
	optim.Register("signsgd", func(c optim.Config) (optim.Optimizer, error) {
		if c.LR == 0 {
			c.LR = 1e-3 // the default rate
		}
		if !(c.LR > 0) || math.IsInf(c.LR, 0) {
			return nil, fmt.Errorf("signsgd: lr must be positive and finite, got %v", c.LR)
		}
		return &SignSGD{lr: c.LR}, nil
	})
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}

// Example_register trains and compares a registered optimizer by name,
// as docs/design.md shows.
func Example_register() {
	rep, err := runs.Train(runs.TrainSpec{Model: "lstm", Optimizer: "signsgd", Optim: optim.Config{LR: 1e-3}, Epochs: 2})
	check(err)
	fmt.Println(rep.Optimizer, rep.Epochs)

	factory, spec, err := runs.CompareProblem(runs.CompareSpec{Model: "lstm"})
	check(err)
	res, err := compare.Run(compare.Config{
		Problem:  factory,
		Meta:     spec,
		Settings: []compare.Setting{{Optimizer: "signsgd"}, {Optimizer: "adam"}},
		LRGrid:   []float64{1e-3, 1e-2},
		Seeds:    []uint64{1},
		Budget:   compare.Budget{Epochs: 1},
	})
	check(err)
	fmt.Println(len(res.Runs), "runs")
	// Output:
	// signsgd 2
	// 4 runs
}

// TestDocsAddOptimizer checks that the Go blocks of design.md's section on
// adding an optimizer are parts of this file.
func TestDocsAddOptimizer(t *testing.T) {
	b, err := os.ReadFile("register_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := docblocks.Go("../docs/design.md", "## Add an optimizer")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 {
		t.Fatalf("%d Go blocks, want 2", len(blocks))
	}
	for _, bl := range blocks {
		if !docblocks.In(string(b), strings.TrimSpace(bl)) {
			t.Errorf("block not in register_example_test.go:\n%s", bl)
		}
	}
}
