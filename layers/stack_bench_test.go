package layers_test

import (
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers"
)

// BenchmarkStack times a training step (loss and gradient, no update) of
// LSTMs on 32 random binary sequences of 100 frames of width 88, 100
// hidden units: one layer on its kernel and on the tape, and two stacked
// layers on the tape (a Stack has no kernel of its own) and on the
// graphs. docs/speed.md quotes it.
func BenchmarkStack(b *testing.B) {
	const batch, steps, width, hidden = 32, 100, 88, 100
	rng := rand.New(rand.NewPCG(1, 1))
	task := &datasets.Task{Name: "bench", In: width, Out: width, Kind: datasets.Binary}
	idx := make([]int, batch)
	for i := range idx {
		e := datasets.Example{T: steps, X: make([]float64, steps*width), Y: make([]float64, steps*width)}
		for j := range e.X {
			e.X[j], e.Y[j] = float64(rng.IntN(2)), float64(rng.IntN(2))
		}
		task.Train, idx[i] = append(task.Train, e), i
	}
	for _, c := range []struct {
		name   string
		layers int
		exec   string
	}{{"lstm/fused", 1, layers.ExecFused}, {"lstm/tape", 1, layers.ExecTape}, {"lstm-2/tape", 2, layers.ExecTape}, {"lstm-2/graph", 2, layers.ExecGraph}} {
		b.Run(c.name, func(b *testing.B) {
			m, err := layers.NewModel(layers.ModelConfig{Cell: "lstm", Config: layers.CellConfig{In: width, Hidden: hidden},
				Layers: c.layers, Out: width, Kind: datasets.Binary.String()}, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				b.Fatal(err)
			}
			prob, err := layers.NewProblem(m.Seq, task, layers.ProblemConfig{Executor: c.exec})
			if err != nil {
				b.Fatal(err)
			}
			g := m.Seq.Params.Like()
			for b.Loop() {
				if _, err := prob.LossGrad(idx, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
