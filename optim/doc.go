// Package optim holds rtn's optimizers, learning-rate schedules and the
// generic training loop.
//
// Optimizers update named parameters (params.Params) in place; their state
// is keyed by parameter name and saved with checkpoints. They are looked up
// by name (New, Names), which feeds the -optimizer flag. Optimizers that
// need more than a gradient implement ProblemStepper and ask the Problem
// for it through optional interfaces, so the Trainer never special-cases
// them; an Averager (schedule-free AdamW) is validated and kept at its
// evaluation point. Schedules change the rate between epochs, or before
// every step for a StepSchedule (warm-up, cosine and linear decay).
// docs/optimizers.md gives every optimizer's update and source.
package optim
