package tensorcell_test

import (
	"fmt"
	"math/rand/v2"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/params"
)

// Example_tensorOps computes each tensor op of graph.Builder on a batch of
// two rows, through a compiled graph (a cell's step runs the same ops on
// the tape).
func Example_tensorOps() {
	p := params.New()
	add := func(name string, values []float64, shape ...int) {
		w, err := p.Add(name, shape...)
		check(err)
		copy(w, values)
	}
	add("W", []float64{1, 2, 3, 4, 5, 6}, 2, 3, 1) // [d 2, n 3, k 1]
	add("E", []float64{0, 0, 1, 1, 2, 2}, 3, 2)    // 3 symbols, width 2
	add("gamma", []float64{1, 1, 1}, 3)
	add("beta", []float64{0, 0, 0}, 3)

	b := graph.NewBuilder()
	x, h, ids := b.Input("x", 2, 2), b.Input("h", 2, 3), b.Input("ids", 2, 1)
	W, E := b.Param(p, "W"), b.Param(p, "E")
	gamma, beta := b.Param(p, "gamma"), b.Param(p, "beta")
	names := []string{"Kron", "Einsum bi,bj,ijk->bk", "Kron then Mul", "Einsum bi,bj->bij", "Embed", "LayerNorm", "Dropout"}
	nodes := []*G.Node{
		b.Kron(x, h),                            // [2, 6]: x[r, i] h[r, j] at column i*3 + j
		b.Einsum("bi,bj,ijk->bk", x, h, W),      // [2, 1]: sum_ij x[r, i] h[r, j] W[i, j, k]
		b.Mul(b.Kron(x, h), b.Reshape(W, 6, 1)), // the same, W read as [6, 1]
		b.Einsum("bi,bj->bij", x, h),            // [2, 2, 3]: Kron before the reshape
		b.Embed(ids, E),                         // [2, 2]: the rows ids of E
		b.LayerNorm(h, gamma, beta, 1e-5),       // [2, 3]: rows to mean 0, variance 1
		b.Dropout(h, 0.5),                       // the identity outside training
	}
	for _, n := range nodes {
		b.Watch(n) // keep the value for m.Value
	}
	m, err := graph.Compile(b, nil, nil)
	check(err)
	check(m.Let(x, []float64{1, 2, 3, 4}))
	check(m.Let(h, []float64{1, 0, -1, 2, 1, 0}))
	check(m.Let(ids, []float64{2, 0}))
	check(m.Run())
	for i, n := range nodes {
		v, err := m.Value(n)
		check(err)
		fmt.Printf("%-20s %v %.4g\n", names[i], n.Shape(), v)
	}
	// Output:
	// Kron                 (2, 6) [1 0 -1 2 0 -2 6 3 0 8 4 0]
	// Einsum bi,bj,ijk->bk (2, 1) [-6 64]
	// Kron then Mul        (2, 1) [-6 64]
	// Einsum bi,bj->bij    (2, 2, 3) [1 0 -1 2 0 -2 6 3 0 8 4 0]
	// Embed                (2, 2) [2 2 0 0]
	// LayerNorm            (2, 3) [1.225 0 -1.225 1.225 0 -1.225]
	// Dropout              (2, 3) [1 0 -1 2 1 0]
}

// inputDropout is a cell whose input goes through dropout first.
type inputDropout struct {
	graph.Cell
	rate float64
}

func (c inputDropout) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	return c.Cell.Step(b, b.Dropout(x, c.rate), h)
}

// Example_dropout shows when dropout is on: in the loss of a training
// batch, with a mask drawn from the batch's seed, and not in evaluation.
func Example_dropout() {
	rng := rand.New(rand.NewPCG(1, 2))
	task, _, err := datasets.PFATask(datasets.PFAConfig{}, rng)
	check(err)
	p := params.New()
	cell, err := layers.NewCell("mirnn", p, "mirnn", layers.CellConfig{In: task.In, Hidden: 8}, rng)
	check(err)
	seq, err := layers.NewSequence(p, inputDropout{cell, 0.5}, task.Out, task.Kind)
	check(err)
	check(seq.InitHead(rng))
	prob, err := layers.NewProblem(seq, task, layers.ProblemConfig{})
	check(err)

	batch := []int{0, 1, 2, 3}
	prob.SetNoiseSeed(7) // the Trainer sets it before every training batch
	loss7, err := prob.Loss(batch)
	check(err)
	again, err := prob.Loss(batch)
	check(err)
	prob.SetNoiseSeed(8)
	loss8, err := prob.Loss(batch)
	check(err)
	eval, err := prob.Evaluate(task.Train[:4])
	check(err)
	rep, err := graph.CheckProblem(prob, graph.CheckProblemOptions{Batch: batch})
	check(err)
	fmt.Println("executor:", prob.Executor())
	fmt.Println("same seed, same mask:", loss7 == again)
	fmt.Println("another seed, another mask:", loss7 != loss8)
	fmt.Println("evaluation differs from training:", eval != loss7 && eval != loss8)
	fmt.Println("gradient check with dropout on, worst relative error below 1e-6:", rep.WorstRel.RelErr < 1e-6)
	// Output:
	// executor: tape/float64
	// same seed, same mask: true
	// another seed, another mask: true
	// evaluation differs from training: true
	// gradient check with dropout on, worst relative error below 1e-6: true
}
