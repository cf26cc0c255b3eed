package umps

import (
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/optim"
)

var (
	_ optim.Problem   = (*Problem)(nil)
	_ optim.Validator = (*Problem)(nil)
	_ optim.Evaluator = (*Problem)(nil)
)

// optim.Trainer fits a small u-MPS to strings of (01)^k: the
// validation NLL falls well below its initial value, and the trained
// model's fixed-length samples are mostly in the language.
func TestProblemTrains(t *testing.T) {
	var train, valid [][]int
	for k := 1; k <= 6; k++ {
		s := make([]int, 2*k)
		for i := range s {
			s[i] = i % 2
		}
		for r := 0; r < 10; r++ {
			train = append(train, s)
		}
		valid = append(valid, s)
	}
	p, err := NewParams(4, 2, NearIdentity, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	prob, err := NewProblem(p, train, valid, PerLength)
	if err != nil {
		t.Fatal(err)
	}
	before, err := prob.ValidationLoss()
	if err != nil {
		t.Fatal(err)
	}
	opt, err := optim.New("adam", optim.Config{LR: 1e-2})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := optim.NewTrainer(prob, opt, optim.TrainConfig{Epochs: 60, BatchSize: 20, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run()
	if err != nil {
		t.Fatal(err)
	}
	if !(res.BestValid < before/4) {
		t.Errorf("validation NLL %.4f -> %.4f, want a fourfold drop", before, res.BestValid)
	}
	m, err := FromParams(p)
	if err != nil {
		t.Fatal(err)
	}
	tf, err := NewTransfer(m)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := tf.SampleLength(8, 200, rand.New(rand.NewPCG(4, 4)))
	if err != nil {
		t.Fatal(err)
	}
	ok := 0
	for _, s := range samples {
		good := true
		for i, c := range s {
			good = good && c == i%2
		}
		if good {
			ok++
		}
	}
	if ok < 150 {
		t.Errorf("%d of 200 samples of length 8 are 01010101", ok)
	}
	if _, err := NewProblem(p, [][]int{{0, 2}}, nil, PerLength); err == nil {
		t.Error("symbol outside the alphabet accepted")
	}
}
