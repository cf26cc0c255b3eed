package pcnn

import (
	"math/rand/v2"
	"testing"
)

// benchModel is a PCNN on a random sequence of T symbols.
func benchModel(b *testing.B, kind Kind, n, d, a, T int) (*Model, Sequence) {
	rng := rand.New(rand.NewPCG(1, 1))
	net, err := RandomNetwork(n, d, rng)
	if err != nil {
		b.Fatal(err)
	}
	m, _ := New(kind, Tanh, a, net)
	s := Sequence{X: make([]int, T)}
	for t := range s.X {
		s.X[t] = rng.IntN(a)
	}
	if err := m.Init(s, rng); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"W", "tau"} {
		p := m.P.Data(name)
		for i := range p {
			p[i] += 0.1 * rng.NormFloat64()
		}
	}
	return m, s
}

// BenchmarkPass compares a plain BPTT gradient pass (forward + backward)
// with the two Riemannian steps (the bar: at most 1.5 times the
// BPTT pass, at d = 3 and d = sqrt(2A)).
func BenchmarkPass(b *testing.B) {
	for _, c := range []struct {
		name    string
		n, d, a int
		T       int
	}{{"N32-d3-A67", 32, 3, 67, 5000}, {"N32-d12-A67", 32, 12, 67, 5000}, {"xor-N10-full-A6", 10, 10, 6, 100000}} {
		m, s := benchModel(b, PCNN, c.n, c.d, c.a, c.T)
		tr, _ := m.Forward(s, nil)
		grad, dir := m.P.Like(), m.P.Like()
		B := make([]float64, (len(s.X)+1)*c.n)
		b.Run(c.name+"/bptt", func(b *testing.B) {
			for range b.N {
				_, _ = m.Forward(s, tr)
				_ = m.Backward(s, tr, grad, B)
			}
		})
		b.Run(c.name+"/writing-qdh", func(b *testing.B) {
			for range b.N {
				_, _ = m.Forward(s, tr)
				_ = m.WritingDirection(s, tr, QDH, Damping{}, dir)
			}
		})
		for _, tm := range []TransitionMethod{RBPM, QDRBPM} {
			b.Run(c.name+"/transition-"+tm.String(), func(b *testing.B) {
				for range b.N {
					_, _ = m.Forward(s, tr)
					_ = m.Backward(s, tr, grad, B)
					_, _ = m.TransitionDirection(s, tr, B, grad, tm, Damping{}, dir)
				}
			})
		}
	}
}
