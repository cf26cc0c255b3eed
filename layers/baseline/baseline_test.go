package baseline

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/twornn"
	"github.com/rtnlab/rtn/params"
)

// agreeTol bounds the difference between a plain-Go forward pass and the
// graph's loss on the same parameters (both float64, same operations up
// to summation order).
const agreeTol = 1e-9

// The LSTM baseline's plain-Go forward pass (used for sampling) computes
// the same per-step NLL as its graph, its samples have the asked length
// and alphabet, and the positional code of the last step does not depend
// on the length.
func TestLSTMLM(t *testing.T) {
	train := [][]int{{0, 1}, {1, 1, 0}, {2}, {0, 2, 1, 1}, {1, 0, 2, 0, 1}}
	m, err := NewLSTMLM(3, 5, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	prob, err := m.Problem(train, train[:2])
	if err != nil {
		t.Fatal(err)
	}
	got := m.MeanNLL(train[:2])
	want, err := prob.ValidationLoss()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > agreeTol {
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
	if _, err := m.Problem([][]int{{0, 3}}, nil); err == nil {
		t.Error("symbol 3 of a 3-symbol model accepted")
	}
	if _, err := NewLSTMLM(0, 5, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("0 symbols accepted")
	}
}

// The BiLSTM's graph gradient agrees with finite differences, and its
// plain-Go completion distribution reproduces the graph's loss.
func TestBiLSTM(t *testing.T) {
	train := [][]int{{0, 1, 2, 1}, {1, 1, 0, 2}, {2, 0, 0, 1}}
	bl, err := NewBiLSTM(3, 4, rand.New(rand.NewPCG(1, 1)))
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
	if math.Abs(got-want) > agreeTol {
		t.Errorf("plain-Go completion NLL %.12g, graph %.12g", got, want)
	}
	prob, err := bl.Problem(train, train[:1])
	if err != nil {
		t.Fatal(err)
	}
	if v, err := prob.ValidationLoss(); err != nil || math.IsNaN(v) {
		t.Errorf("validation loss %v, %v", v, err)
	}
	if _, err := bl.Problem([][]int{{0}, {0, 1}}, nil); err == nil {
		t.Error("strings of two lengths accepted")
	}
}

// The LSTM regressor's gradient through twornn.Regression agrees with
// finite differences on final-output data of two lengths.
func TestLSTMRegressorGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	net, err := NewLSTMRegressor(2, 1, 3, rng)
	if err != nil {
		t.Fatal(err)
	}
	var sets []datasets.TwoRNNData
	for _, l := range []int{2, 3} {
		s := datasets.TwoRNNData{Len: l, In: 2, Out: 1}
		for i := 0; i < 3; i++ {
			for j := 0; j < l*2; j++ {
				s.X = append(s.X, rng.NormFloat64())
			}
			s.Y = append(s.Y, rng.NormFloat64())
		}
		sets = append(sets, s)
	}
	reg, err := twornn.NewRegression(net, sets)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, reg.NumExamples())
	for i := range all {
		all[i] = i
	}
	err = graph.CheckGradients(net.Parameters(),
		func() (float64, error) { return reg.Loss(all) },
		func(g *params.Params) error { _, err := reg.LossGrad(all, g); return err },
		graph.FDOptions{Tol: 1e-6})
	if err != nil {
		t.Error(err)
	}
	if _, err := NewLSTMRegressor(0, 1, 3, rng); err == nil {
		t.Error("zero input width accepted")
	}
}
