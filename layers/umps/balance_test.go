package umps

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/optim"
)

var _ optim.Batcher = (*LengthBalanced)(nil)

// stationaryTol bounds the gradient at a stationary point (rounding only).
const stationaryTol = 1e-12

// allStrings returns every binary string of length n that keep accepts.
func allStrings(n int, keep func([]int) bool) [][]int {
	var out [][]int
	for k := 0; k < 1<<n; k++ {
		s := make([]int, n)
		for i := range s {
			s[i] = k >> i & 1
		}
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// The claim behind LengthBalanced: on every u-MPS with A(0) = A(1) (the
// near-identity start among them) the NLL of parity data (Tomita 5: even
// numbers of 0s and of 1s) has an exactly zero gradient, core and
// boundaries alike, while data with one non-uniform marginal does not.
func TestParityStationary(t *testing.T) {
	parity := func(s []int) bool {
		z := 0
		for _, c := range s {
			z += 1 - c
		}
		return z%2 == 0 && (len(s)-z)%2 == 0
	}
	startsWith0 := func(s []int) bool { return s[0] == 0 }
	const D = 3
	for _, tc := range []struct {
		name     string
		identity bool
		keep     func([]int) bool
		zero     bool
	}{
		{"identity, parity", true, parity, true},
		{"random M, parity", false, parity, true},
		{"random M, first symbol 0", false, startsWith0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewParams(D, 2, RandomNormal, rand.New(rand.NewPCG(5, 6)))
			if err != nil {
				t.Fatal(err)
			}
			A := p.Data(ParamA)
			for i := 0; i < D; i++ {
				for j := 0; j < D; j++ {
					if tc.identity {
						A[(i*2)*D+j] = 0
						if i == j {
							A[(i*2)*D+j] = 1
						}
					}
					A[(i*2+1)*D+j] = A[(i*2)*D+j] // A(1) = A(0)
				}
			}
			data := append(allStrings(2, tc.keep), allStrings(4, tc.keep)...)
			n, err := NewNLL(p, len(data), 4, PerLength)
			if err != nil {
				t.Fatal(err)
			}
			g := p.Like()
			if _, err := n.Run(data, g); err != nil {
				t.Fatal(err)
			}
			biggest := 0.0
			for _, name := range []string{ParamA, ParamAlpha, ParamOmega} {
				for _, v := range g.Data(name) {
					biggest = math.Max(biggest, math.Abs(v))
				}
			}
			t.Logf("largest gradient entry %.3g", biggest)
			if tc.zero && biggest > stationaryTol {
				t.Errorf("largest gradient entry %.3g, want 0", biggest)
			}
			if !tc.zero && biggest < 1e-3 {
				t.Errorf("largest gradient entry %.3g, want clearly non-zero", biggest)
			}
		})
	}
}

// Balanced batches hold each length equally often, cover every string of
// a rare length, stay in range, and are refused under P_*.
func TestLengthBalancedBatches(t *testing.T) {
	var train [][]int
	train = append(train, []int{0, 0}, []int{1, 1})
	for i := 0; i < 98; i++ {
		train = append(train, []int{i % 2, 0, 1, i / 2 % 2})
	}
	p, err := NewParams(2, 2, NearIdentity, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	pr, err := NewProblem(p, train, nil, PerLength)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := pr.Balanced()
	if err != nil {
		t.Fatal(err)
	}
	count := map[int]int{}
	seen := map[int]bool{}
	total := 0
	for _, b := range lb.Batches(rand.New(rand.NewPCG(3, 4)), 16) {
		if len(b) > 16 {
			t.Errorf("batch of %d, want <= 16", len(b))
		}
		for _, i := range b {
			count[len(train[i])]++
			seen[i] = true
			total++
		}
	}
	if count[2] != 50 || count[4] != 50 || total != 100 {
		t.Errorf("per-length counts %v (total %d), want 50 each", count, total)
	}
	if !seen[0] || !seen[1] {
		t.Error("a string of the rare length never drawn")
	}
	star, err := NewProblem(p, train, nil, AllLengths)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := star.Balanced(); err == nil {
		t.Error("length-balanced batches accepted under P_*")
	}
}
