package experiments

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/params"
)

// The LSTM baseline's plain-Go forward pass (used for sampling) computes
// the same per-step NLL as the trained graph, its samples have the asked
// length and alphabet, and the positional code of the last step does not
// depend on the length.
func TestLSTMBaseline(t *testing.T) {
	train := [][]int{{0, 1}, {1, 1, 0}, {2}, {0, 2, 1, 1}, {1, 0, 2, 0, 1}}
	m, err := TrainLSTMBaseline(train, train[:2], 3, 5, 2, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := m.MeanNLL(train[:2])
	want, err := m.prob.ValidationLoss()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("plain-Go NLL %.12g, graph %.12g", got, want)
	}
	s, err := m.SampleLength(7, 20, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range s {
		if len(x) != 7 {
			t.Fatalf("sample of length %d", len(x))
		}
		for _, c := range x {
			if c < 0 || c >= 3 {
				t.Fatalf("symbol %d", c)
			}
		}
	}
	a, b := positional(15, 15), positional(50, 50)
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-15 {
			t.Errorf("last-step code differs: %v vs %v", a, b)
		}
	}
}

// The BiLSTM's graph gradient agrees with finite differences, and its
// plain-Go completion distribution reproduces the graph's loss.
func TestBiLSTM(t *testing.T) {
	train := [][]int{{0, 1, 2, 1}, {1, 1, 0, 2}, {2, 0, 0, 1}}
	bl, err := TrainBiLSTM(train, train[:1], 3, 4, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := bl.build(2, 4, true)
	if err != nil {
		t.Fatal(err)
	}
	loss := func() (float64, error) { return g.run(train[:2], 3, nil) }
	grad := func(gr *params.Params) error { _, err := g.run(train[:2], 3, gr); return err }
	if err := graph.CheckGradients(bl.P, loss, grad, graph.FDOptions{MaxPerParam: 20}); err != nil {
		t.Error(err)
	}
	want, err := loss()
	if err != nil {
		t.Fatal(err)
	}
	got := 0.0
	for _, s := range train[:2] {
		for i := range s {
			got -= math.Log(bl.Complete(s[:i], s[i+1:])[s[i]]) / 8
		}
	}
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("plain-Go completion NLL %.12g, graph %.12g", got, want)
	}
	if _, err := TrainBiLSTM([][]int{{0}, {0, 1}}, nil, 2, 3, 1, 1, nil); err == nil {
		t.Error("strings of two lengths accepted")
	}
}
