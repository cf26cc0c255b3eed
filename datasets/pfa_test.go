package datasets

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

const (
	// exactTol bounds the difference of two exact computations of the same
	// sum in different orders (a few thousand terms of size ~1).
	exactTol = 1e-12
	// empiricalTol bounds |empirical - exact| for the per-symbol loss of
	// one 200,000-symbol sample; its standard error is below 0.005 for
	// the default automata (per-symbol loss variance < 1, mixing within a
	// few steps).
	empiricalTol = 0.02
	// enumTol bounds the distance of the conditional block entropy at
	// length 12 from the entropy rate for the toggle automaton, whose
	// state chain has second eigenvalue -0.1 (0.1^11 ~ 1e-11).
	enumTol = 1e-9
)

// toggle is a 2-state, 2-symbol PDFA that needs memory of the parity of
// the number of b's: symbol b flips the state, a keeps it.
func toggle() *PDFA {
	return &PDFA{
		Emit: [][]float64{{0.7, 0.3}, {0.2, 0.8}},
		Next: [][]int{{0, 1}, {1, 0}},
	}
}

func TestPFATaskOptimalLoss(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		task, a, err := PFATask(PFAConfig{}, rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		if err := task.Validate(); err != nil {
			t.Fatal(err)
		}
		if err := a.Validate(); err != nil {
			t.Fatal(err)
		}
		// Walk the automaton along every validation target and check
		// that the inputs are the BOS-shifted targets.
		v := a.NumSymbols()
		sum, n := 0.0, 0
		for i, ex := range task.Valid {
			q := a.Start
			for s := range ex.T {
				c := int(ex.Y[s])
				prev := v // BOS
				if s > 0 {
					prev = int(ex.Y[s-1])
				}
				if ex.X[s*task.In+prev] != 1 {
					t.Fatalf("valid example %d step %d: input is not onehot(%d)", i, s, prev)
				}
				sum -= math.Log(a.Emit[q][c])
				q = a.Next[q][c]
				n++
			}
		}
		brute := sum / float64(n)
		if math.Abs(brute-task.OptimalLoss) > exactTol {
			t.Fatalf("seed %d: OptimalLoss = %.15g, brute force %.15g", seed, task.OptimalLoss, brute)
		}
		uni := unigramLoss(Classes(task.Train), Classes(task.Valid), v)
		h, err := a.EntropyRate()
		if err != nil {
			t.Fatal(err)
		}
		logV := math.Log(float64(v))
		t.Logf("seed %d: optimal %.3f, entropy rate %.3f, unigram %.3f, uniform log V %.3f nats/symbol", seed, task.OptimalLoss, h, uni, logV)
		// The defaults must leave room both to learn and to need memory:
		// 0.1 nats is a clearly visible gap on 128 x 30 symbols.
		if !(task.OptimalLoss < uni-0.1 && uni < logV) {
			t.Errorf("seed %d: want optimal < unigram - 0.1 < log V", seed)
		}
	}
}

// unigramLoss fits symbol frequencies on train (add-1/2 smoothing) and
// returns their mean NLL per symbol on eval in nats.
func unigramLoss(train, eval [][]int, v int) float64 {
	counts := make([]float64, v)
	total := 0.0
	for _, s := range train {
		for _, c := range s {
			counts[c]++
			total++
		}
	}
	sum, n := 0.0, 0
	for _, s := range eval {
		for _, c := range s {
			sum -= math.Log((counts[c] + 0.5) / (total + 0.5*float64(v)))
			n++
		}
	}
	return sum / float64(n)
}

func TestPFATaskDeterministic(t *testing.T) {
	cfg := PFAConfig{States: 5, Symbols: 3, Train: 20, Valid: 5, Test: 5}
	t1, a1, err1 := PFATask(cfg, rand.New(rand.NewPCG(7, 8)))
	t2, a2, err2 := PFATask(cfg, rand.New(rand.NewPCG(7, 8)))
	t3, _, err3 := PFATask(cfg, rand.New(rand.NewPCG(7, 9)))
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatal(err1, err2, err3)
	}
	if !reflect.DeepEqual(t1, t2) || !reflect.DeepEqual(a1, a2) {
		t.Fatal("same seed, different task")
	}
	if reflect.DeepEqual(t1.Train, t3.Train) {
		t.Fatal("different seeds, same task")
	}
	if len(t1.Train) != 20 || len(t1.Valid) != 5 || t1.In != 4 || t1.Out != 3 || t1.Name != "pfa" {
		t.Fatalf("task header %+v", t1)
	}
}

func TestPFAConfigErrors(t *testing.T) {
	for _, cfg := range []PFAConfig{
		{MinLen: 10, MaxLen: 5},
		{States: -1},
		{Concentration: -1},
		{Smoothing: 2},
	} {
		if _, _, err := PFATask(cfg, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("PFATask(%+v) accepted a bad config", cfg)
		}
	}
	task, _, err := PFATask(PFAConfig{Valid: -1, Test: -1, Train: 3}, rand.New(rand.NewPCG(1, 1)))
	if err != nil || len(task.Valid) != 0 || !math.IsNaN(task.OptimalLoss) {
		t.Fatalf("PFATask with no validation set = %v, %v", task, err)
	}
}

