package runs

import (
	"math"
	"runtime"
	"testing"
)

// TestTrainSameBitsAnyGOMAXPROCS trains an LSTM, a GRU and a tanh RNN
// large enough that their products (internal/gemm: batch 32 times 4 x 160
// gates times 160 units is above its threshold; for the tanh RNN, the
// weight gradients' windows) and their elementwise rows (internal/par) are
// cut over goroutines, at GOMAXPROCS 1, 2 and 3, in float64 and float32,
// and checks that the test loss has the same bits.
func TestTrainSameBitsAnyGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range []struct{ model, dtype string }{{"lstm", "float64"}, {"lstm", "float32"}, {"gru", "float64"}, {"gru", "float32"}, {"rnn", "float32"}} {
		model, dtype := c.model, c.dtype
		var want float64
		for _, procs := range []int{1, 2, 3} {
			runtime.GOMAXPROCS(procs)
			rep, err := Train(TrainSpec{Model: model, Hidden: 160, Batch: 32, Epochs: 1, DType: dtype, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			got := float64(rep.TestLoss)
			if procs == 1 {
				want = got
				continue
			}
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("%s %s: test loss %.17g at GOMAXPROCS %d, %.17g at 1", model, dtype, got, procs, want)
			}
		}
	}
}
