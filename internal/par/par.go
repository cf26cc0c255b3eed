package par

import (
	"runtime"
	"sync"
)

// MinWork is the least work, in rows times the caller's cost per row, that
// Rows cuts: about 40 microseconds of one core at a cost of one per
// floating-point value touched, against a few microseconds to hand a block
// to a worker and wait.
const MinWork = 1 << 14

// Rower does the work of rows [lo, hi) of a batch. Its fields hold the
// step's arguments, so that handing it to a worker allocates nothing.
type Rower interface {
	Rows(lo, hi int)
}

// Rows runs r over rows [0, n), cut into as many contiguous blocks as
// GOMAXPROCS allows (one block when n*cost is below MinWork), one on the
// calling goroutine and the others on workers, and returns when all are
// done.
func Rows(r Rower, n, cost int) {
	parts := min(runtime.GOMAXPROCS(0), n)
	if parts < 2 || n*cost < MinWork {
		r.Rows(0, n)
		return
	}
	ch := tasks(parts - 1)
	done := getReply()
	defer putReply(done)
	for p := 1; p < parts; p++ {
		ch <- task{r: r, lo: n * p / parts, hi: n * (p + 1) / parts, done: done}
	}
	r.Rows(0, n/parts)
	for range parts - 1 {
		<-done
	}
}

// task is one block of rows, for a worker.
type task struct {
	r      Rower
	lo, hi int
	done   chan struct{}
}

// The workers: goroutines started as calls need them, each taking blocks
// from queue for the life of the process.
var (
	queue   = make(chan task)
	workers struct {
		sync.Mutex
		n int
	}
)

// tasks returns the queue, with at least want workers reading it.
func tasks(want int) chan task {
	workers.Lock()
	defer workers.Unlock()
	for ; workers.n < want; workers.n++ {
		go func() {
			for t := range queue {
				t.r.Rows(t.lo, t.hi)
				t.done <- struct{}{}
			}
		}()
	}
	return queue
}

// replies keeps the done channels of finished calls for the next ones.
var replies = make(chan chan struct{}, 16)

// getReply takes a kept done channel, or makes one big enough that no
// worker waits to report.
func getReply() chan struct{} {
	select {
	case r := <-replies:
		return r
	default:
		return make(chan struct{}, 64)
	}
}

// putReply keeps r unless 16 are kept already.
func putReply(r chan struct{}) {
	select {
	case replies <- r:
	default:
	}
}
