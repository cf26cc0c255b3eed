// Package layers turns a recurrent cell (graph.Cell) into a trainable
// sequence model: an output layer, a loss chosen by the task's target
// kind, truncated backpropagation through time over fixed-size chunk
// graphs, and an optim.Problem over a datasets.Task.
//
// The model families live in subpackages: layers/rnn (Elman, LSTM, GRU),
// layers/twornn (the 2-RNN) and the tensor models of later work. A
// user-defined cell needs nothing more than the graph.Cell interface:
//
//	p := params.New()
//	cell, _ := rnn.NewElman(p, "rnn", task.In, 32, activation.Tanh)
//	seq, _ := layers.NewSequence(p, cell, task.Out, task.Kind)
//	prob, _ := layers.NewProblem(seq, task, layers.ProblemConfig{})
//	tr, _ := optim.NewTrainer(prob, opt, optim.TrainConfig{Epochs: 5})
//	res, _ := tr.Run()
//
// Cells are also made by name from a registry (RegisterCell, NewCell,
// CellNames; the subpackages register theirs when imported) and stacked
// (Stack, NewStackOf). A Model pairs a Sequence with the ModelConfig that
// rebuilds it and is saved to and loaded from a model directory
// (Model.Save, LoadModel). After training, a Predictor gives per-step
// outputs (Predict), log-likelihoods (LogProb) and samples (Sample) with
// the arithmetic of the executor that trained the model.
//
// Problem.Executor says what runs the steps: the cell's hand-written
// kernel, the tape (its recorded step compiled into plain Go), or, for a
// cell with an op the tape cannot record, gorgonia's compiled graphs, with
// a warning. graph.CheckProblem checks the gradient a Problem trains with
// against finite differences of its loss.
package layers
