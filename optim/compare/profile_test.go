package compare

import (
	"math"
	"testing"
)

// TestProfile checks ratios, rho and the score against values worked by
// hand: on problem p1 a takes 10 steps and b 20; on p2 a 30 and b 15; on
// p3 a does not reach the target and b takes 5; nobody solves p4.
func TestProfile(t *testing.T) {
	const tol = 1e-12
	inf := math.Inf(1)
	p := NewProfile([]string{"a", "b"}, []string{"p1", "p2", "p3", "p4"},
		[][]float64{{10, 30, math.NaN(), inf}, {20, 15, 5, math.NaN()}})
	want := [][]float64{{1, 2, inf}, {2, 1, 1}}
	for i := range want {
		for j, w := range want[i] {
			if got := p.Ratios[i][j]; got != w {
				t.Errorf("ratio[%d][%d] = %v, want %v", i, j, got, w)
			}
		}
		if !math.IsNaN(p.Ratios[i][3]) {
			t.Errorf("an unsolved problem has ratio %v, want NaN", p.Ratios[i][3])
		}
	}
	for _, c := range []struct {
		i        int
		tau, rho float64
	}{{0, 1, 1.0 / 3}, {0, 2, 2.0 / 3}, {0, 4, 2.0 / 3}, {1, 1, 2.0 / 3}, {1, 1.99, 2.0 / 3}, {1, 2, 1}} {
		if got := p.Rho(c.i, c.tau); math.Abs(got-c.rho) > tol {
			t.Errorf("rho_%d(%v) = %v, want %v", c.i, c.tau, got, c.rho)
		}
	}
	// score = sum over solved problems of (4 - r)/3, over 3 problems.
	if want := (3.0/3 + 2.0/3) / 3; math.Abs(p.Scores[0]-want) > tol {
		t.Errorf("score a = %v, want %v", p.Scores[0], want)
	}
	if want := (2.0/3 + 1 + 1) / 3; math.Abs(p.Scores[1]-want) > tol {
		t.Errorf("score b = %v, want %v", p.Scores[1], want)
	}
	tau, rho := p.Curve(0, ProfileTauMax)
	if len(tau) != 3 || tau[0] != 1 || tau[1] != 2 || tau[2] != 4 || rho[1] != 2.0/3 {
		t.Errorf("curve of a: %v, %v", tau, rho)
	}
}
