package compare

import (
	"math"
	"slices"
	"strconv"
)

// schedule lists every run of the comparison that the outcomes known so
// far call for, in its fixed order: the plan, then the grid extensions
// round by round (Config.ExtendGrid), then the reruns of the tuned rates
// (Config.Rerun). complete reports whether the list is final: a later
// stage is only listed once every run of the stages before it is known,
// since the tuning decides it. Every process (shards, Merge) that knows
// the same outcomes lists the same runs.
func (c Config) schedule(known map[string]*Outcome) (runs []RunSpec, complete bool) {
	all := c.plan()
	have := func(rs []RunSpec) bool {
		for _, r := range rs {
			if known[r.Key()] == nil {
				return false
			}
		}
		return true
	}
	if !have(all) {
		return all, false
	}
	for range c.ExtendGrid {
		ext := c.extensions(all, known)
		if len(ext) == 0 {
			break
		}
		all = append(all, ext...)
		if !have(ext) {
			return all, false
		}
	}
	rr := c.reruns(all, known)
	all = append(all, rr...)
	return all, have(rr)
}

// tuned summarises the known outcomes of runs.
func (c Config) tuned(runs []RunSpec, known map[string]*Outcome) *Summary {
	res := &Results{Config: c}
	for _, r := range runs {
		if o := known[r.Key()]; o != nil {
			res.Runs = append(res.Runs, o)
		}
	}
	return res.Summary()
}

// extensions returns the runs of one more rate beyond the edge of each
// setting tuned at an edge that has fewer than ExtendGrid rates outside
// LRGrid.
func (c Config) extensions(runs []RunSpec, known map[string]*Outcome) []RunSpec {
	sum := c.tuned(runs, known)
	n := len(c.LRGrid)
	grid := slices.Clone(c.LRGrid)
	slices.Sort(grid)
	var out []RunSpec
	for _, row := range sum.Rows {
		i := slices.IndexFunc(c.Settings, func(s Setting) bool { return s.Name == row.Setting })
		if row.Edge == "" || c.Settings[i].SelfTuned() {
			continue
		}
		var lrs []float64
		for _, g := range sum.Grid {
			if g.Setting == row.Setting {
				lrs = append(lrs, g.LR)
			}
		}
		if len(lrs)-n >= c.ExtendGrid {
			continue
		}
		lr := row.LR / (grid[1] / grid[0])
		if row.Edge == "high" {
			lr = row.LR * (grid[n-1] / grid[n-2])
		}
		lr = round12(lr)
		if !(lr > 0) || math.IsInf(lr, 0) || slices.Contains(lrs, lr) {
			continue
		}
		for _, seed := range c.Seeds {
			out = append(out, RunSpec{Setting: row.Setting, LR: lr, Seed: seed, setting: i})
		}
	}
	return out
}

// reruns returns the runs of each setting's tuned rate with the seeds of
// Config.Rerun that the tuning did not use.
func (c Config) reruns(runs []RunSpec, known map[string]*Outcome) []RunSpec {
	extra := c.rerunSeeds()
	if len(extra) == 0 {
		return nil
	}
	sum := c.tuned(runs, known)
	var out []RunSpec
	for _, row := range sum.Rows {
		i := slices.IndexFunc(c.Settings, func(s Setting) bool { return s.Name == row.Setting })
		for _, seed := range extra {
			out = append(out, RunSpec{Setting: row.Setting, LR: row.LR, Seed: seed, setting: i})
		}
	}
	return out
}

// rerunSeeds are the seeds Config.Rerun adds to Seeds: the integers after
// the largest seed, Rerun - len(Seeds) of them.
func (c Config) rerunSeeds() []uint64 {
	var out []uint64
	next := slices.Max(c.Seeds) + 1
	for len(c.Seeds)+len(out) < c.Rerun {
		out = append(out, next)
		next++
	}
	return out
}

// round12 rounds v to 12 significant digits, so that a rate a grid step
// beyond 1 reads 10, not 9.999999999999998.
func round12(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}
