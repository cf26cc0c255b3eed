package pcnn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
)

// TestGraphMatchesNative: the gorgonia graph gives the native kernels'
// log-likelihood and gradient, and its own gradient passes central finite
// differences, for every model and activation.
func TestGraphMatchesNative(t *testing.T) {
	for _, kind := range []Kind{RNN, CNN, PCNN} {
		for _, act := range []activation.Activation{activation.Tanh, activation.Logistic} {
			t.Run(kind.String()+"/"+act.String(), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(21, uint64(3*int(kind)+int(act))))
				m := randomModel(t, kind, act, 3, 2, 3, rng)
				s := randomSeq(rng, 6, 3)
				g, err := NewGraphModel(m, len(s.X))
				if err != nil {
					t.Fatal(err)
				}
				gg := m.P.Like()
				nll, err := g.NLL(s, gg)
				if err != nil {
					t.Fatal(err)
				}
				tr, _ := m.Forward(s, nil)
				if math.Abs(nll+tr.LogLik) > 1e-12*math.Abs(tr.LogLik) {
					t.Fatalf("graph NLL %v, native %v", nll, -tr.LogLik)
				}
				ng := m.P.Like()
				if err := m.Backward(s, tr, ng, nil); err != nil {
					t.Fatal(err)
				}
				for _, name := range m.P.Names() {
					a, b := gg.Data(name), ng.Data(name)
					for k := range a {
						if math.Abs(a[k]+b[k]) > 1e-10*math.Max(1, math.Abs(b[k])) {
							t.Fatalf("%s[%d]: graph %v, native %v", name, k, a[k], -b[k])
						}
					}
				}
				if err := graph.CheckMachineGradients(g.M, m.P, graph.FDOptions{Step: 1e-5, Tol: gradTol}); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
