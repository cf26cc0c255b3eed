package umps

import (
	"math"
	"testing"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// The contracted core: its op's gradient (A and gamma) and the P_* loss
// through it agree with finite differences; its transfer operator stays
// below the bound sigmoid(gamma) for a core whose own radius is far above 1;
// the loss equals MeanNLL of the baked model.
func TestContractCore(t *testing.T) {
	const tol = 1e-10
	p := nllParams(t, NearIdentity)
	for i := range p.Data(ParamA) {
		p.Data(ParamA)[i] *= 2 // radius far above 1
	}
	if err := AddGamma(p, 0.7); err != nil {
		t.Fatal(err)
	}
	t.Run("op", func(t *testing.T) {
		b := graph.NewBuilder()
		at := ContractCore(b, b.Param(p, ParamA), b.Param(p, ParamGamma))
		w := b.Input("w", 3, 2, 3)
		m, err := graph.Compile(b, b.Sum(b.Hadamard(w, at)), p)
		if err != nil {
			t.Fatal(err)
		}
		ws := make([]float64, 18)
		for i := range ws {
			ws[i] = math.Sin(float64(3*i + 1))
		}
		if err := m.Let(w, ws); err != nil {
			t.Fatal(err)
		}
		if err := graph.CheckMachineGradients(m, p, graph.FDOptions{}); err != nil {
			t.Error(err)
		}
	})
	t.Run("nll", func(t *testing.T) {
		n, err := NewNLL(p, len(nllBatch), 4, AllLengths)
		if err != nil {
			t.Fatal(err)
		}
		loss := func() (float64, error) { return n.Run(nllBatch, nil) }
		grad := func(g *params.Params) error { _, err := n.Run(nllBatch, g); return err }
		if err := graph.CheckGradients(p, loss, grad, graph.FDOptions{}); err != nil {
			t.Error(err)
		}
		got, err := loss()
		if err != nil {
			t.Fatal(err)
		}
		want, err := MeanNLL(p, nllBatch, AllLengths)
		if err != nil {
			t.Fatal(err)
		}
		if relErr(got, want) > tol {
			t.Errorf("graph loss %v, MeanNLL %v", got, want)
		}
	})
	t.Run("radius", func(t *testing.T) {
		raw, err := FromParams(p)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Contracted(p)
		if err != nil {
			t.Fatal(err)
		}
		if r := exactRho(raw); r < 1 {
			t.Fatalf("raw core radius %v, want > 1 for the test to mean anything", r)
		}
		if r := exactRho(m); !(r <= 0.7+1e-12) {
			t.Errorf("contracted radius %v, want <= 0.7", r)
		}
	})
}
