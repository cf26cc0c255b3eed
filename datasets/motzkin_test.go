package datasets

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// The counter gives the Motzkin numbers (OEIS A001006): the first ten
// agree with brute-force enumeration through the membership test, and all
// up to 60 satisfy (n+2) M_n = (2n+1) M_{n-1} + 3(n-1) M_{n-2} exactly.
func TestMotzkinCounts(t *testing.T) {
	want := []int64{1, 1, 2, 4, 9, 21, 51, 127, 323, 835}
	c := NewMotzkinCounter(60)
	for n, w := range want {
		if got := c.Count(n).Int64(); got != w {
			t.Errorf("M_%d = %d, want %d", n, got, w)
		}
		brute, total := 0, 1
		for i := 0; i < n; i++ {
			total *= 3
		}
		for code := 0; code < total; code++ {
			s := make([]int, n)
			for i, x := 0, code; i < n; i, x = i+1, x/3 {
				s[i] = x % 3
			}
			if MotzkinContains(s) {
				brute++
			}
		}
		if int64(brute) != w {
			t.Errorf("length %d: %d words by enumeration, want %d", n, brute, w)
		}
	}
	for n := 2; n <= 60; n++ {
		l := new(big.Int).Mul(big.NewInt(int64(n+2)), c.Count(n))
		r := new(big.Int).Mul(big.NewInt(int64(2*n+1)), c.Count(n-1))
		r.Add(r, new(big.Int).Mul(big.NewInt(int64(3*(n-1))), c.Count(n-2)))
		if l.Cmp(r) != 0 {
			t.Fatalf("recurrence fails at n = %d", n)
		}
	}
}

// Sampling is uniform over the 51 words of length 6 (chi-square, 100,000
// seeded draws, p > 0.001) and every draw is a word.
func TestMotzkinSampleUniform(t *testing.T) {
	const draws = 100000
	c := NewMotzkinCounter(6)
	rng := rand.New(rand.NewPCG(3, 3))
	counts := map[string]float64{}
	for i := 0; i < draws; i++ {
		s, err := c.Sample(6, rng)
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != 6 || !MotzkinContains(s) {
			t.Fatalf("drew %v", s)
		}
		counts[fmt.Sprint(s)]++
	}
	if len(counts) != 51 {
		t.Fatalf("%d distinct words, want 51", len(counts))
	}
	e := float64(draws) / 51
	stat := 0.0
	for _, n := range counts {
		stat += (n - e) * (n - e) / e
	}
	if p := (distuv.ChiSquared{K: 50}).Survival(stat); !(p > 0.001) {
		t.Errorf("chi-square p = %.3g", p)
	}
	if _, err := c.Sample(7, rng); err == nil {
		t.Error("length beyond the table accepted")
	}
	train, valid, err := MotzkinData(15, 100, 10, rand.New(rand.NewPCG(1, 1)))
	if err != nil || len(train) != 100 || len(valid) != 10 || len(train[0]) != 15 {
		t.Fatalf("MotzkinData: %v", err)
	}
}
