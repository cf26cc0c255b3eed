package pcnn

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/optim"
)

// benchModel is a PCNN on a random sequence of T symbols.
func benchModel(b *testing.B, kind Kind, n, d, a, T int) (*Model, datasets.Stream) {
	rng := rand.New(rand.NewPCG(1, 1))
	net, err := RandomNetwork(n, d, rng)
	if err != nil {
		b.Fatal(err)
	}
	m, _ := New(kind, activation.Tanh, a, net)
	s := datasets.Stream{X: make([]int, T)}
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

// cpuTime is the CPU time (user + system) of the process so far: on a
// shared machine it moves far less than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPass compares a plain BPTT gradient pass (forward + backward)
// with the two Riemannian steps (the bar: at most 1.5 times the
// BPTT pass, at d = 3 and d = sqrt(2A)). Every sub-benchmark also reports
// cpu-ns/op; sub-benchmark ratio runs the four in turn in each iteration
// and reports each one's CPU time over the BPTT pass's, the figure least
// sensitive to a loaded machine.
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
		bptt := func() {
			_, _ = m.Forward(s, tr)
			_ = m.Backward(s, tr, grad, B)
		}
		writing := func() {
			_, _ = m.Forward(s, tr)
			_ = m.WritingDirection(s, tr, QDH, Damping{}, dir)
		}
		transition := func(tm TransitionMethod) func() {
			return func() {
				bptt()
				_, _ = m.TransitionDirection(s, tr, B, grad, tm, Damping{}, dir)
			}
		}
		steps := []struct {
			name string
			fn   func()
		}{{"bptt", bptt}, {"writing-qdh", writing}, {"transition-rbpm", transition(RBPM)}, {"transition-qdrbpm", transition(QDRBPM)}}
		for _, st := range steps {
			b.Run(c.name+"/"+st.name, func(b *testing.B) {
				c0 := cpuTime()
				for range b.N {
					st.fn()
				}
				b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
			})
		}
		b.Run(c.name+"/ratio", func(b *testing.B) {
			spent := make([]time.Duration, len(steps))
			for range b.N {
				for k, st := range steps {
					c0 := cpuTime()
					st.fn()
					spent[k] += cpuTime() - c0
				}
			}
			for k, st := range steps[1:] {
				b.ReportMetric(float64(spent[k+1])/float64(spent[0]), st.name+"/bptt")
			}
		})
	}
}

// BenchmarkXORPass is one pass of the distant-XOR experiment (`rtn pcnn
// -task xor -units 10 -degree full`, 10,000 training lines, QDH+RBPM):
// what the Trainer does per epoch with optim.Riemann, a Loss then a step
// of the group due (its direction, the step, the loss at the new
// parameters, and again at half the rate while it is rejected); groups
// alternate, so ns/op is the mean of the two.
func BenchmarkXORPass(b *testing.B) {
	st, err := datasets.DistantXOR(datasets.XORConfig{}, rand.New(rand.NewPCG(1, 0x9c77)))
	if err != nil {
		b.Fatal(err)
	}
	s := st
	net, err := FullNetwork(10)
	if err != nil {
		b.Fatal(err)
	}
	m, _ := New(PCNN, activation.Tanh, len(st.Alphabet), net)
	if err := m.Init(s, rand.New(rand.NewPCG(1, 0x9c78))); err != nil {
		b.Fatal(err)
	}
	p, err := NewProblem(m, s, Method{Writing: QDH, Transition: RBPM})
	if err != nil {
		b.Fatal(err)
	}
	r, _ := optim.NewRiemann(optim.RiemannConfig{})
	grads := m.P.Like()
	b.ResetTimer()
	c0 := cpuTime()
	defer func() { b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op") }()
	for range b.N {
		// As the Trainer does: Riemann needs no gradient (GradientFree),
		// so only the loss is evaluated before the step.
		loss, err := p.Loss(nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.StepProblem(p, nil, loss, grads); err != nil {
			b.Fatal(err)
		}
	}
}
