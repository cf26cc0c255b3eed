package pfa

import (
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rtnlab/rtn/datasets"
)

// solutionTol is the relative error allowed between the kernel's
// probabilities of a target machine, normalised over the test set, and
// the organisers' solution (the data README reports under 2e-10).
const solutionTol = 1e-8

func TestKernelReproducesPAutomaCSolutions(t *testing.T) {
	dir := datasets.PAutomaCDir()
	if dir == "" {
		t.Skip("PAutomaC data absent (set RTN_PAUTOMAC_DIR)")
	}
	for _, prob := range []int{24, 39} {
		t.Run(strconv.Itoa(prob), func(t *testing.T) {
			base := filepath.Join(dir, strconv.Itoa(prob))
			test, err := datasets.ReadStringsFile(base+".pautomac.test", datasets.PAutomaC, nil)
			if err != nil {
				t.Fatal(err)
			}
			sol, err := datasets.ReadSolutionFile(base + ".pautomac_solution.txt")
			if err != nil {
				t.Fatal(err)
			}
			p, err := ReadPAutomaCFile(base+".pautomac_model.txt", len(test.Alphabet))
			if err != nil {
				t.Fatal(err)
			}
			lp := p.LogProbs(test.Seqs)
			z, zs := 0.0, 0.0
			for i, v := range lp {
				z += math.Exp(v)
				zs += sol[i]
			}
			for i, v := range lp {
				got, want := math.Exp(v)/z, sol[i]/zs
				if math.Abs(got-want) > solutionTol*want {
					t.Fatalf("string %d: %g, solution %g", i, got, want)
				}
			}
		})
	}
}
