package spectral_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/spectral"
)

// Learn the addition 2-RNN (y = sum of v_t - u_t) from noiseless
// sequences of lengths 1 to 5, with least squares and the rank chosen on
// a validation split. Length 5 has fewer than 3^5 training sequences, too
// few for its least-squares estimate, so the basis uses lengths 1 to 4.
func ExampleFit() {
	prob := spectral.AdditionProblem()
	rng := rand.New(rand.NewPCG(1, 2))
	var sets []datasets.TwoRNNData
	for l := 1; l <= 5; l++ {
		s, err := prob.Sample(300, l, 0, rng)
		if err != nil {
			panic(err)
		}
		sets = append(sets, s)
	}
	all, err := datasets.IODataFrom(sets, nil)
	if err != nil {
		panic(err)
	}
	train, valid, test, err := all.SplitParts(0.1, 0.1, rand.New(rand.NewPCG(1, 3)))
	if err != nil {
		panic(err)
	}
	cfg := spectral.FitConfig{Config: spectral.Config{Method: spectral.MethodLS}}
	res, _, err := spectral.FitSelect(train, valid, cfg, 5)
	if err != nil {
		panic(err)
	}
	mse, err := res.Model.MSEIO(test)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Basis, "rank", res.Model.States)
	fmt.Println("exact:", mse < 1e-20)
	// Output:
	// prefixes {1} x suffixes {1,2} rank 2
	// exact: true
}
