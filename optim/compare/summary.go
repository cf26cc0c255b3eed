package compare

import (
	"math"
	"slices"
)

// GridPoint summarises the runs of one (setting, learning rate) over the
// seeds. Means and standard deviations (sample, n-1; 0 for one run) are
// over the runs that ended OK.
type GridPoint struct {
	Setting string
	LR      float64
	// Runs is the number of seeds run; OK, Diverged and Failed count
	// their outcomes.
	Runs, OK, Diverged, Failed int
	// FirstDiverged is the earliest step at which a run diverged (0 if
	// none did).
	FirstDiverged int
	// Valid is the validation loss of the kept (best) parameters, Final
	// the one at the end of the run, Test the test loss of the kept
	// parameters; Train is the last curve point's training loss.
	ValidMean, ValidSD float64
	FinalMean, FinalSD float64
	TestMean, TestSD   float64
	TrainMean, TrainSD float64
}

// Row is the summary of one setting at its tuned learning rate.
type Row struct {
	GridPoint
	// Optimizer is the optimizer's Name.
	Optimizer string
	// Grid is the number of learning rates tried (1 without a grid or for
	// a SelfTuned setting).
	Grid int
	// GridRuns and GridDiverged count the runs and divergences over the
	// whole grid of the setting.
	GridRuns, GridDiverged int
	// Reached is the number of OK runs at the tuned rate whose validation
	// loss (training loss without a validation set) reached the Target;
	// StepsToTarget and SecondsToTarget are the means, over them, of the
	// first curve point that did (NaN if none did or without a Target).
	Reached                        int
	StepsToTarget, SecondsToTarget float64
}

// Summary is a comparison's table: per setting the tuned learning rate
// and its figures, and the whole grid.
type Summary struct {
	// Target is Config.Target (0: none).
	Target float64
	// Executor is Config.Executor: what ran the problem's steps.
	Executor Executor
	// Rows holds one row per setting, in Config.Settings order.
	Rows []Row
	// Grid holds one point per (setting, learning rate), in plan order.
	Grid []GridPoint
	// Runs are the outcomes summarised, in plan order.
	Runs []*Outcome
}

// Summary tunes the learning rate of every setting as DeepOBS does: the
// grid point with the lowest mean validation loss (of the kept
// parameters; the final training loss for problems without a validation
// set) over the seeds, among the points with the fewest runs that did not
// end OK (so a point where any seed diverged loses to one where none
// did), ties going to the earlier grid point. It reports that point's
// losses, test loss, time to the target and divergences.
func (r *Results) Summary() *Summary {
	s := &Summary{Target: r.Config.Target, Executor: r.Config.Executor, Runs: r.Runs}
	type point struct {
		setting string
		lr      float64
	}
	byPoint := map[point][]*Outcome{}
	var order []point
	for _, o := range r.Runs {
		k := point{o.Setting, o.LR}
		if _, ok := byPoint[k]; !ok {
			order = append(order, k)
		}
		byPoint[k] = append(byPoint[k], o)
	}
	for _, k := range order {
		s.Grid = append(s.Grid, gridPoint(k.setting, k.lr, byPoint[k]))
	}
	for _, set := range r.Config.Settings {
		var pts []GridPoint
		for _, g := range s.Grid {
			if g.Setting == set.Name {
				pts = append(pts, g)
			}
		}
		if len(pts) == 0 {
			continue
		}
		row := Row{Grid: len(pts)}
		best := -1
		for i, g := range pts {
			row.GridRuns += g.Runs
			row.GridDiverged += g.Diverged
			if best < 0 || better(g, pts[best]) {
				best = i
			}
		}
		row.GridPoint = pts[best]
		row.Optimizer, row.Reached, row.StepsToTarget, row.SecondsToTarget = r.toTarget(row.Setting, row.LR)
		s.Rows = append(s.Rows, row)
	}
	return s
}

// better reports whether grid point a beats b in the tuning.
func better(a, b GridPoint) bool {
	if na, nb := a.Runs-a.OK, b.Runs-b.OK; na != nb {
		return na < nb
	}
	return score(a) < score(b)
}

// score is the tuning criterion of a grid point (+Inf when no run ended
// OK).
func score(g GridPoint) float64 {
	v := g.ValidMean
	if math.IsNaN(v) {
		v = g.TrainMean
	}
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return v
}

func gridPoint(setting string, lr float64, runs []*Outcome) GridPoint {
	g := GridPoint{Setting: setting, LR: lr, Runs: len(runs)}
	var valid, final, test, train []float64
	for _, o := range runs {
		switch o.Status {
		case OK:
			g.OK++
			valid = append(valid, o.ValidLoss)
			final = append(final, o.FinalValid())
			test = append(test, o.TestLoss)
			train = append(train, o.Curve[len(o.Curve)-1].TrainLoss)
		case Diverged:
			g.Diverged++
			if g.FirstDiverged == 0 || o.DivergedStep < g.FirstDiverged {
				g.FirstDiverged = o.DivergedStep
			}
		default:
			g.Failed++
		}
	}
	g.ValidMean, g.ValidSD = MeanSD(valid)
	g.FinalMean, g.FinalSD = MeanSD(final)
	g.TestMean, g.TestSD = MeanSD(test)
	g.TrainMean, g.TrainSD = MeanSD(train)
	return g
}

// toTarget returns the optimizer name and the runs of (setting, lr) that
// reached the target, with their mean steps and seconds to it.
func (r *Results) toTarget(setting string, lr float64) (string, int, float64, float64) {
	name, reached := "", 0
	var steps, secs []float64
	for _, o := range r.Runs {
		if o.Setting != setting || o.LR != lr {
			continue
		}
		name = o.Optimizer
		if o.Status != OK || r.Config.Target <= 0 {
			continue
		}
		for _, p := range o.Curve {
			v := p.ValidLoss
			if math.IsNaN(v) {
				v = p.TrainLoss
			}
			if v <= r.Config.Target {
				reached++
				steps = append(steps, float64(p.Step))
				secs = append(secs, p.Seconds)
				break
			}
		}
	}
	ms, _ := MeanSD(steps)
	mt, _ := MeanSD(secs)
	return name, reached, ms, mt
}

// MeanSD returns the mean and the sample standard deviation (n-1; 0 for
// one value; NaN, NaN for none) of the finite values of v: the
// statistics of the summary's "mean ± sd over seeds".
func MeanSD(v []float64) (float64, float64) {
	v = slices.DeleteFunc(slices.Clone(v), func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) })
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	m := sum / float64(len(v))
	if len(v) == 1 {
		return m, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(v)-1))
}
