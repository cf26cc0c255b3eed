package rnn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/params"
)

// TestGRUForward compares the GRU graph with a plain loop written from
// PyTorch's GRU equations.
func TestGRUForward(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	const in, hid, batch, steps = 3, 4, 2, 3
	p := params.New()
	c, err := NewGRU(p, "gru", in, hid)
	if err != nil {
		t.Fatal(err)
	}
	randomize(p, rng)
	m, u, xs := runUnrolled(t, c, batch, steps, rng)
	W, U, bias, bh, h0 := p.Data("gru/W"), p.Data("gru/U"), p.Data("gru/b"), p.Data("gru/bh"), p.Data("gru/h0")
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	for r := 0; r < batch; r++ {
		h := append([]float64(nil), h0...)
		for k := 0; k < steps; k++ {
			// gx[g*hid+j] = (x W + b)[gate g, unit j]; gh likewise for h U.
			gx, gh := make([]float64, 3*hid), make([]float64, 3*hid)
			for j := 0; j < 3*hid; j++ {
				gx[j] = bias[j]
				for i := 0; i < in; i++ {
					gx[j] += xs[k][r*in+i] * W[i*3*hid+j]
				}
				for i := 0; i < hid; i++ {
					gh[j] += h[i] * U[i*3*hid+j]
				}
			}
			next := make([]float64, hid)
			for j := 0; j < hid; j++ {
				rg := sig(gx[j] + gh[j])
				zg := sig(gx[hid+j] + gh[hid+j])
				n := math.Tanh(gx[2*hid+j] + rg*(gh[2*hid+j]+bh[j]))
				next[j] = (1-zg)*n + zg*h[j]
			}
			h = next
			out, err := m.Value(u.Outputs[k])
			if err != nil {
				t.Fatal(err)
			}
			for j, want := range h {
				if got := out[r*hid+j]; math.Abs(got-want) > valTol {
					t.Fatalf("row %d step %d unit %d: graph %v, loop %v", r, k, j, got, want)
				}
			}
		}
	}
}
