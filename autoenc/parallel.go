package autoenc

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// inParts runs f(i, lo, hi) on the parts [lo, hi) of [0, n) split into
// the given number of equal parts, concurrently, and waits for them. The
// split does not depend on the number of cores, so sums made part by part
// and then added in order give the same bits on any machine.
func inParts(n, parts int, f func(i, lo, hi int)) {
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() { f(i, n*i/parts, n*(i+1)/parts) })
	}
	wg.Wait()
}

// forEach runs f(i) for i in [0, n) on GOMAXPROCS goroutines, each taking
// the next i in turn, and waits for them; f must only write where no
// other call does.
func forEach(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		})
	}
	wg.Wait()
}
