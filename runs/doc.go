// Package runs turns a typed spec into one finished experiment and its
// report: the work behind rtn train, compare, spectral, pretrain, pcnn,
// umps and wfa, which the sections of package reproduce also call.
//
// Each driver takes a spec struct whose zero fields take documented
// defaults (TrainSpec, CompareSpec, SpectralSpec, PretrainSpec, PCNNSpec,
// UMPSSpec, WFALearnSpec, ...), validates it before any work, runs the models of
// layers with the optimizers of optim, and returns a report whose JSON
// fields are the command's -json output. A Go program can script the
// same runs the command line makes.
//
// A driver checks its output paths before any work (CheckOutDir,
// CheckOutput: a *PathError names the output). A driver that writes files
// locks its output directory or files before
// any work and until it returns (LockOutputs): a second run on the same
// output, in this process or another, fails with a *LockedError naming
// the first.
package runs
