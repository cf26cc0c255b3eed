package gemm

import (
	"runtime"
	"sync"

	"github.com/rtnlab/rtn/internal/par"
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

// parallel computes the product in parts blocks, parts - 1 of them on
// the workers of package par and one on the calling goroutine, and
// returns when all are done. Blocks are whole panels; the last takes the
// remainder.
func parallel[F Float](parts int, transA bool, m, n, k int, alpha F, a []F, lda int, src bSource[F], beta F, c []F, ldc int) {
	pr := getProduct[F]()
	*pr = cutProduct[F]{transA: transA, m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, src: src, beta: beta, c: c, ldc: ldc}
	pr.byCols, pr.panels, pr.unit = cut[F](m, n)
	par.Run(pr, parts)
	*pr = cutProduct[F]{}
	putProduct(pr)
}

// cutProduct is a product cut into blocks of whole panels (par.Job).
type cutProduct[F Float] struct {
	transA       bool
	m, n, k      int
	alpha, beta  F
	a, c         []F
	lda, ldc     int
	src          bSource[F]
	byCols       bool
	panels, unit int
}

// Part computes block p of parts: its share of the panels of the
// dimension cut.
func (pr *cutProduct[F]) Part(p, parts int) {
	limit := pr.m
	if pr.byCols {
		limit = pr.n
	}
	start := min((pr.panels*p/parts)*pr.unit, limit)
	end := min((pr.panels*(p+1)/parts)*pr.unit, limit)
	if pr.byCols {
		serial(pr.transA, pr.m, end-start, pr.k, pr.alpha, pr.a, pr.lda, pr.src.cols(start), pr.beta, pr.c[start:], pr.ldc)
		return
	}
	var a []F
	if pr.transA {
		a = pr.a[start:]
	} else {
		a = pr.a[start*pr.lda:]
	}
	serial(pr.transA, end-start, pr.n, pr.k, pr.alpha, a, pr.lda, pr.src, pr.beta, pr.c[start*pr.ldc:], pr.ldc)
}

// The products being computed are kept for the next ones, so that a call
// allocates nothing.
var (
	products64 = sync.Pool{New: func() any { return new(cutProduct[float64]) }}
	products32 = sync.Pool{New: func() any { return new(cutProduct[float32]) }}
)

func getProduct[F Float]() *cutProduct[F] {
	if is32[F]() {
		return products32.Get().(*cutProduct[F])
	}
	return products64.Get().(*cutProduct[F])
}

func putProduct[F Float](pr *cutProduct[F]) {
	if is32[F]() {
		products32.Put(pr)
		return
	}
	products64.Put(pr)
}
