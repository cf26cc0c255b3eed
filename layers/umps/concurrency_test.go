package umps

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// starText is log P_*(s) under tr as its bits, or the error's text.
func starText(tr *Transfer, s []int) string {
	v, err := tr.LogProbStar(s)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprint(math.Float64bits(v))
}

// TestConcurrentReads calls the read-only methods of one model from
// several goroutines at once (and LogAmplitudesParallel, which starts
// its own), each with its own Transfer: every goroutine gets the serial
// results. Run it with -race.
func TestConcurrentReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	m, err := New(5, 3, NearIdentity, rng)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.ScaleToRadius(0.9); err != nil {
		t.Fatal(err)
	}
	seqs := make([][]int, 40)
	for i := range seqs {
		seqs[i] = make([]int, 1+rng.IntN(30))
		for j := range seqs[i] {
			seqs[i][j] = rng.IntN(3)
		}
	}
	wantN, err := m.LogProbsN(seqs)
	if err != nil {
		t.Fatal(err)
	}
	wantA, _, err := m.LogAmplitudes(seqs)
	if err != nil {
		t.Fatal(err)
	}
	tr0, err := NewTransfer(m)
	if err != nil {
		t.Fatal(err)
	}
	bad := make([]string, 4)
	wantStar := make([]string, len(bad))
	for g := range bad {
		wantStar[g] = starText(tr0, seqs[g])
	}
	var wg sync.WaitGroup
	for g := range bad {
		wg.Go(func() {
			n, err1 := m.LogProbsN(seqs)
			a, _, err2 := m.LogAmplitudesParallel(seqs)
			tr, err3 := NewTransfer(m)
			if err1 != nil || err2 != nil || err3 != nil {
				bad[g] = fmt.Sprint(err1, err2, err3)
				return
			}
			if s := starText(tr, seqs[g]); s != wantStar[g] {
				bad[g] = "LogProbStar " + s + ", serial " + wantStar[g]
			}
			for i := range seqs {
				if math.Float64bits(n[i]) != math.Float64bits(wantN[i]) || math.Abs(a[i]-wantA[i]) > evalTol*math.Max(1, math.Abs(wantA[i])) {
					bad[g] = fmt.Sprintf("string %d differs", i)
				}
			}
		})
	}
	wg.Wait()
	for g, b := range bad {
		if b != "" {
			t.Errorf("goroutine %d: %s", g, b)
		}
	}
}
