// Package runs turns a typed spec into one finished experiment and its
// report: the work behind rtn train, compare, spectral, pretrain, pcnn and
// umps, which the sections of package reproduce also call.
//
// Each driver takes a spec struct whose zero fields take documented
// defaults (TrainSpec, CompareSpec, SpectralSpec, PretrainSpec, PCNNSpec,
// UMPSSpec, ...), validates it before any work, runs the models of
// layers with the optimizers of optim, and returns a report whose JSON
// fields are the command's -json output. A Go program can script the
// same runs the command line makes.
package runs
