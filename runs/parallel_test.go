package runs

import (
	"math"
	"runtime"
	"testing"
)

// TestTrainSameBitsAnyGOMAXPROCS trains an LSTM large enough that its
// products are cut over goroutines (internal/gemm: batch 32 times 4 x 160
// gates times 160 units is above its threshold) at GOMAXPROCS 1 and 2, in
// float64 and float32, and checks that the test loss has the same bits.
func TestTrainSameBitsAnyGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, dtype := range []string{"float64", "float32"} {
		var want float64
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			rep, err := Train(TrainSpec{Model: "lstm", Hidden: 160, Batch: 32, Epochs: 1, DType: dtype, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			got := float64(rep.TestLoss)
			if procs == 1 {
				want = got
				continue
			}
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("%s: test loss %.17g at GOMAXPROCS %d, %.17g at 1", dtype, got, procs, want)
			}
		}
	}
}
