package compare_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/runs"
)

// signum is a custom optimizer, Signum (Bernstein et al. 2018): the sign
// of a momentum, m ← β m + (1−β) g, p ← p − η sign(m). Its state is one
// tensor per parameter, named "m/<param>" as rtn's optimizers name
// theirs, so that checkpoints carry it.
type signum struct {
	lr, beta float64
	m        *params.Params // momentum, laid out like the parameters
}

func (o *signum) Name() string               { return "signum" }
func (o *signum) LearningRate() float64      { return o.lr }
func (o *signum) SetLearningRate(lr float64) { o.lr = lr }

func (o *signum) Step(p, g *params.Params) error {
	if o.m == nil {
		o.m = p.Like()
	}
	for _, n := range p.Names() {
		x, gn, m := p.Data(n), g.Data(n), o.m.Data(n)
		if gn == nil || m == nil {
			return errors.Errorf("signum: no gradient or state for %q", n)
		}
		for i := range x {
			m[i] = o.beta*m[i] + (1-o.beta)*gn[i]
			switch {
			case m[i] > 0:
				x[i] -= o.lr
			case m[i] < 0:
				x[i] += o.lr
			}
		}
	}
	return nil
}

func (o *signum) State() *params.Params {
	s := params.New()
	if o.m == nil {
		return s
	}
	for _, n := range o.m.Names() {
		if _, err := s.Add("m/"+n, o.m.Shape(n)...); err != nil {
			panic(err)
		}
		copy(s.Data("m/"+n), o.m.Data(n))
	}
	return s
}

func (o *signum) LoadState(s *params.Params) error {
	if s == nil {
		return errors.New("signum: nil state")
	}
	m := params.New()
	for _, n := range s.Names() {
		name, ok := strings.CutPrefix(n, "m/")
		if !ok {
			return errors.Errorf("signum: foreign state tensor %q", n)
		}
		if _, err := m.Add(name, s.Shape(n)...); err != nil {
			return err
		}
		copy(m.Data(name), s.Data(n))
	}
	o.m = nil
	if m.Len() > 0 {
		o.m = m
	}
	return nil
}

// Registering at init makes "signum" a name like "adam": optim.New,
// compare.Setting.Optimizer and the Names lists know it. (rtn compare's
// -optimizers flag knows the optimizers of the rtn binary; a program of
// your own that registers one and calls compare.Run, as below, is how to
// compare it.)
func init() {
	optim.Register("signum", func(c optim.Config) (optim.Optimizer, error) {
		if c.LR == 0 {
			c.LR = 0.001
		}
		if c.Beta1 == 0 {
			c.Beta1 = 0.9
		}
		return &signum{lr: c.LR, beta: c.Beta1}, nil
	})
}

// Example_customOptimizer compares a custom optimizer, registered with
// optim.Register, with Adam and schedule-free AdamW on rtn compare's RNN
// problem, kept small.
func Example_customOptimizer() {
	problem, spec, err := runs.CompareProblem(runs.CompareSpec{Model: "rnn", Task: "pfa", Hidden: 8, Chunk: 10})
	if err != nil {
		log.Fatal(err)
	}
	res, err := compare.Run(compare.Config{
		Problem:   problem,
		Meta:      spec,
		Settings:  []compare.Setting{{Optimizer: "signum"}, {Optimizer: "adam"}, {Optimizer: "schedulefree"}},
		LRGrid:    []float64{0.003, 0.03},
		Seeds:     []uint64{1},
		Budget:    compare.Budget{Steps: 6},
		BatchSize: 32,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Summary().Rows {
		fmt.Printf("%s: tuned lr %g, %d/%d runs ok\n", r.Setting, r.LR, r.OK, r.Runs)
	}
	// Output:
	// signum: tuned lr 0.03, 1/1 runs ok
	// adam: tuned lr 0.03, 1/1 runs ok
	// schedulefree: tuned lr 0.03, 1/1 runs ok
}
