package autoenc_test

import (
	"fmt"
	"math"

	"github.com/rtnlab/rtn/autoenc"
)

// Two sequences of 2-vectors; with p = rank(Xi) the decoder reconstructs
// them exactly from their last states.
func ExampleClosedForm() {
	seqs := [][]float64{
		{1, 0, 0, 1, 1, 1}, // x_1 = (1,0), x_2 = (0,1), x_3 = (1,1)
		{0, 2, 1, 0},       // x_1 = (0,2), x_2 = (1,0)
	}
	r, err := autoenc.Rank(seqs, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := autoenc.ClosedForm(seqs, 2, r)
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := m.ReconstructionError(seqs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("rank(Xi) = %d, A is %dx%d, reconstruction error < 1e-20: %v\n", r, m.P, m.K, e < 1e-20 && !math.IsNaN(e))
	// Output: rank(Xi) = 5, A is 5x2, reconstruction error < 1e-20: true
}
