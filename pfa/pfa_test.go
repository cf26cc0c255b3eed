package pfa

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomStrings draws n strings from m.
func randomStrings(t *testing.T, m *Model, n int, rng *rand.Rand) [][]int {
	t.Helper()
	p := m.Probs()
	out := make([][]int, n)
	for i := range out {
		x, err := p.Sample(rng, 1000)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = x
	}
	return out
}

// pathProb is P(x) by summing over every path: the definition, with no
// scaling and no recursion shared with the kernel.
func pathProb(p *Probs, x []int) float64 {
	n := p.N
	var rec func(t, q int) float64
	rec = func(t, q int) float64 {
		if t == len(x) {
			return p.Stop[q]
		}
		s := 0.0
		for j := 0; j < n; j++ {
			s += p.M[x[t]*n*n+q*n+j] * rec(t+1, j)
		}
		return s
	}
	total := 0.0
	for q := 0; q < n; q++ {
		total += p.Init[q] * rec(0, q)
	}
	return total
}

// prefixMass is the probability that a string starts with x.
func prefixMass(p *Probs, x []int) float64 {
	n := p.N
	state := append([]float64(nil), p.Init...)
	for _, a := range x {
		next := make([]float64, n)
		for q, v := range state {
			for j := 0; j < n; j++ {
				next[j] += v * p.M[a*n*n+q*n+j]
			}
		}
		state = next
	}
	s := 0.0
	for _, v := range state {
		s += v
	}
	return s
}

// allStrings lists every string of length L over d symbols.
func allStrings(d, L int) [][]int {
	out := [][]int{{}}
	for l := 0; l < L; l++ {
		var next [][]int
		for _, x := range out {
			for a := 0; a < d; a++ {
				next = append(next, append(append([]int(nil), x...), a))
			}
		}
		out = next
	}
	return out
}

const (
	probTol = 1e-12 // relative error of the scaled forward pass against path sums
	massTol = 1e-12 // sum of all string probabilities plus the tail against 1
)

func TestNormalisedAndExact(t *testing.T) {
	for _, kind := range []Kind{KindPFA, KindHMM} {
		t.Run(string(kind), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 1))
			m := Random(kind, 3, 2, rng)
			p := m.Probs()
			const L = 7
			total := 0.0
			for l := 0; l <= L; l++ {
				for _, x := range allStrings(2, l) {
					want := pathProb(p, x)
					got := math.Exp(m.LogProb(x))
					if math.Abs(got-want) > probTol*want {
						t.Fatalf("P(%v) = %g, path sum %g", x, got, want)
					}
					total += got
				}
			}
			for _, x := range allStrings(2, L+1) {
				total += prefixMass(p, x)
			}
			if math.Abs(total-1) > massTol {
				t.Fatalf("probabilities up to length %d plus the tail sum to %.15g, want 1", L, total)
			}
		})
	}
}

const (
	fdStep = 1e-6 // central difference step on one logit
	fdTol  = 1e-6 // absolute gradient error allowed
)

func TestGradientFiniteDifference(t *testing.T) {
	for _, kind := range []Kind{KindPFA, KindHMM} {
		t.Run(string(kind), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			target := Random(kind, 4, 3, rng)
			seqs := randomStrings(t, target, 40, rng)
			p, err := NewProblem(Random(kind, 3, 3, rng), seqs, seqs[:5], 2)
			if err != nil {
				t.Fatal(err)
			}
			grads := p.Params().Like()
			batch := []int{0, 2, 3, 5, 7}
			if _, err := p.LossGrad(batch, grads); err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, name := range p.Params().Names() {
				data, g := p.Params().Data(name), grads.Data(name)
				for i := range data {
					v := data[i]
					data[i] = v + fdStep
					up, _ := p.Loss(batch)
					data[i] = v - fdStep
					down, _ := p.Loss(batch)
					data[i] = v
					fd := (up - down) / (2 * fdStep)
					if math.Abs(fd-g[i]) > fdTol {
						t.Fatalf("%s[%d]: gradient %g, finite difference %g", name, i, g[i], fd)
					}
					checked++
				}
			}
			if checked != p.m.NumParams() || checked == 0 {
				t.Fatalf("checked %d logits, want %d", checked, p.m.NumParams())
			}
		})
	}
}

func TestJobsSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	target := Random(KindPFA, 5, 3, rng)
	seqs := randomStrings(t, target, 300, rng)
	train, valid := seqs[:250], seqs[250:]
	start := Random(KindPFA, 4, 3, rng)
	for _, accel := range []string{EMPlain, EMSquarem} {
		t.Run(accel, func(t *testing.T) {
			var first *Model
			for _, jobs := range []int{1, 2, 3} {
				cfg := TrainConfig{Epochs: 3, BatchSize: 32, Jobs: jobs}
				m, _, err := Train(start, train, valid, cfg)
				if err != nil {
					t.Fatal(err)
				}
				e, _, err := EM(m, train, valid, TrainConfig{Epochs: 9, Jobs: jobs, EMAccel: accel})
				if err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = e
					continue
				}
				for i, v := range e.Row {
					if math.Float64bits(v) != math.Float64bits(first.Row[i]) {
						t.Fatalf("jobs %d: logit %d is %v, with 1 job %v", jobs, i, v, first.Row[i])
					}
				}
			}
		})
	}
}

func TestTrainingImprovesLikelihood(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	target := Random(KindHMM, 4, 3, rng)
	seqs := randomStrings(t, target, 2000, rng)
	train, valid := seqs[:1600], seqs[1600:]
	start := Random(KindHMM, 4, 3, rng)
	for _, tc := range []struct {
		name string
		fit  func(*Model, [][]int, [][]int, TrainConfig) (*Model, *Report, error)
	}{{"gradient", Train}, {"em", EM}} {
		t.Run(tc.name, func(t *testing.T) {
			m, rep, err := tc.fit(start, train, valid, TrainConfig{Epochs: 30})
			if err != nil {
				t.Fatal(err)
			}
			if !(rep.BestValid < rep.StartValid) || m.Validate() != nil {
				t.Fatalf("validation loss %g from %g: no improvement", rep.BestValid, rep.StartValid)
			}
			truth := startLoss(target, valid, nil, 1)
			if rep.BestValid > truth+0.05 {
				t.Fatalf("validation loss %g, target machine's %g: training did not get near", rep.BestValid, truth)
			}
		})
	}
}

func TestEMNeverLowersTrainingLikelihood(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	target := Random(KindPFA, 3, 2, rng)
	seqs := randomStrings(t, target, 500, rng)
	m := Random(KindPFA, 3, 2, rng)
	prev := math.Inf(1)
	for it := 0; it < 10; it++ {
		p, err := NewProblem(m, seqs, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		l, _ := p.Loss(nil)
		if l > prev+1e-12 {
			t.Fatalf("iteration %d: training loss rose from %g to %g", it, prev, l)
		}
		prev = l
		m, _, err = EM(m, seqs, seqs, TrainConfig{Epochs: 1})
		if err != nil {
			t.Fatal(err)
		}
	}
}
