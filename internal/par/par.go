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

// Job is work cut into parts: Part(p, parts) does part p of parts. Its
// fields hold the arguments, so that handing it to a worker allocates
// nothing.
type Job interface {
	Part(p, parts int)
}

// Rower does the work of rows [lo, hi) of a batch; its fields hold the
// step's arguments.
type Rower interface {
	Rows(lo, hi int)
}

// Run does parts 1 to parts-1 of j on the workers and part 0 on the
// calling goroutine, and returns when all are done.
func Run(j Job, parts int) {
	if parts < 2 {
		j.Part(0, 1)
		return
	}
	run(task{j: j, parts: parts})
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
	run(task{r: r, n: n, parts: parts})
}

// task is part p of a Job, or rows p*n/parts to (p+1)*n/parts of a Rower.
type task struct {
	j        Job
	r        Rower
	n        int
	p, parts int
	done     chan struct{}
}

func (t task) do() {
	if t.j != nil {
		t.j.Part(t.p, t.parts)
		return
	}
	t.r.Rows(t.n*t.p/t.parts, t.n*(t.p+1)/t.parts)
}

// run hands parts 1 to t.parts-1 to the workers, does part 0 and waits.
func run(t task) {
	ch := tasks(t.parts - 1)
	t.done = getReply()
	for p := 1; p < t.parts; p++ {
		t.p = p
		ch <- t
	}
	t.p = 0
	t.do()
	for range t.parts - 1 {
		Recv(t.done)
	}
	putReply(t.done) // only once every worker has replied
}

// spinPolls is how many times Recv polls a channel before it blocks on it:
// about 300 microseconds. A goroutine blocked on a channel is woken through
// the operating system, which takes tens to hundreds of microseconds in a
// virtual machine, at each hand-over; a training step of a recurrent
// network hands work over a few times per time step, with shorter gaps.
const spinPolls = 1 << 15

// Recv receives a value from ch, polling it before it blocks, and letting
// other goroutines run on its processor every 64 polls: the hand-overs of
// a step come close together, and a polling goroutine takes the next one
// without being woken.
func Recv[T any](ch <-chan T) T {
	for i := range spinPolls {
		select {
		case v := <-ch:
			return v
		default:
		}
		if i%64 == 63 {
			runtime.Gosched()
		}
	}
	return <-ch
}

// The workers: goroutines started as calls need them, each taking parts
// from queue for the life of the process. One pool serves every caller
// (the products of package gemm and the rows of the kernels), so that a
// polling worker never holds a processor another pool's worker waits for.
var (
	queue   = make(chan task, 256)
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
			for {
				t := Recv(queue)
				t.do()
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
		return make(chan struct{}, 256)
	}
}

// putReply keeps r unless 16 are kept already.
func putReply(r chan struct{}) {
	select {
	case replies <- r:
	default:
	}
}
