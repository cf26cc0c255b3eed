package graph

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPackedWeight checks PackedWeightOf's products against GemmOf's bit
// for bit, in float64 and float32, and that Reset makes them read a
// changed U.
func TestPackedWeight(t *testing.T) {
	forFloats(t, testPackedWeight[float64], testPackedWeight[float32])
}

func testPackedWeight[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	fill := func(n int) []F {
		s := make([]F, n)
		for i := range s {
			s[i] = F(rng.NormFloat64())
		}
		return s
	}
	same := func(what string, got, want []F) {
		t.Helper()
		for i := range want {
			if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want[i])) {
				t.Fatalf("%s: entry %d is %.17g, GemmOf %.17g", what, i, float64(got[i]), float64(want[i]))
			}
		}
	}
	for _, sz := range [][3]int{{7, 13, 5}, {32, 100, 400}, {100, 300, 260}} {
		m, rows, cols := sz[0], sz[1], sz[2]
		u, h, g := fill(rows*cols), fill(m*rows), fill(m*cols)
		var w PackedWeightOf[F]
		for round := range 2 {
			if round == 1 { // a changed U, read after Reset
				u = fill(rows * cols)
				w.Reset()
			}
			c0 := fill(m * cols)
			got, want := append([]F(nil), c0...), append([]F(nil), c0...)
			w.Forward(u, rows, cols, m, h, 1, got)
			GemmOf(false, false, m, cols, rows, 1, h, rows, u, cols, 1, want, cols)
			same("forward", got, want)
			d0 := fill(m * rows)
			got, want = append([]F(nil), d0...), append([]F(nil), d0...)
			w.Backward(u, rows, cols, m, g, 0, got)
			GemmOf(false, true, m, rows, cols, 1, g, cols, u, cols, 0, want, rows)
			same("backward", got, want)
		}
	}
}
