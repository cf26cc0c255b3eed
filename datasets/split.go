package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/pkg/errors"
)

// Shuffle returns a permutation of 0..n-1 drawn from rng (Fisher-Yates).
// A nil rng gives the identity permutation.
func Shuffle(rng *rand.Rand, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	if rng != nil {
		rng.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	}
	return p
}

// Split divides the indices 0..n-1 into train, validation and test sets.
// The held-out sizes are round(validFrac*n) and round(testFrac*n); the
// rest is training data, which must not be empty. The indices are chosen
// by Shuffle(rng, n) (validation first, then test, then train) and each
// set is returned in increasing order. With a nil rng nothing is shuffled:
// train is the first part, then validation, then test.
func Split(n int, validFrac, testFrac float64, rng *rand.Rand) (train, valid, test []int, err error) {
	if !(validFrac >= 0 && testFrac >= 0 && validFrac+testFrac < 1) {
		return nil, nil, nil, errors.Errorf("datasets: split fractions valid %g, test %g: want each >= 0 and a sum < 1", validFrac, testFrac)
	}
	nv := int(math.Round(validFrac * float64(n)))
	nt := int(math.Round(testFrac * float64(n)))
	if n-nv-nt < 1 {
		return nil, nil, nil, errors.Errorf("datasets: splitting %d items with fractions valid %g, test %g leaves no training data", n, validFrac, testFrac)
	}
	if rng == nil {
		p := Shuffle(nil, n)
		return p[:n-nv-nt], p[n-nv-nt : n-nt], p[n-nt:], nil
	}
	p := Shuffle(rng, n)
	valid, test, train = p[:nv], p[nv:nv+nt], p[nv+nt:]
	slices.Sort(valid)
	slices.Sort(test)
	slices.Sort(train)
	return train, valid, test, nil
}

// SplitExamples divides exs as Split(len(exs), validFrac, testFrac, rng)
// does. The returned slices are new; the examples themselves are shared.
func SplitExamples(exs []Example, validFrac, testFrac float64, rng *rand.Rand) (train, valid, test []Example, err error) {
	tr, va, te, err := Split(len(exs), validFrac, testFrac, rng)
	if err != nil {
		return nil, nil, nil, err
	}
	pick := func(idx []int) []Example {
		out := make([]Example, len(idx))
		for i, j := range idx {
			out[i] = exs[j]
		}
		return out
	}
	return pick(tr), pick(va), pick(te), nil
}

// ShuffledBatches cuts Shuffle(rng, n) into consecutive groups of
// batchSize indices (the last group may be smaller). Every index in
// [0, n) appears exactly once. It panics if batchSize < 1.
func ShuffledBatches(n, batchSize int, rng *rand.Rand) [][]int {
	if batchSize < 1 {
		panic(fmt.Sprintf("datasets: batch size %d, want >= 1", batchSize))
	}
	return cut(Shuffle(rng, n), batchSize)
}

// BucketBatches groups example indices into batches of similar length so
// that little padding is needed: indices are shuffled by rng, stably sorted
// by length (so ties are in random order), cut into consecutive groups of
// batchSize (the group holding the longest examples may be smaller), and
// the order of the groups is shuffled by rng. Every index in
// [0, len(lengths)) appears exactly once. With a nil rng nothing is
// shuffled: ties keep index order and groups come shortest first. It panics
// if batchSize < 1.
func BucketBatches(lengths []int, batchSize int, rng *rand.Rand) [][]int {
	if batchSize < 1 {
		panic(fmt.Sprintf("datasets: batch size %d, want >= 1", batchSize))
	}
	p := Shuffle(rng, len(lengths))
	slices.SortStableFunc(p, func(a, b int) int { return lengths[a] - lengths[b] })
	groups := cut(p, batchSize)
	if rng != nil {
		rng.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	}
	return groups
}

// cut splits p into consecutive groups of at most size elements.
func cut(p []int, size int) [][]int {
	groups := make([][]int, 0, (len(p)+size-1)/size)
	for s := 0; s < len(p); s += size {
		e := min(s+size, len(p))
		groups = append(groups, p[s:e:e])
	}
	return groups
}
