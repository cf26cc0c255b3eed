package pfa

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/rtnlab/rtn/datasets"
)

// BenchmarkEMPasses times ten Baum-Welch passes of a 62-state PFA over
// PAutomaC problem 28's training strings (skipped without the data):
//
//	go test -run X -bench EMPasses ./pfa
func BenchmarkEMPasses(b *testing.B) {
	dir := datasets.PAutomaCDir()
	if dir == "" {
		b.Skip("no PAutomaC data")
	}
	d, err := datasets.ReadStringsFile(filepath.Join(dir, "28.pautomac.train"), datasets.PAutomaC, nil)
	if err != nil {
		b.Fatal(err)
	}
	train, valid, err := Split(d.Seqs, 0.1, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		m := Random(KindPFA, 62, len(d.Alphabet), rand.New(rand.NewPCG(1, 1)))
		if _, _, err := EM(m, train, valid, TrainConfig{Epochs: 10}); err != nil {
			b.Fatal(err)
		}
	}
}
