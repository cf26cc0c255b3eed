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
	// ValidMin and ValidMax are the range of the kept validation losses
	// over the OK runs (NaN for none).
	ValidMin, ValidMax float64
	// TargetSteps and TargetSeconds are the medians over the seeds of the
	// steps and seconds each run took to reach the Target (a run that did
	// not reach it counts as infinitely slow): finite when more than half
	// the seeds reached it, NaN otherwise or without a Target.
	TargetSteps, TargetSeconds float64
}

// Row is the summary of one setting at its tuned learning rate.
type Row struct {
	// GridPoint is the tuned point, over every seed it was run with (the
	// tuning seeds and those of Config.Rerun).
	GridPoint
	// Optimizer is the optimizer's Name.
	Optimizer string
	// Grid is the number of learning rates tried (1 without a grid or for
	// a SelfTuned setting).
	Grid int
	// Edge is "low" or "high" when the tuned rate is the lowest or the
	// highest of the setting's grid (of at least 2 rates): the optimum
	// may lie beyond it (widen the grid, Config.ExtendGrid); "" otherwise.
	Edge string
	// GridRuns and GridDiverged count the runs and divergences over the
	// whole grid of the setting.
	GridRuns, GridDiverged int
	// Reached is the number of OK runs at the tuned rate whose validation
	// loss (training loss without a validation set) reached the Target;
	// StepsToTarget and SecondsToTarget are the means, over them, of the
	// first curve point that did (NaN if none did or without a Target).
	Reached                        int
	StepsToTarget, SecondsToTarget float64
	// FastestLR is the grid point that reached the Target in the fewest
	// steps (median over seeds, GridPoint.TargetSteps; AlgoPerf's time to
	// target of a tuned submission), and FastestSteps, FastestSeconds its
	// medians; NaN when no point of the grid reached the target.
	FastestLR, FastestSteps, FastestSeconds float64
}

// Summary is a comparison's table: per setting the tuned learning rate
// and its figures, and the whole grid.
type Summary struct {
	// Target is Config.Target (0: none).
	Target float64
	// References are Config.References: the problem's known losses.
	References []Reference
	// Rerun is Config.Rerun: the seeds of each tuned rate (0: the tuning
	// seeds only).
	Rerun int
	// Executor is Config.Executor: what ran the problem's steps.
	Executor Executor
	// Rows holds one row per setting, in Config.Settings order.
	Rows []Row
	// Grid holds one point per (setting, learning rate), in plan order,
	// over the tuning seeds (Config.Seeds).
	Grid []GridPoint
	// Runs are the outcomes summarised, in plan order.
	Runs []*Outcome
}

