package rnn

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/params"
)

const (
	fdTol  = 1e-6 // relative FD tolerance; float64 central differences reach ~1e-9 here
	valTol = 1e-12
)

// cellLoss unrolls c over steps and returns a machine whose loss is a fixed
// random weighting of every output and of the final state, so every
// parameter, including the initial state, affects it.
func cellLoss(t *testing.T, c graph.Cell, p *params.Params, batch, steps int, carry bool, rng *rand.Rand) (*graph.Machine, *graph.Unrolled) {
	t.Helper()
	b := graph.NewBuilder()
	u, err := graph.Unroll(b, c, batch, steps, carry)
	if err != nil {
		t.Fatal(err)
	}
	var loss *G.Node
	add := func(n *G.Node) {
		r := b.Input("r", n.Shape()...)
		term := b.Sum(b.Hadamard(n, r))
		if loss == nil {
			loss = term
		} else {
			loss = b.Add(loss, term)
		}
		u.Inputs = append(u.Inputs, r) // bound with random values below
	}
	for _, o := range u.Outputs {
		add(o)
	}
	for _, s := range u.StateOut {
		add(s)
	}
	m, err := graph.Compile(b, loss, p)
	if err != nil {
		t.Fatal(err)
	}
	bind := append(append([]*G.Node(nil), u.Inputs...), u.StateIn...)
	for _, n := range bind {
		v := make([]float64, n.Shape().TotalSize())
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		if err := m.Let(n, v); err != nil {
			t.Fatal(err)
		}
	}
	return m, u
}

func randomize(p *params.Params, rng *rand.Rand) {
	for _, n := range p.Names() {
		_ = p.InitNormal(n, rng, 0.5)
	}
}

func TestCellGradients(t *testing.T) {
	cases := []struct {
		name string
		make func(p *params.Params) (graph.Cell, error)
	}{
		{"elman-tanh", func(p *params.Params) (graph.Cell, error) { return NewElman(p, "rnn", 3, 4, activation.Tanh) }},
		{"elman-symsigmoid", func(p *params.Params) (graph.Cell, error) { return NewElman(p, "rnn", 3, 4, activation.SymSigmoid) }},
		{"elman-identity", func(p *params.Params) (graph.Cell, error) { return NewElman(p, "rnn", 3, 4, activation.Identity) }},
		{"lstm", func(p *params.Params) (graph.Cell, error) { return NewLSTM(p, "lstm", 3, 4) }},
		{"gru", func(p *params.Params) (graph.Cell, error) { return NewGRU(p, "gru", 3, 4) }},
	}
	for _, tc := range cases {
		for _, carry := range []bool{false, true} {
			name := tc.name
			if carry {
				name += "-carry"
			}
			t.Run(name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, 2))
				p := params.New()
				c, err := tc.make(p)
				if err != nil {
					t.Fatal(err)
				}
				randomize(p, rng)
				m, _ := cellLoss(t, c, p, 2, 5, carry, rng)
				if err := graph.CheckMachineGradients(m, p, graph.FDOptions{Tol: fdTol}); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestElmanForward compares the graph with a plain loop.
func TestElmanForward(t *testing.T) {
	for _, act := range []activation.Activation{activation.Tanh, activation.SymSigmoid, activation.Identity} {
		t.Run(act.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			const in, hid, batch, steps = 3, 4, 2, 3
			p := params.New()
			c, err := NewElman(p, "rnn", in, hid, act)
			if err != nil {
				t.Fatal(err)
			}
			randomize(p, rng)
			m, u, xs := runUnrolled(t, c, batch, steps, rng)
			W, U, bias, h0 := p.Data("rnn/W"), p.Data("rnn/U"), p.Data("rnn/b"), p.Data("rnn/h0")
			f := map[activation.Activation]func(float64) float64{
				activation.Tanh:       math.Tanh,
				activation.SymSigmoid: func(z float64) float64 { return (1 - math.Exp(-z)) / (1 + math.Exp(-z)) },
				activation.Identity:   func(z float64) float64 { return z },
			}[act]
			for r := 0; r < batch; r++ {
				h := append([]float64(nil), h0...)
				for k := 0; k < steps; k++ {
					next := make([]float64, hid)
					for j := 0; j < hid; j++ {
						z := bias[j]
						for i := 0; i < in; i++ {
							z += xs[k][r*in+i] * W[i*hid+j]
						}
						for i := 0; i < hid; i++ {
							z += h[i] * U[i*hid+j]
						}
						next[j] = f(z)
					}
					h = next
					out, err := m.Value(u.Outputs[k])
					if err != nil {
						t.Fatal(err)
					}
					got := out[r*hid : (r+1)*hid]
					for j := range h {
						if math.Abs(got[j]-h[j]) > valTol {
							t.Fatalf("row %d step %d unit %d: graph %v, loop %v", r, k, j, got[j], h[j])
						}
					}
				}
			}
		})
	}
}

func TestBadSizes(t *testing.T) {
	p := params.New()
	if _, err := NewElman(p, "a", 0, 3, activation.Tanh); err == nil {
		t.Error("NewElman accepted in = 0")
	}
	if _, err := NewLSTM(p, "b", 3, -1); err == nil {
		t.Error("NewLSTM accepted hidden = -1")
	}
	if _, err := NewElman(p, "b", 2, 2, activation.Logistic); err == nil {
		t.Error("NewElman accepted an unsupported activation")
	}
	if _, err := NewElman(p, "c", 2, 2, activation.Tanh); err != nil {
		t.Fatal(err)
	}
	if _, err := NewElman(p, "c", 2, 2, activation.Tanh); err == nil {
		t.Error("a second cell with the same name was accepted")
	}
}

// runUnrolled runs c unrolled over steps steps on random inputs drawn from
// rng and returns the machine (its outputs watched), the unrolled graph
// and the inputs.
func runUnrolled(t *testing.T, c graph.Cell, batch, steps int, rng *rand.Rand) (*graph.Machine, *graph.Unrolled, [][]float64) {
	t.Helper()
	b := graph.NewBuilder()
	u, err := graph.Unroll(b, c, batch, steps, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range u.Outputs {
		b.Watch(o)
	}
	m, err := graph.Compile(b, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	xs := make([][]float64, steps)
	for k := range xs {
		xs[k] = make([]float64, batch*c.InputSize())
		for i := range xs[k] {
			xs[k][i] = rng.NormFloat64()
		}
		if err := m.Let(u.Inputs[k], xs[k]); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	return m, u, xs
}
