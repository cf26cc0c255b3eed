package autoenc

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
)

// BenchmarkApproximate times Algorithms 1-3 plus the closed form on a
// synthetic piano-roll training set (60 sequences of 48-128 frames).
func BenchmarkApproximate(b *testing.B) {
	p, err := datasets.SyntheticPiano(datasets.SyntheticPianoConfig{}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	for _, h := range []int{20, 50, 250} {
		b.Run(fmt.Sprintf("p=%d", h), func(b *testing.B) {
			for b.Loop() {
				if _, err := Approximate(p.Train.Seqs, datasets.PianoKeys, h); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
