// Package params holds named float64 tensors: a model's learnable
// parameters, their gradients, an optimizer's state. A Params set keeps each
// tensor as a row-major []float64 with its shape, outside any graph, so
// several graphs, native kernels and closed-form estimators share one set of
// values and optimizers update them in place. The package also reads and
// writes NumPy's .npy and .npz files (the checkpoint format: numpy.load
// reads them) and writes files atomically.
//
// It imports nothing from gorgonia: code that only holds numbers depends on
// this package, and package graph binds its tensors to graph nodes.
//
//	p := params.New()
//	p.Add("W", 3, 4)
//	p.InitNormal("W", rand.New(rand.NewPCG(1, 2)), 0.1)
//	err := p.Save("model.npz")
//
// A Params set is not safe for concurrent use when any goroutine writes to
// it; concurrent readers are fine.
package params
