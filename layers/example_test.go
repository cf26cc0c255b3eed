package layers_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/params"
)

// DiagCell is a user-defined recurrent cell with a diagonal recurrence,
//
//	h_t = tanh(x_t W + h_{t-1} * d + b),
//
// written as one step of gorgonia operations. Nothing else is needed to
// train it.
type DiagCell struct {
	P          *params.Params
	In, Hidden int
}

func (c *DiagCell) InputSize() int    { return c.In }
func (c *DiagCell) StateSizes() []int { return []int{c.Hidden} }

// InitialState starts from zeros; b.LearnedState(c.P, "h0", batch) would
// learn it instead.
func (c *DiagCell) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.ZeroState(batch, c.Hidden)}
}

func (c *DiagCell) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	z := b.Add(b.Mul(x, b.Param(c.P, "W")), b.MulRow(h[0], b.Param(c.P, "d")))
	return []*G.Node{b.Tanh(b.AddRow(z, b.Param(c.P, "b")))}
}

// Example_customCell defines a new cell as a graph, checks the gradient it
// trains with against finite differences, and trains it with Adam on the
// built-in automaton task.
func Example_customCell() {
	rng := rand.New(rand.NewPCG(1, 2))
	task, _, err := datasets.PFATask(datasets.PFAConfig{}, rng)
	if err != nil {
		panic(err)
	}

	p := params.New()
	p.Add("W", task.In, 16)
	p.Add("d", 16)
	p.Add("b", 16)
	p.InitNormal("W", rng, 0.5)
	p.InitUniform("d", rng, 0.9)
	cell := &DiagCell{P: p, In: task.In, Hidden: 16}

	seq, err := layers.NewSequence(p, cell, task.Out, task.Kind)
	if err != nil {
		panic(err)
	}
	seq.InitHead(rng)
	prob, err := layers.NewProblem(seq, task, layers.ProblemConfig{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("executor: %s\n", prob.Executor())
	check, err := graph.CheckProblem(prob, graph.CheckProblemOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("gradient check: worst relative error below 1e-6: %v\n", check.WorstRel.RelErr < 1e-6)
	opt, err := optim.New("adam", optim.Config{LR: 0.01})
	if err != nil {
		panic(err)
	}
	tr, err := optim.NewTrainer(prob, opt, optim.TrainConfig{Epochs: 2, BatchSize: 32, Seed: 1})
	if err != nil {
		panic(err)
	}
	res, err := tr.Run()
	if err != nil {
		panic(err)
	}
	uniform := math.Log(float64(task.Out))
	fmt.Printf("epochs: %d\n", res.Epochs)
	fmt.Printf("beats the uniform predictor: %v\n", res.BestValid < uniform)
	// Output:
	// executor: tape/float64
	// gradient check: worst relative error below 1e-6: true
	// epochs: 2
	// beats the uniform predictor: true
}
