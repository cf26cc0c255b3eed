package compare

import (
	"math"
	"slices"
)

// ProfileTauMax is the largest ratio a Profile scores, AlgoPerf's r_max
// (Dahl et al., 2023, section 4.5).
const ProfileTauMax = 4

// Profile is a performance profile (Dolan and Moré, 2002) of settings
// over problems, as AlgoPerf scores training algorithms: a setting's time
// on a problem (steps, or seconds, to the problem's target) divided by
// the best setting's is its ratio r; rho(tau) is the fraction of the
// problems on which r <= tau; the score is the area under rho over
// [1, ProfileTauMax] divided by ProfileTauMax - 1 (1: the fastest on
// every problem; 0: within the ratio on none).
type Profile struct {
	// Settings and Problems name the rows and columns of Ratios.
	Settings, Problems []string
	// Ratios[i][j] is setting i's ratio on problem j (+Inf when it did
	// not reach the target; NaN when no setting did, a problem the
	// profile leaves out).
	Ratios [][]float64
	// Scores[i] is setting i's score.
	Scores []float64
}

// NewProfile builds the profile of times[i][j], setting i's time to the
// target of problem j (NaN or +Inf: not reached). Problems no setting
// solved are left out of rho and the scores.
func NewProfile(settings, problems []string, times [][]float64) Profile {
	p := Profile{Settings: settings, Problems: problems, Ratios: make([][]float64, len(settings)), Scores: make([]float64, len(settings))}
	best := make([]float64, len(problems))
	for j := range problems {
		best[j] = math.Inf(1)
		for i := range settings {
			if t := times[i][j]; t > 0 && !math.IsInf(t, 1) {
				best[j] = min(best[j], t)
			}
		}
	}
	for i := range settings {
		p.Ratios[i] = make([]float64, len(problems))
		for j := range problems {
			t := times[i][j]
			switch {
			case math.IsInf(best[j], 1):
				p.Ratios[i][j] = math.NaN()
			case math.IsNaN(t) || math.IsInf(t, 1) || !(t > 0):
				p.Ratios[i][j] = math.Inf(1)
			default:
				p.Ratios[i][j] = t / best[j]
			}
		}
		p.Scores[i] = p.score(i)
	}
	return p
}

// solved is the number of problems some setting solved.
func (p Profile) solved() int {
	if len(p.Ratios) == 0 {
		return 0
	}
	n := 0
	for _, r := range p.Ratios[0] {
		if !math.IsNaN(r) {
			n++
		}
	}
	return n
}

// Rho is the fraction of the solved problems on which setting i's ratio
// is at most tau.
func (p Profile) Rho(i int, tau float64) float64 {
	n := p.solved()
	if n == 0 {
		return 0
	}
	k := 0
	for _, r := range p.Ratios[i] {
		if r <= tau {
			k++
		}
	}
	return float64(k) / float64(n)
}

// score integrates the step function Rho(i, .) over [1, ProfileTauMax],
// exactly: a problem solved at ratio r <= ProfileTauMax adds
// (ProfileTauMax - r) / (ProfileTauMax - 1) / n.
func (p Profile) score(i int) float64 {
	n := p.solved()
	if n == 0 {
		return 0
	}
	var sum float64
	for _, r := range p.Ratios[i] {
		if r <= ProfileTauMax {
			sum += (ProfileTauMax - r) / (ProfileTauMax - 1)
		}
	}
	return sum / float64(n)
}

// Curve returns the points of Rho(i, .) over [1, tauMax] where it
// changes, for a step plot: tau values and rho values of equal length,
// starting at 1 and ending at tauMax.
func (p Profile) Curve(i int, tauMax float64) (tau, rho []float64) {
	ts := []float64{1}
	for _, r := range p.Ratios[i] {
		if r > 1 && r <= tauMax {
			ts = append(ts, r)
		}
	}
	ts = append(ts, tauMax)
	slices.Sort(ts)
	ts = slices.Compact(ts)
	for _, t := range ts {
		tau, rho = append(tau, t), append(rho, p.Rho(i, t))
	}
	return tau, rho
}
