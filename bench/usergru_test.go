package bench

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/rnn"
	"github.com/rtnlab/rtn/params"
)

// TestUserGRUMatchesGRU checks that the user-written GRU on the tape
// computes what rnn.GRU's kernel does: the same loss and gradients, to
// 1e-12, from the same parameters.
func TestUserGRUMatchesGRU(t *testing.T) {
	const batch, in, hidden, T = 3, 4, 5, 7
	rng := rand.New(rand.NewPCG(1, 2))
	pf, pu := params.New(), params.New()
	gru, err := rnn.NewGRU(pf, "gru", in, hidden)
	if err != nil {
		t.Fatal(err)
	}
	if err := gru.Init(rng); err != nil {
		t.Fatal(err)
	}
	if err := pf.InitNormal("gru/h0", rng, 0.5); err != nil {
		t.Fatal(err)
	}
	user, err := newUserGRU(pu, "gru", in, hidden)
	if err != nil {
		t.Fatal(err)
	}
	xs, ys := frames(T, batch, in, binaryRows(rng))
	mask := []float64{1, 1, 1}
	aux := make([][][]float64, T)
	for s := range aux {
		aux[s] = [][]float64{ys[s], mask}
	}
	type runner interface {
		Run([][]float64, [][][]float64, *params.Params) (float64, error)
	}
	run := func(p *params.Params, c graph.Cell, exec func(*layers.Sequence) (runner, error)) (float64, *params.Params) {
		seq, err := layers.NewSequence(p, c, in, datasets.Binary)
		if err != nil {
			t.Fatal(err)
		}
		if p == pf {
			if err := seq.InitHead(rng); err != nil {
				t.Fatal(err)
			}
			if err := pf.InitNormal(layers.OutB, rng, 0.3); err != nil {
				t.Fatal(err)
			}
		} else {
			for _, n := range pf.Names() {
				if err := pu.Set(n, pf.Data(n)); err != nil {
					t.Fatal(err)
				}
			}
		}
		r, err := exec(seq)
		if err != nil {
			t.Fatal(err)
		}
		g := p.Like()
		l, err := r.Run(xs, aux, g)
		if err != nil {
			t.Fatal(err)
		}
		return l, g
	}
	wantL, want := run(pf, gru, func(s *layers.Sequence) (runner, error) {
		r, _, err := s.FusedRecurrence(batch, graph.RecurrenceConfig{})
		return r, err
	})
	gotL, got := run(pu, user, func(s *layers.Sequence) (runner, error) {
		return s.TapeRecurrence(batch, graph.RecurrenceConfig{})
	})
	if math.Abs(gotL-wantL) > 1e-12*math.Abs(wantL) {
		t.Errorf("loss %.17g, rnn.GRU %.17g", gotL, wantL)
	}
	for _, n := range pf.Names() {
		for i, v := range got.Data(n) {
			if w := want.Data(n)[i]; math.Abs(v-w) > 1e-12*math.Max(1, math.Abs(w)) {
				t.Errorf("%s[%d]: gradient %.17g, rnn.GRU %.17g", n, i, v, w)
			}
		}
	}
}
