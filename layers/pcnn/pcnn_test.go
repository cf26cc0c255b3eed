package pcnn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
)

// gradTol is the bar: native gradients equal central finite
// differences to 1e-7 relative.
const gradTol = 1e-7

// randomSeq draws T symbols of an alphabet of a, predicting about 2/3 of them.
func randomSeq(rng *rand.Rand, T, a int) datasets.Stream {
	s := datasets.Stream{X: make([]int, T), Mask: make([]bool, T)}
	for t := range s.X {
		s.X[t] = rng.IntN(a)
		s.Mask[t] = rng.IntN(3) > 0
	}
	return s
}

// randomModel builds a model with every parameter N(0, 0.5^2), so that no
// gradient entry is trivially zero.
func randomModel(t *testing.T, kind Kind, act activation.Activation, n, d, a int, rng *rand.Rand) *Model {
	t.Helper()
	net, err := RandomNetwork(n, d, rng)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(kind, act, a, net)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range m.P.Names() {
		if err := m.P.InitNormal(name, rng, 0.5); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func TestGradientsMatchFiniteDifferences(t *testing.T) {
	for _, kind := range []Kind{RNN, CNN, PCNN} {
		for _, act := range []activation.Activation{activation.Tanh, activation.Logistic} {
			for _, d := range []int{2, 4} {
				t.Run(kind.String()+"/"+act.String()+"/d"+string(rune('0'+d)), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(1, uint64(10*int(kind)+int(act)+d)))
					m := randomModel(t, kind, act, 4, d, 3, rng)
					s := randomSeq(rng, 12, 3)
					err := graph.CheckGradients(m.P,
						func() (float64, error) { return m.LogLik(s) },
						func(g *graph.Params) error {
							tr, err := m.Forward(s, nil)
							if err != nil {
								return err
							}
							return m.Backward(s, tr, g, nil)
						},
						graph.FDOptions{Step: 1e-5, Tol: gradTol})
					if err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// TestBackpropagatedValuesAreDerivativesOfV checks eq. (44): B_j^t is the
// derivative of the log-likelihood with respect to V_j^t. The terms after
// t are the log-likelihood of the suffix s[t:] started from V^t, so B^t
// must equal the finite-difference derivative of that suffix's
// log-likelihood with respect to its starting values.
func TestBackpropagatedValuesAreDerivativesOfV(t *testing.T) {
	for _, kind := range []Kind{RNN, CNN, PCNN} {
		t.Run(kind.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(2, uint64(kind)))
			const n, T, at = 3, 9, 4
			m := randomModel(t, kind, activation.Tanh, n, 2, 3, rng)
			s := randomSeq(rng, T, 3)
			tr, err := m.Forward(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			B := make([]float64, (T+1)*n)
			if err := m.Backward(s, tr, m.P.Like(), B); err != nil {
				t.Fatal(err)
			}
			suffix := datasets.Stream{X: s.X[at:], Mask: s.Mask[at:]}
			sm := m.Clone()
			v0 := sm.P.Data("V0")
			copy(v0, tr.V[at*n:(at+1)*n])
			const h = 1e-6
			for j := range n {
				x0 := v0[j]
				v0[j] = x0 + h
				fp, _ := sm.LogLik(suffix)
				v0[j] = x0 - h
				fm, _ := sm.LogLik(suffix)
				v0[j] = x0
				b := B[at*n+j]
				if num := (fp - fm) / (2 * h); math.Abs(num-b) > gradTol*math.Max(1, math.Abs(num)) {
					t.Errorf("B_%d^%d = %v, finite difference %v", j+1, at, b, num)
				}
			}
		})
	}
}

// TestInitIsIIDWithTrueFrequencies checks eq. (28): at startup only the
// bias writes, so pi_t = nu for every t and the log-likelihood is
// sum_t chi_t log nu_{x_t}.
func TestInitIsIIDWithTrueFrequencies(t *testing.T) {
	for _, kind := range []Kind{RNN, CNN, PCNN} {
		for _, act := range []activation.Activation{activation.Tanh, activation.Logistic} {
			t.Run(kind.String()+"/"+act.String(), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(3, 3))
				s := randomSeq(rng, 50, 4)
				m := randomModel(t, kind, act, 5, 3, 4, rng)
				if err := m.Init(s, rng); err != nil {
					t.Fatal(err)
				}
				count, n := make([]float64, 4), 0.0
				for t, x := range s.X {
					if s.Mask[t] {
						count[x]++
						n++
					}
				}
				var want float64
				for t, x := range s.X {
					if s.Mask[t] {
						want += math.Log(count[x] / n)
					}
				}
				got, err := m.LogLik(s)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got-want) > 1e-9*math.Abs(want) {
					t.Fatalf("initial log-likelihood %v, want %v", got, want)
				}
			})
		}
	}
}

// TestInitFixedPoint checks section 3.1 for tanh PCNNs: with the reading
// rates removed, a_j = beta_j/alpha is a fixed point (eq. 35) whose
// linearised rate is 1 - mu_j (eqs. 36, 38, 41).
func TestInitFixedPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	net, _ := RandomNetwork(4, 2, rng)
	m, _ := New(PCNN, activation.Tanh, 2, net)
	s := datasets.Stream{X: []int{0, 1, 0, 1}}
	if err := m.Init(s, rng); err != nil {
		t.Fatal(err)
	}
	for j := 1; j <= 4; j++ {
		mu := 1 / float64(j+1)
		beta := -math.Sqrt(0.5 * (0.5 - mu))
		vbar := m.P.Data("V0")[j-1]
		if math.Abs(math.Tanh(vbar)-beta/0.5) > 1e-12 {
			t.Errorf("unit %d: a^0 = %v, want beta/alpha = %v", j, math.Tanh(vbar), beta/0.5)
		}
		f := func(v float64) float64 { return v - 0.5*math.Tanh(v) + beta }
		if math.Abs(f(vbar)-vbar) > 1e-12 {
			t.Errorf("unit %d: V = %v is not a fixed point", j, vbar)
		}
		const h = 1e-6
		if rate := (f(vbar+h) - f(vbar-h)) / (2 * h); math.Abs(rate-(1-mu)) > 1e-8 {
			t.Errorf("unit %d: linear rate %v, want 1 - mu = %v", j, rate, 1-mu)
		}
	}
}

// TestReparametrizeIsExact: a tanh network and its logistic image give the
// same log-likelihood, and mapping back restores the parameters.
func TestReparametrizeIsExact(t *testing.T) {
	for _, kind := range []Kind{RNN, CNN, PCNN} {
		t.Run(kind.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(kind)))
			m := randomModel(t, kind, activation.Tanh, 4, 3, 3, rng)
			s := randomSeq(rng, 30, 3)
			l, err := m.Reparametrize(activation.Logistic)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := m.LogLik(s)
			b, _ := l.LogLik(s)
			if math.Abs(a-b) > 1e-12*math.Abs(a) {
				t.Fatalf("tanh %v, logistic %v", a, b)
			}
			back, _ := l.Reparametrize(activation.Tanh)
			for _, name := range m.P.Names() {
				x, y := m.P.Data(name), back.P.Data(name)
				for k := range x {
					if math.Abs(x[k]-y[k]) > 1e-12 {
						t.Fatalf("%s[%d]: %v after the round trip, was %v", name, k, y[k], x[k])
					}
				}
			}
		})
	}
}

