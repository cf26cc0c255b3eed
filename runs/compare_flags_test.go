package runs

import (
	"testing"

	"github.com/rtnlab/rtn/optim"
)

func TestParseGrid(t *testing.T) {
	g, err := ParseLRGrid("1e-3:1:4")
	if err != nil || len(g) != 4 || g[0] != 0.001 || g[1] != 0.01 || g[2] != 0.1 || g[3] != 1 {
		t.Errorf("ParseLRGrid(1e-3:1:4) = %v, %v", g, err)
	}
	if g, err := ParseLRGrid("0.5,0.05"); err != nil || len(g) != 2 || g[1] != 0.05 {
		t.Errorf("ParseLRGrid(0.5,0.05) = %v, %v", g, err)
	}
}

// TestParseOptimizersNewKeys checks that every key of the newer
// optimizers lands in its Config field.
func TestParseOptimizersNewKeys(t *testing.T) {
	got, err := ParseCompareOptimizers("adamw:dwd=0.1,nadam:momentum_decay=0.01,schedulefree:warmup_steps=50:schedule=warmup:1+cosine:9:0.1," +
		"shampoo:block=64:precondition_every=5:matrix_eps=1e-10:grafting=none")
	if err != nil {
		t.Fatal(err)
	}
	want := []optim.Config{{DecoupledDecay: 0.1}, {MomentumDecay: 0.01}, {WarmupSteps: 50},
		{MaxPreconditionerDim: 64, PreconditionFrequency: 5, MatrixEps: 1e-10, Grafting: "none"}}
	for i, st := range got {
		if st.Config != want[i] {
			t.Errorf("%s: config %+v, want %+v", st.Name, st.Config, want[i])
		}
	}
	if got[2].Schedule != "warmup:1+cosine:9:0.1" {
		t.Errorf("schedulefree: schedule %q", got[2].Schedule)
	}
}