// Summary tunes the learning rate of every setting as DeepOBS does: the
// grid point with the lowest mean validation loss (of the kept
// parameters; the final training loss for problems without a validation
// set) over the tuning seeds (Config.Seeds), among the points with the
// fewest runs that did not end OK (so a point where any seed diverged
// loses to one where none did), ties going to the earlier grid point. It
// reports that point's losses over every seed it ran with, its test loss,
// time to the target and divergences, and flags a tuned rate at the edge
// of the grid.
func (r *Results) Summary() *Summary {
	s := &Summary{Target: r.Config.Target, References: r.Config.References, Rerun: r.Config.Rerun, Executor: r.Config.Executor, Runs: r.Runs}
	tuning := map[uint64]bool{}
	for _, seed := range r.Config.Seeds {
		tuning[seed] = true
	}
	type point struct {
		setting string
		lr      float64
	}
	byPoint, allByPoint := map[point][]*Outcome{}, map[point][]*Outcome{}
	var order []point
	for _, o := range r.Runs {
		k := point{o.Setting, o.LR}
		if _, ok := allByPoint[k]; !ok {
			order = append(order, k)
		}
		allByPoint[k] = append(allByPoint[k], o)
		if tuning[o.Seed] || len(tuning) == 0 {
			byPoint[k] = append(byPoint[k], o)
		}
	}
	for _, k := range order {
		if len(byPoint[k]) > 0 {
			s.Grid = append(s.Grid, r.gridPoint(k.setting, k.lr, byPoint[k]))
		}
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
		row := Row{Grid: len(pts), FastestLR: math.NaN(), FastestSteps: math.NaN(), FastestSeconds: math.NaN()}
		best, lo, hi := -1, math.Inf(1), math.Inf(-1)
		for i, g := range pts {
			row.GridRuns += g.Runs
			row.GridDiverged += g.Diverged
			if best < 0 || better(g, pts[best]) {
				best = i
			}
			lo, hi = min(lo, g.LR), max(hi, g.LR)
			if g.TargetSteps < row.FastestSteps || (math.IsNaN(row.FastestSteps) && finite(g.TargetSteps)) {
				row.FastestLR, row.FastestSteps, row.FastestSeconds = g.LR, g.TargetSteps, g.TargetSeconds
			}
		}
		tuned := pts[best]
		switch {
		case len(pts) < 2:
		case tuned.LR == lo:
			row.Edge = "low"
		case tuned.LR == hi:
			row.Edge = "high"
		}
		row.GridPoint = r.gridPoint(tuned.Setting, tuned.LR, allByPoint[point{tuned.Setting, tuned.LR}])
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

func (r *Results) gridPoint(setting string, lr float64, runs []*Outcome) GridPoint {
	g := GridPoint{Setting: setting, LR: lr, Runs: len(runs)}
	var valid, final, test, train, steps, secs []float64
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
		st, sec := r.timeToTarget(o)
		steps, secs = append(steps, st), append(secs, sec)
	}
	g.ValidMean, g.ValidSD = MeanSD(valid)
	g.FinalMean, g.FinalSD = MeanSD(final)
	g.TestMean, g.TestSD = MeanSD(test)
	g.TrainMean, g.TrainSD = MeanSD(train)
	g.ValidMin, g.ValidMax = minMax(valid)
	g.TargetSteps, g.TargetSeconds = math.NaN(), math.NaN()
	if r.Config.Target > 0 {
		g.TargetSteps, g.TargetSeconds = median(steps), median(secs)
	}
	return g
}

// timeToTarget returns the steps and seconds of the first curve point of
// o after the start whose validation loss (training loss without a
// validation set) reached the Target, +Inf for a run that did not (or did
// not end OK).
func (r *Results) timeToTarget(o *Outcome) (float64, float64) {
	if o.Status != OK || r.Config.Target <= 0 || len(o.Curve) == 0 {
		return math.Inf(1), math.Inf(1)
	}
	for _, p := range o.Curve[1:] {
		v := p.ValidLoss
		if math.IsNaN(v) {
			v = p.TrainLoss
		}
		if v <= r.Config.Target {
			return float64(p.Step), p.Seconds
		}
	}
	return math.Inf(1), math.Inf(1)
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
		if st, sec := r.timeToTarget(o); !math.IsInf(st, 1) {
			reached++
			steps, secs = append(steps, st), append(secs, sec)
		}
	}
	ms, _ := MeanSD(steps)
	mt, _ := MeanSD(secs)
	return name, reached, ms, mt
}

// median is the median of v (the mean of the two middle values for an
// even count), NaN when it is infinite (more than half the values are
// +Inf) or v is empty.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	v = slices.Clone(v)
	slices.Sort(v)
	n := len(v)
	m := v[n/2]
	if n%2 == 0 {
		m = (v[n/2-1] + v[n/2]) / 2
	}
	if !finite(m) {
		return math.NaN()
	}
	return m
}

// minMax returns the smallest and largest finite values of v (NaN, NaN
// for none).
func minMax(v []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if finite(x) {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	if lo > hi {
		return math.NaN(), math.NaN()
	}
	return lo, hi
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

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