func TestRandomNetwork(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	net, err := RandomNetwork(7, 3, rng)
	if err != nil {
		t.Fatal(err)
	}
	if err := net.validate(); err != nil {
		t.Fatal(err)
	}
	for j, in := range net.In {
		if len(in) != 4 {
			t.Errorf("unit %d has %d incoming entries, want 3 edges + bias", j+1, len(in))
		}
	}
	full, _ := FullNetwork(5)
	if full.Edges() != 5*6 {
		t.Errorf("full network has %d edges, want 30", full.Edges())
	}
	again, _ := RandomNetwork(7, 3, rand.New(rand.NewPCG(6, 6)))
	for j := range net.In {
		for k := range net.In[j] {
			if net.In[j][k] != again.In[j][k] {
				t.Fatal("same seed gave a different network")
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	if _, err := RandomNetwork(3, 4, rng); err == nil {
		t.Error("degree larger than the network accepted")
	}
	net, _ := RandomNetwork(3, 2, rng)
	m, _ := New(PCNN, activation.Tanh, 3, net)
	for name, s := range map[string]datasets.Stream{
		"short":    {X: []int{1}},
		"symbol":   {X: []int{0, 3}},
		"mask":     {X: []int{0, 1}, Mask: []bool{true}},
		"negative": {X: []int{0, -1}},
	} {
		if _, err := m.LogLik(s); err == nil {
			t.Errorf("%s: bad sequence accepted", name)
		}
	}
	if _, err := New(PCNN, activation.Tanh, 1, net); err == nil {
		t.Error("alphabet of 1 accepted")
	}
}
