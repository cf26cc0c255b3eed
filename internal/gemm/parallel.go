package gemm

import (
	"runtime"
	"sync"
)

// parallelFlops is the smallest product, in multiply-adds, that Gemm cuts
// over several goroutines: about 50 microseconds of one core's work,
// against a few microseconds to hand a block to a worker and wait.
const parallelFlops = 1 << 21

// split is the number of blocks Gemm cuts an m x n x k product into: 1
// below parallelFlops, else GOMAXPROCS, at most one block per panel of
// the dimension cut (see cut).
func split[F Float](m, n, k int) int {
	procs := runtime.GOMAXPROCS(0)
	if procs < 2 || m*n*k < parallelFlops {
		return 1
	}
	_, panels, _ := cut[F](m, n)
	return min(procs, panels)
}

// cut chooses the dimension of c to cut: its columns (byCols) when c is at
// least as wide as it is tall, so that each block packs its own panels of
// op(a), the smaller matrix; its rows otherwise. panels is the number of
// panels of that dimension, of unit rows or columns (the kernel's block).
func cut[F Float](m, n int) (byCols bool, panels, unit int) {
	if n >= m {
		nr := gemmNR[F]()
		return true, (n + nr - 1) / nr, nr
	}
	return false, (m + gemmMR - 1) / gemmMR, gemmMR
}

// parallel computes the product in parts blocks, parts - 1 of them on the
// workers and one on the calling goroutine, and returns when all are done.
// Blocks are whole panels; the last takes the remainder.
func parallel[F Float](parts int, transA bool, m, n, k int, alpha F, a []F, lda int, src bSource[F], beta F, c []F, ldc int) {
	byCols, panels, unit := cut[F](m, n)
	done := getReply()
	defer putReply(done)
	start := 0
	for p := range parts {
		end := min((panels*(p+1)/parts)*unit, n)
		if !byCols {
			end = min((panels*(p+1)/parts)*unit, m)
		}
		t := task[F]{transA: transA, m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, src: src, beta: beta, c: c, ldc: ldc, done: done}
		if byCols {
			t.n = end - start
			t.c = c[start:]
			t.src = src.cols(start)
		} else {
			t.m = end - start
			t.c = c[start*ldc:]
			if transA {
				t.a = a[start:]
			} else {
				t.a = a[start*lda:]
			}
		}
		start = end
		if p == parts-1 {
			t.run()
			break
		}
		tasks[F]() <- t
	}
	for range parts - 1 {
		<-done
	}
}

// task is one block of a product, for a worker.
type task[F Float] struct {
	transA      bool
	m, n, k     int
	alpha, beta F
	a, c        []F
	lda, ldc    int
	src         bSource[F]
	done        chan struct{} // receives one value when the block is done
}

func (t task[F]) run() {
	serial(t.transA, t.m, t.n, t.k, t.alpha, t.a, t.lda, t.src, t.beta, t.c, t.ldc)
}

// The workers: goroutines started as GOMAXPROCS first calls for them, each
// taking blocks from tasks64 or tasks32 for the life of the process.
var (
	tasks64 = make(chan task[float64])
	tasks32 = make(chan task[float32])
	workers struct {
		sync.Mutex
		n64, n32 int
	}
)

// tasks is the channel of F's blocks, with at least GOMAXPROCS - 1
// workers reading it.
func tasks[F Float]() chan task[F] {
	want := runtime.GOMAXPROCS(0) - 1
	workers.Lock()
	defer workers.Unlock()
	if is32[F]() {
		for ; workers.n32 < want; workers.n32++ {
			go work(tasks32)
		}
		return any(tasks32).(chan task[F])
	}
	for ; workers.n64 < want; workers.n64++ {
		go work(tasks64)
	}
	return any(tasks64).(chan task[F])
}

// work runs the blocks of ch.
func work[F Float](ch chan task[F]) {
	for t := range ch {
		t.run()
		t.done <- struct{}{}
	}
}

// replies keeps the done channels of finished products for the next ones,
// as gemmBufs keeps buffers.
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
