package pfa

import (
	"math"
	"math/rand/v2"
	"testing"
)

// trieTol is the relative agreement asked of the trie's statistics with
// the per-string kernel's (the same sums in another order).
const trieTol = 1e-10

func closeRel(a, b float64) bool {
	return math.Abs(a-b) <= trieTol*max(1, math.Abs(a), math.Abs(b))
}

func TestTrieStatsMatchKernel(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind Kind
		// zero sets the probability of every move emitting symbol 1 to 0, so
		// that the strings holding it are impossible.
		zero bool
	}{{"pfa", KindPFA, false}, {"hmm", KindHMM, false}, {"pfa with impossible strings", KindPFA, true}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(12, 13))
			target := Random(tc.kind, 4, 3, rng)
			seqs := randomStrings(t, target, 400, rng)
			uniq, w := Compress(seqs)
			p := Random(tc.kind, 5, 3, rng).Probs()
			if tc.zero {
				clear(p.M[p.N*p.N : 2*p.N*p.N])
			}
			var ev Evaluator
			var want Stats
			ev.Stats(p, uniq, w, nil, true, &want)
			if tc.zero && !(want.Impossible > 0) {
				t.Fatal("no impossible string: the case tests nothing")
			}
			trie := NewTrie(uniq, w)
			for _, jobs := range []int{1, 3} {
				ev.Jobs = jobs
				var got Stats
				ev.TrieStats(p, trie, true, &got)
				for _, f := range []struct {
					name      string
					got, want float64
				}{{"loglik", got.LogLik, want.LogLik}, {"weight", got.Weight, want.Weight}, {"symbols", got.Symbols, want.Symbols}, {"impossible", got.Impossible, want.Impossible}} {
					if !closeRel(f.got, f.want) {
						t.Fatalf("jobs %d: %s %v, per-string kernel %v", jobs, f.name, f.got, f.want)
					}
				}
				for _, c := range []struct {
					name      string
					got, want []float64
				}{{"init", got.Init, want.Init}, {"stop", got.Stop, want.Stop}, {"moves", got.M, want.M}} {
					for i := range c.want {
						if !closeRel(c.got[i], c.want[i]) {
							t.Fatalf("jobs %d: %s count %d is %v, per-string kernel %v", jobs, c.name, i, c.got[i], c.want[i])
						}
					}
				}
				var noCounts Stats
				ev.TrieStats(p, trie, false, &noCounts)
				if noCounts.LogLik != got.LogLik || noCounts.Init != nil {
					t.Fatalf("jobs %d: without counts loglik %v (with %v), counts %v", jobs, noCounts.LogLik, got.LogLik, noCounts.Init)
				}
			}
		})
	}
}
