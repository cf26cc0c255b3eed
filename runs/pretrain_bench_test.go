package runs

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/optim"
)

// BenchmarkPretrainJSB times, on JSB (skipped without the data, see
// PolyphonicDir), the speed figures: the pre-training of section 3
// (Algorithms 1-3 on the training inputs plus the readout, as `rtn
// pretrain` does it) at p = 50 and 250, and one epoch of training at
// p = 100 (Adam, clip 5, batch 4, chunks of 100 steps, as in the README's
// comparison).
func BenchmarkPretrainJSB(b *testing.B) {
	dir := datasets.PolyphonicDir()
	if dir == "" {
		b.Skip("no polyphonic data directory (shared/data/polyphonic or $RTN_POLYPHONIC_DIR)")
	}
	task, err := LoadPianoTask("jsb", dir, datasets.SyntheticPianoConfig{}, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []int{50, 250} {
		b.Run(fmt.Sprintf("pretrain/p=%d", p), func(b *testing.B) {
			seq, err := NewModel("rnn", "symsigmoid", p, task, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := pretrainParams(seq.Params, task, p, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("epoch/p=100", func(b *testing.B) {
		seq, err := NewModel("rnn", "symsigmoid", 100, task, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			b.Fatal(err)
		}
		prob, err := layers.NewProblem(seq, task, layers.ProblemConfig{Chunk: 100})
		if err != nil {
			b.Fatal(err)
		}
		opt, err := optim.New("adam", optim.Config{LR: 0.005, ClipNorm: 5})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			tr, err := optim.NewTrainer(prob, opt, optim.TrainConfig{Epochs: 1, BatchSize: 4, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tr.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
