package compare_test

import (
	"fmt"
	"log"

	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/runs"
)

// Example compares SGD with momentum and Adam as rtn compare -model rnn
// -task pfa does (Model "lstm" for the LSTM), kept small: hidden size 8,
// a 2-point rate grid, 2 seeds, 5 steps per run.
func Example() {
	problem, spec, err := runs.CompareProblem(runs.CompareSpec{Model: "rnn", Task: "pfa", Hidden: 8, Chunk: 10})
	if err != nil {
		log.Fatal(err)
	}
	res, err := compare.Run(compare.Config{
		Problem:  problem,
		Meta:     spec,
		Executor: spec.Executor,
		Settings: []compare.Setting{{Name: "momentum", Optimizer: "sgd", Config: optim.Config{Momentum: 0.9}},
			{Optimizer: "adam"}},
		LRGrid:    []float64{0.01, 0.1},
		Seeds:     []uint64{1, 2},
		Budget:    compare.Budget{Steps: 5},
		BatchSize: 32,
		Jobs:      2,
		// Dir: "out/compare" to resume; Shard: compare.Shard{Index: 1, Count: 3} on a cluster.
	})
	if err != nil {
		log.Fatal(err)
	}
	sum := res.Summary() // sum.WriteTable(os.Stdout), sum.WriteFiles(dir), runs.ComparePlots(dir, sum)
	fmt.Printf("executor: %s\n", sum.Executor)
	for _, r := range sum.Rows {
		fmt.Printf("%s: tuned lr %g, %d/%d runs ok\n", r.Setting, r.LR, r.OK, r.Runs)
	}
	// Output:
	// executor: fused/float64
	// momentum: tuned lr 0.1, 2/2 runs ok
	// adam: tuned lr 0.1, 2/2 runs ok
}
