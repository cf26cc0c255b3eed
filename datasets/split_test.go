package datasets

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// coversOnce reports whether the groups hold every index in [0, n) exactly once.
func coversOnce(groups [][]int, n int) bool {
	var all []int
	for _, g := range groups {
		all = append(all, g...)
	}
	slices.Sort(all)
	return reflect.DeepEqual(all, Shuffle(nil, n)) || (n == 0 && len(all) == 0)
}

func TestShuffle(t *testing.T) {
	a := Shuffle(rand.New(rand.NewPCG(5, 6)), 50)
	b := Shuffle(rand.New(rand.NewPCG(5, 6)), 50)
	c := Shuffle(rand.New(rand.NewPCG(5, 7)), 50)
	if !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) || !coversOnce([][]int{a}, 50) {
		t.Fatalf("Shuffle not a deterministic permutation: %v %v %v", a, b, c)
	}
	if !reflect.DeepEqual(Shuffle(nil, 4), []int{0, 1, 2, 3}) {
		t.Fatal("Shuffle(nil) is not the identity")
	}
}

func TestSplit(t *testing.T) {
	cases := []struct {
		n           int
		valid, test float64
		nv, nt      int
		ok          bool
		name        string
	}{
		{100, 0.1, 0.2, 10, 20, true, "plain"},
		{7, 0.25, 0.25, 2, 2, true, "rounding"},
		{10, 0, 0, 0, 0, true, "no holdout"},
		{3, 0.5, 0.5, 0, 0, false, "sum one"},
		{2, 0.4, 0.4, 0, 0, false, "no train"},
		{10, -0.1, 0, 0, 0, false, "negative"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, va, te, err := Split(c.n, c.valid, c.test, rand.New(rand.NewPCG(1, 1)))
			if (err == nil) != c.ok {
				t.Fatalf("Split err = %v, want ok = %v", err, c.ok)
			}
			if !c.ok {
				return
			}
			if len(va) != c.nv || len(te) != c.nt || !coversOnce([][]int{tr, va, te}, c.n) {
				t.Fatalf("Split = %v / %v / %v", tr, va, te)
			}
			tr2, va2, te2, _ := Split(c.n, c.valid, c.test, rand.New(rand.NewPCG(1, 1)))
			if !reflect.DeepEqual([][]int{tr, va, te}, [][]int{tr2, va2, te2}) {
				t.Fatal("Split is not deterministic")
			}
			for _, s := range [][]int{tr, va, te} {
				if !slices.IsSorted(s) {
					t.Fatalf("split part %v not sorted", s)
				}
			}
		})
	}
	tr, va, te, _ := Split(5, 0.2, 0.2, nil)
	if !reflect.DeepEqual([][]int{tr, va, te}, [][]int{{0, 1, 2}, {3}, {4}}) {
		t.Fatalf("Split(nil rng) = %v %v %v", tr, va, te)
	}
}

func TestBucketBatches(t *testing.T) {
	lrng := rand.New(rand.NewPCG(9, 9))
	lengths := make([]int, 103)
	for i := range lengths {
		lengths[i] = 1 + lrng.IntN(30)
	}
	for _, bs := range []int{1, 8, 32, 200} {
		g1 := BucketBatches(lengths, bs, rand.New(rand.NewPCG(2, 3)))
		g2 := BucketBatches(lengths, bs, rand.New(rand.NewPCG(2, 3)))
		if !reflect.DeepEqual(g1, g2) {
			t.Fatalf("batch size %d: not deterministic", bs)
		}
		if !coversOnce(g1, len(lengths)) || len(g1) != (len(lengths)+bs-1)/bs {
			t.Fatalf("batch size %d: %d groups do not cover every index once", bs, len(g1))
		}
		// Buckets do not overlap in length: sorting groups by their
		// shortest member gives non-decreasing lengths throughout.
		sorted := slices.Clone(g1)
		slices.SortFunc(sorted, func(a, b []int) int { return minLen(lengths, a) - minLen(lengths, b) })
		prev := 0
		for _, g := range sorted {
			if len(g) > bs {
				t.Fatalf("group of %d > batch size %d", len(g), bs)
			}
			if minLen(lengths, g) < prev {
				t.Fatalf("batch size %d: buckets overlap in length", bs)
			}
			prev = maxLen(lengths, g)
		}
	}
	if g := BucketBatches([]int{3, 1, 2, 1}, 2, nil); !reflect.DeepEqual(g, [][]int{{1, 3}, {2, 0}}) {
		t.Fatalf("BucketBatches(nil rng) = %v", g)
	}
	sb := ShuffledBatches(10, 3, rand.New(rand.NewPCG(1, 2)))
	if !coversOnce(sb, 10) || len(sb) != 4 || len(sb[3]) != 1 {
		t.Fatalf("ShuffledBatches = %v", sb)
	}
}

func minLen(lengths, g []int) int {
	m := lengths[g[0]]
	for _, i := range g {
		m = min(m, lengths[i])
	}
	return m
}

func maxLen(lengths, g []int) int {
	m := 0
	for _, i := range g {
		m = max(m, lengths[i])
	}
	return m
}
