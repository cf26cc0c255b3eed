package umps

import (
	"math/rand/v2"
	"testing"
)

// TestKernelsAllocateNothingPerSymbol checks that the chain and the
// normaliser kernels, values and gradients, allocate as much for strings
// of 40 symbols as for strings of 10: nothing per time step.
func TestKernelsAllocateNothingPerSymbol(t *testing.T) {
	m := testModel(t, 4, 3, 0.5, 31)
	rng := rand.New(rand.NewPCG(1, 1))
	allocs := func(T int) float64 {
		seqs := make([][]int, 8)
		for b := range seqs {
			seqs[b] = make([]int, T)
			for i := range seqs[b] {
				seqs[b][i] = rng.IntN(3)
			}
		}
		dy := make([]float64, max(len(seqs), T+1))
		for i := range dy {
			dy[i] = 1
		}
		gA, ga, gw := make([]float64, len(m.A)), make([]float64, 4), make([]float64, 4)
		v := viewOf(m.A, m.Alpha, m.Omega, 4, 3)
		return testing.AllocsPerRun(3, func() {
			v.logAmp2(seqs)
			v.logAmp2Grad(seqs, dy, gA, ga, gw)
			v.logZn(T)
			v.logZnGrad(T, dy, gA, ga, gw)
		})
	}
	if short, long := allocs(10), allocs(40); long != short {
		t.Errorf("%v allocations at 40 symbols, %v at 10", long, short)
	}
}
