// Package compare runs optimizer comparisons: every (optimizer setting,
// learning rate, seed) of a grid trained on one problem factory, with, per
// seed, the same initial parameters and the same batch order for every
// optimizer; learning curves recorded per epoch (and every N steps);
// divergence recorded as an outcome, never a crash; learning rates tuned
// per optimizer as in DeepOBS (the grid point with the best mean
// validation loss over seeds, its test loss reported), a tuned rate at the
// grid's edge flagged; as stages decided by that tuning, the grid widened
// beyond an edge (Config.ExtendGrid) and the tuned rates rerun with more
// seeds (Config.Rerun); the steps and seconds to a target per grid point
// (AlgoPerf's time to target) and performance profiles over problems
// (Profile); a text table, a LaTeX (booktabs) table, CSV and JSON (no NaN:
// null).
//
// Runs go through optim.Trainer, spread over goroutines with results
// identical bit for bit to a serial run (wall times apart). With a
// directory, each finished run is written atomically to its own file, so
// an interrupted comparison resumes where it stopped, and a grid is cut
// into deterministic shards (Shard) that separate processes (a Slurm array
// job, a Kubernetes Indexed Job) run and Merge joins:
//
//	res, err := compare.Run(compare.Config{
//		Problem:  factory, // func(seed uint64) (optim.Problem, error)
//		Settings: []compare.Setting{{Optimizer: "sgd"}, {Optimizer: "adam"}},
//		LRGrid:   []float64{1e-3, 1e-2, 1e-1},
//		Seeds:    []uint64{1, 2, 3},
//		Budget:   compare.Budget{Epochs: 10},
//	})
//	sum := res.Summary()
//	sum.WriteTable(os.Stdout)
package compare
