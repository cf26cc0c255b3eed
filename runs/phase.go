package runs

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// phaseFirst is how long a phase runs before its progress line appears,
// and phaseEvery the time between two redraws.
const (
	phaseFirst = 2 * time.Second
	phaseEvery = time.Second
)

// startPhase draws a progress line on w for a phase of work that reports
// no steps of its own (a spectral fit, a Hankel sweep, a sampling): label
// and the seconds elapsed, redrawn with '\r' every phaseEvery once the
// phase has run phaseFirst. The returned stop ends the line; it must be
// called before anything else is written to w. A nil w draws nothing.
func startPhase(w io.Writer, label string) (stop func()) {
	if w == nil {
		return func() {}
	}
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	drawn := false
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTimer(phaseFirst)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(w, "\r%s %.0fs", label, time.Since(start).Seconds())
				drawn = true
				t.Reset(phaseEvery)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		if drawn {
			fmt.Fprintf(w, "\r%s %.1fs (done)\n", label, time.Since(start).Seconds())
		}
	}
}