func TestEntropyRateEmpirical(t *testing.T) {
	const n = 200000
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		a, err := RandomPDFA(4, 4, 0.3, 0.05, rng)
		if err != nil {
			t.Fatal(err)
		}
		h, err := a.EntropyRate()
		if err != nil {
			t.Fatal(err)
		}
		lp, err := a.LogProb(a.Sample(rng, n))
		if err != nil {
			t.Fatal(err)
		}
		if emp := -lp / n; math.Abs(emp-h) > empiricalTol {
			t.Fatalf("seed %d: entropy rate %.4f, empirical %.4f", seed, h, emp)
		}
	}
}

func TestEntropyRateEnumeration(t *testing.T) {
	a := toggle()
	pi, err := a.Stationary()
	if err != nil {
		t.Fatal(err)
	}
	// Balance: pi0 * 0.3 = pi1 * 0.8.
	if want := []float64{8.0 / 11, 3.0 / 11}; math.Abs(pi[0]-want[0]) > exactTol || math.Abs(pi[1]-want[1]) > exactTol {
		t.Fatalf("Stationary = %v, want %v", pi, want)
	}
	h, err := a.EntropyRate()
	if err != nil {
		t.Fatal(err)
	}
	// H(X_n | X_<n) = H(X_1..X_n) - H(X_1..X_n-1), by enumerating every
	// sequence and walking the automaton by hand.
	const n = 12
	cond := blockEntropy(a, n) - blockEntropy(a, n-1)
	if math.Abs(cond-h) > enumTol {
		t.Fatalf("entropy rate %.12f, enumerated conditional entropy %.12f", h, cond)
	}
}

// blockEntropy is H(X_1..X_n) in nats from the start state, by enumeration.
func blockEntropy(a *PDFA, n int) float64 {
	v := a.NumSymbols()
	total := 1
	for range n {
		total *= v
	}
	h := 0.0
	seq := make([]int, n)
	for code := range total {
		c := code
		for i := range seq {
			seq[i] = c % v
			c /= v
		}
		p, q := 1.0, a.Start
		for _, s := range seq {
			p *= a.Emit[q][s]
			q = a.Next[q][s]
		}
		if p > 0 {
			h -= p * math.Log(p)
		}
	}
	return h
}

func TestStationaryReducible(t *testing.T) {
	half := []float64{0.5, 0.5}
	two := &PDFA{Emit: [][]float64{half, half, half}, Next: [][]int{{1, 2}, {1, 1}, {2, 2}}}
	if _, err := two.Stationary(); err == nil {
		t.Fatal("Stationary accepted two closed classes")
	}
	// Transient start state, one closed class, one unreachable state.
	one := &PDFA{Emit: [][]float64{half, half, half}, Next: [][]int{{1, 1}, {1, 1}, {0, 2}}}
	pi, err := one.Stationary()
	if err != nil || !reflect.DeepEqual(pi, []float64{0, 1, 0}) {
		t.Fatalf("Stationary = %v, %v; want [0 1 0]", pi, err)
	}
}

func TestPDFAValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*PDFA)
	}{
		{"row sum", func(a *PDFA) { a.Emit[0][0] = 0.5 }},
		{"negative", func(a *PDFA) { a.Emit[1] = []float64{1.2, -0.2} }},
		{"next range", func(a *PDFA) { a.Next[1][0] = 2 }},
		{"start range", func(a *PDFA) { a.Start = -1 }},
		{"ragged", func(a *PDFA) { a.Next[0] = []int{0} }},
		{"alphabet", func(a *PDFA) { a.Alphabet = []string{"a"} }},
		{"no states", func(a *PDFA) { a.Emit, a.Next = nil, nil }},
	}
	if err := toggle().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := toggle()
			c.edit(a)
			if err := a.Validate(); err == nil {
				t.Fatal("Validate accepted a bad automaton")
			}
		})
	}
	if _, err := toggle().LogProb([]int{0, 2}); err == nil {
		t.Fatal("LogProb accepted symbol 2 of 2")
	}
}

func TestRandomPDFAConnected(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, size := range [][2]int{{1, 1}, {1, 3}, {2, 2}, {4, 4}, {10, 2}, {30, 5}} {
		for range 10 {
			a, err := RandomPDFA(size[0], size[1], 0.3, 0.05, rng)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Validate(); err != nil {
				t.Fatal(err)
			}
			pi, err := a.Stationary()
			if err != nil {
				t.Fatalf("%v: %v", size, err)
			}
			for q, p := range pi {
				if !(p > 0) {
					t.Fatalf("%v: state %d has stationary probability %g", size, q, p)
				}
			}
		}
	}
}
