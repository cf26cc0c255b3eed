package umps

import (
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// The gradient of log Z_R from the adjoint recursion agrees with finite
// differences for symbols, classes, concatenation, unions, counted
// repetition and nested closures, on a model with converging closures.
func TestLogZGradient(t *testing.T) {
	m := testModel(t, 3, 2, 0.4, 81)
	p, err := NewParams(3, 2, RandomNormal, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string][]float64{ParamA: m.A, ParamAlpha: m.Alpha, ParamOmega: m.Omega} {
		if err := p.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, pattern := range []string{`0`, `[01]1`, `.*`, `(01|1)*0?`, `0{2,4}1`, `((01)*1)*`, `1(0|1)*0|0`} {
		r := mustRegex(t, pattern, "01")
		model, err := FromParams(p)
		if err != nil {
			t.Fatal(err)
		}
		loss := func() (float64, error) {
			tr, err := NewTransfer(model)
			if err != nil {
				return 0, err
			}
			return tr.LogZ(r)
		}
		grad := func(g *params.Params) error {
			tr, err := NewTransfer(model)
			if err != nil {
				return err
			}
			_, packed, err := tr.LogZGrad(r)
			if err != nil {
				return err
			}
			gA, ga, gw := split(packed, 3, 2)
			copy(g.Data(ParamA), gA)
			copy(g.Data(ParamAlpha), ga)
			copy(g.Data(ParamOmega), gw)
			return nil
		}
		if err := graph.CheckGradients(p, loss, grad, graph.FDOptions{}); err != nil {
			t.Errorf("%s: %v", pattern, err)
		}
	}
	// The graph op: log P(s in R) = log Z_R - log Z_* as a loss.
	b := graph.NewBuilder()
	A, alpha, omega := b.Param(p, ParamA), b.Param(p, ParamAlpha), b.Param(p, ParamOmega)
	loss := b.Sum(b.Sub(LogZRegex(b, A, alpha, omega, mustRegex(t, `(01|1)*0?`, "01")), LogZStar(b, A, alpha, omega)))
	mc, err := graph.Compile(b, loss, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := graph.CheckMachineGradients(mc, p, graph.FDOptions{}); err != nil {
		t.Error(err)
	}
}
