package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPackPanels checks the panels packA and packB write (the assembly
// transposes and the Go loops around them) against op(a) and op(b) entry
// by entry: full and short panels, both layouts, term counts on and off
// the transposed blocks, alpha 1 and not, zero past the last row or
// column.
func TestPackPanels(t *testing.T) {
	needKernels(t)
	t.Run("float64", testPackPanels[float64])
	t.Run("float32", testPackPanels[float32])
}

func testPackPanels[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	nr := gemmNR[F]()
	const rows, cols = 40, 45 // the stored matrices, with room for offsets
	s := make([]F, rows*cols)
	for i := range s {
		s[i] = F(rng.NormFloat64())
	}
	for _, kc := range []int{1, 3, 4, 7, 8, 9, 16, 19, 33} {
		for _, trans := range []bool{false, true} {
			for _, width := range []int{gemmMR, 5, 1} {
				for _, alpha := range []F{1, -0.5} {
					name := fmt.Sprintf("A/kc%d/trans%v/rows%d/alpha%v", kc, trans, width, alpha)
					dst := make([]F, kc*gemmMR)
					i, p := 3, 2
					packA(dst, trans, alpha, s, cols, i, width, p, kc)
					for l := range kc {
						for r := range gemmMR {
							want := F(0)
							if r < width {
								want = alpha * opA(trans, s, cols, i+r, p+l)
							}
							if got := dst[l*gemmMR+r]; got != want {
								t.Fatalf("%s: term %d row %d is %v, want %v", name, l, r, got, want)
							}
						}
					}
				}
			}
			for _, width := range []int{nr, nr - 1, 1} {
				name := fmt.Sprintf("B/kc%d/trans%v/cols%d", kc, trans, width)
				dst := make([]F, kc*nr)
				j, p := 5, 1
				packB(dst, nr, trans, s, cols, p, kc, j, width)
				for l := range kc {
					for q := range nr {
						want := F(0)
						if q < width {
							want = opB(trans, s, cols, p+l, j+q)
						}
						if got := dst[l*nr+q]; got != want {
							t.Fatalf("%s: term %d column %d is %v, want %v", name, l, q, got, want)
						}
					}
				}
			}
		}
	}
}

// TestPackBlocks checks that packABlock and packBBlock write the panels
// packA and packB write one by one, with short last panels (cut by
// panelRows for op(a)), in both layouts.
func TestPackBlocks(t *testing.T) {
	needKernels(t)
	t.Run("float64", testPackBlocks[float64])
	t.Run("float32", testPackBlocks[float32])
}

func testPackBlocks[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	nr := gemmNR[F]()
	const rows, cols = 50, 60
	s := make([]F, rows*cols)
	for i := range s {
		s[i] = F(rng.NormFloat64())
	}
	same := func(name string, got, want []F) {
		t.Helper()
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: entry %d is %v, want %v", name, i, got[i], want[i])
			}
		}
	}
	for _, kc := range []int{5, 17} {
		for _, trans := range []bool{false, true} {
			for _, alpha := range []F{1, 2} {
				for _, mc := range []int{2*gemmMR + 3, 2*gemmMR + 2, 8, 7} {
					const i, p = 1, 3
					got, want := make([]F, 4*gemmMR*kc), make([]F, 4*gemmMR*kc)
					packABlock(got, trans, alpha, s, cols, i, mc, p, kc)
					for ir, slot := 0, 0; ir < mc; slot++ {
						rows := panelRows(mc - ir)
						packA(want[slot*gemmMR*kc:(slot+1)*gemmMR*kc], trans, alpha, s, cols, i+ir, rows, p, kc)
						ir += rows
					}
					same(fmt.Sprintf("A/kc%d/trans%v/alpha%v/mc%d", kc, trans, alpha, mc), got, want)
				}
			}
			j, p, nc := 2, 4, 2*nr+5
			got, want := make([]F, 3*nr*kc), make([]F, 3*nr*kc)
			packBBlock(got, nr, trans, s, cols, p, kc, j, nc)
			for jr := 0; jr < nc; jr += nr {
				packB(want[jr*kc:(jr+nr)*kc], nr, trans, s, cols, p, kc, j+jr, min(nr, nc-jr))
			}
			same(fmt.Sprintf("B/kc%d/trans%v", kc, trans), got, want)
		}
	}
}

// TestPanelRows checks that panelRows cuts every block into panels of 1
// to gemmMR rows that cover it exactly, the first leadRows rows in panels
// of gemmMR.
func TestPanelRows(t *testing.T) {
	for mc := 1; mc <= 40; mc++ {
		ir, cuts := 0, []int{}
		for ir < mc {
			rows := panelRows(mc - ir)
			if rows < 1 || rows > gemmMR {
				t.Fatalf("mc %d: panel of %d rows at %d", mc, rows, ir)
			}
			cuts = append(cuts, rows)
			ir += rows
		}
		if ir != mc {
			t.Fatalf("mc %d: panels %v cover %d rows", mc, cuts, ir)
		}
		lead := leadRows(mc)
		for k, at := 0, 0; at < lead; k++ {
			if cuts[k] != gemmMR {
				t.Fatalf("mc %d: panels %v, but %d leading rows", mc, cuts, lead)
			}
			at += cuts[k]
		}
	}
}
