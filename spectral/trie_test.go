package spectral

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTrieSorted checks sorted against a comparison sort of every node's
// string, forwards and reversed, on random tries over small and large
// alphabets (table and map children), and that each string is capped so
// that appending to it leaves the others alone.
func TestTrieSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 60 {
		symbols := 1 + rng.IntN(4)
		if trial%3 == 0 {
			symbols = denseTrieSymbols + 1 + rng.IntN(5)
		}
		tr := newTrie(symbols)
		for range rng.IntN(30) {
			n := int32(0)
			for range rng.IntN(7) {
				n = tr.extend(n, rng.IntN(symbols))
			}
		}
		for _, reverse := range []bool{false, true} {
			var want [][]int
			for n := range tr.size() {
				w := []int{}
				for v := int32(n); v != 0; v = tr.parent[v] {
					w = append(w, int(tr.last[v]))
				}
				if !reverse {
					slices.Reverse(w)
				}
				want = append(want, w)
			}
			slices.SortFunc(want, func(x, y []int) int {
				if d := len(x) - len(y); d != 0 {
					return d
				}
				return slices.Compare(x, y)
			})
			got := tr.sorted(reverse)
			if len(got) != len(want) {
				t.Fatalf("trial %d reverse %v: %d strings, want %d", trial, reverse, len(got), len(want))
			}
			for i := range want {
				if got[i] == nil || !slices.Equal(got[i], want[i]) {
					t.Fatalf("trial %d reverse %v: string %d is %v, want %v", trial, reverse, i, got[i], want[i])
				}
			}
			for i := range got {
				_ = append(got[i], -1)
			}
			for i := range want {
				if !slices.Equal(got[i], want[i]) {
					t.Fatalf("trial %d reverse %v: appending to a string changed string %d", trial, reverse, i)
				}
			}
		}
	}
}
