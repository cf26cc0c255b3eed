package autoenc

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// TestConcurrentApproxSVD runs the approximate SVD, which splits its work
// among goroutines, on one core, on all cores, and from several
// goroutines at once: every run gives the same bits. Run it with -race.
func TestConcurrentApproxSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 5))
	seqs := randomSeqs(rng, 5, 12, 10, 11, 9, 12, 8, 10, 7, 3, 12)
	sparsify(rng, seqs, 5)
	const p = 8
	prev := runtime.GOMAXPROCS(1)
	want, wantS, err := ApproxSVD(seqs, 5, p)
	runtime.GOMAXPROCS(max(prev, 4))
	defer runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]string, 3)
	for g := range errs {
		wg.Go(func() {
			v, s, err := ApproxSVD(seqs, 5, p)
			switch {
			case err != nil:
				errs[g] = err.Error()
			case !sameBits(v.RawMatrix().Data, want.RawMatrix().Data) || !sameBits(s, wantS):
				errs[g] = "differs from the one-core run"
			}
		})
	}
	wg.Wait()
	for g, e := range errs {
		if e != "" {
			t.Errorf("goroutine %d: %s", g, e)
		}
	}
}

// TestInPartsForEach checks the two work-splitting helpers: every index
// is visited once, and part-wise sums added in order do not depend on the
// number of cores.
func TestInPartsForEach(t *testing.T) {
	const n = 1001
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 1 / float64(i+1)
	}
	sum := func(procs int) float64 {
		prev := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
		parts := make([]float64, 7)
		inParts(n, len(parts), func(i, lo, hi int) {
			for _, x := range xs[lo:hi] {
				parts[i] += x
			}
		})
		s := 0.0
		for _, v := range parts {
			s += v
		}
		return s
	}
	if a, b := sum(1), sum(4); math.Float64bits(a) != math.Float64bits(b) {
		t.Errorf("inParts: %v on one core, %v on four", a, b)
	}
	seen := make([]int, n)
	forEach(n, func(i int) { seen[i]++ })
	for i, c := range seen {
		if c != 1 {
			t.Fatalf("forEach visited %d %d times", i, c)
		}
	}
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
