package par

import (
	"runtime"
	"testing"
)

// mark records which block covered each row.
type mark struct{ seen []int }

func (m *mark) Rows(lo, hi int) {
	for i := lo; i < hi; i++ {
		m.seen[i]++
	}
}

// TestRowsCoversEachRowOnce: at any GOMAXPROCS, with or without a cut,
// every row is done exactly once.
func TestRowsCoversEachRowOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 3, 5} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, 7, 64, 1000} {
			for _, cost := range []int{1, MinWork} {
				m := &mark{seen: make([]int, n)}
				Rows(m, n, cost)
				for i, c := range m.seen {
					if c != 1 {
						t.Fatalf("GOMAXPROCS %d, %d rows, cost %d: row %d done %d times", procs, n, cost, i, c)
					}
				}
			}
		}
	}
}

// TestRowsAllocatesNothing: a call hands its blocks over without
// allocating once the workers and a reply channel exist.
func TestRowsAllocatesNothing(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(3)
	m := &mark{seen: make([]int, 300)}
	Rows(m, 300, MinWork)
	if a := testing.AllocsPerRun(100, func() { Rows(m, 300, MinWork) }); a != 0 {
		t.Fatalf("%v allocations per call", a)
	}
}
