package layers

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Bounds of the float32 Bernoulli read-out against the float64 one: the
// loss summed in float64 from float32-accurate exponentials, and each
// gradient entry in float32.
const (
	bernoulli32LossTol = 1e-7 // relative
	bernoulli32GradTol = 1    // float32 ulps
)

// TestBernoulliNLL32 checks the float32 read-out's loss and gradient
// against the float64 one on logits of every scale (both signs, zero, the
// tails where exp(-|z|) is tiny) and lengths that leave a tail of one to
// three entries and cross a logarithm run.
func TestBernoulliNLL32(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 3, 7, 88, 1029} {
		z64 := make([]float64, n)
		z32 := make([]float32, n)
		y := make([]float64, n)
		for i := range z64 {
			v := float32(r.NormFloat64() * math.Pow(10, 2*r.Float64()-1))
			switch i % 11 {
			case 3:
				v = 0
			case 5:
				v = -90
			}
			z32[i], z64[i] = v, float64(v)
			y[i] = float64(r.IntN(2))
		}
		const m = 0.25
		want := bernoulliNLL(z64, y, m)
		got := bernoulliNLL(z32, y, m)
		if math.Abs(got-want) > bernoulli32LossTol*math.Abs(want) {
			t.Errorf("n %d: float32 loss %.10g, float64 %.10g", n, got, want)
		}
		for i := range z32 {
			w := float32(z64[i])
			if d := int64(math.Float32bits(z32[i])) - int64(math.Float32bits(w)); math.Signbit(float64(z32[i])) != math.Signbit(float64(w)) || d > bernoulli32GradTol || d < -bernoulli32GradTol {
				t.Errorf("n %d, entry %d: float32 gradient %v, float64 %v", n, i, z32[i], w)
			}
		}
	}
}

// TestBernoulliNLL32NaN checks that a NaN logit gives a NaN loss, which
// the trainer reads as divergence.
func TestBernoulliNLL32NaN(t *testing.T) {
	z := []float32{0.5, float32(math.NaN()), -1, 2, 3}
	if l := bernoulliNLL(z, []float64{1, 0, 1, 0, 1}, 1); !math.IsNaN(l) {
		t.Errorf("loss %v with a NaN logit, want NaN", l)
	}
}

// TestSoftmaxNLL32 checks the float32 softmax read-out's loss and
// gradient against the float64 one, on logits of every scale, targets one
// hot and spread, and lengths with tails of 1 to 3.
func TestSoftmaxNLL32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 3, 7, 10, 88} {
		for _, spread := range []bool{false, true} {
			z64 := make([]float64, n)
			z32 := make([]float32, n)
			y := make([]float64, n)
			for i := range z64 {
				v := float32(r.NormFloat64() * math.Pow(10, 2*r.Float64()-1))
				z32[i], z64[i] = v, float64(v)
				if spread {
					y[i] = r.Float64()
				}
			}
			y[r.IntN(n)] += 1
			const m = 0.5
			want := softmaxNLL(z64, y, m)
			got := softmaxNLL(z32, y, m)
			if math.Abs(got-want) > bernoulli32LossTol*math.Abs(want)+1e-7 {
				t.Errorf("n %d: float32 loss %.10g, float64 %.10g", n, got, want)
			}
			for i := range z32 {
				if d := math.Abs(float64(z32[i]) - z64[i]); d > 4e-7*(math.Abs(z64[i])+m*y[i]+1e-3) {
					t.Errorf("n %d, entry %d: float32 gradient %v, float64 %v", n, i, z32[i], z64[i])
				}
			}
		}
	}
}
