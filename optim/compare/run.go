package compare

import (
	"fmt"
	"math"
	"sync"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/optim"
)

// Results holds a comparison's configuration (with defaults), its runs
// and the outcomes of the runs done.
type Results struct {
	// Config is the comparison (Problem is nil after Merge).
	Config Config
	// Plan lists every run of the comparison: Config.Plan, then the runs
	// the grid extensions and the reruns added (Config.ExtendGrid,
	// Config.Rerun).
	Plan []RunSpec
	// Runs holds the outcomes known, in plan order: every run after an
	// unsharded Run or a Merge, the shard's runs after a sharded Run.
	Runs []*Outcome
	// Waiting is the number of runs of Plan not known yet, 0 once the
	// comparison is complete. After a sharded Run they are the other
	// shards' runs, and the grid extensions and reruns wait for every
	// shard's runs of the stage before (in a shared Dir): run the shards
	// again once all have finished.
	Waiting int
}

// Run trains the runs of cfg's shard that Dir does not hold yet, Jobs at
// a time, and returns them with those loaded from Dir. A run's numbers
// depend only on its (setting, learning rate, seed): not on Jobs, the
// shard or the order runs finish in. A run that diverges or fails is an
// Outcome; Run returns an error only for a bad configuration, a problem
// the factory cannot build, or a file it cannot read or write.
//
// The grid extensions and reruns (Config.ExtendGrid, Config.Rerun) are
// stages decided by the tuning of the runs before them. A shard trains
// its share of each stage (run k of the stage's list, counted over the
// whole list, belongs to shard k mod Count + 1) once Dir holds every run
// of the stages before it, written by any shard.
func Run(cfg Config) (*Results, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ident, hash, err := c.identity()
	if err != nil {
		return nil, err
	}
	if err := c.preflight(); err != nil {
		return nil, err
	}
	var st *store
	if c.Dir != "" {
		if st, err = openStore(c.Dir, ident, hash, c.plan()); err != nil {
			return nil, err
		}
	}
	known := map[string]*Outcome{}
	for {
		plan, _ := c.schedule(known)
		loaded := false
		var todo []int
		for k, r := range plan {
			if known[r.Key()] != nil {
				continue
			}
			if st != nil {
				o, err := st.load(r)
				if err != nil {
					return nil, err
				}
				if o != nil {
					o.setting = r.setting
					known[r.Key()], loaded = o, true
					continue
				}
			}
			if c.Shard.has(k) {
				todo = append(todo, k)
			}
		}
		if len(todo) == 0 && !loaded {
			break
		}
		done := make([]*Outcome, len(plan))
		if err := c.runAll(plan, todo, done, st); err != nil {
			return nil, err
		}
		for _, k := range todo {
			known[plan[k].Key()] = done[k]
		}
	}
	plan, _ := c.schedule(known)
	res := &Results{Config: c, Plan: plan}
	for k, r := range plan {
		switch o := known[r.Key()]; {
		case o == nil:
			res.Waiting++
		case c.Shard.has(k):
			res.Runs = append(res.Runs, o)
		}
	}
	return res, nil
}

// preflight builds the first seed's problem and a Trainer for every
// setting, so that a setting the problem cannot train (Riemann on a
// problem without a metric) fails before any work is done.
func (c Config) preflight() error {
	p, err := c.Problem(c.Seeds[0])
	if err != nil {
		return errors.Wrapf(err, "compare: building the problem of seed %d", c.Seeds[0])
	}
	for _, s := range c.Settings {
		opt, err := s.newOptimizer(s.Config.LR)
		if err != nil {
			return errors.Wrapf(err, "compare: setting %s", s.Name)
		}
		if _, err := optim.NewTrainer(p, opt, optim.TrainConfig{}); err != nil {
			return errors.Wrapf(err, "compare: setting %s", s.Name)
		}
	}
	return nil
}

// runAll trains plan[k] for k in todo on c.Jobs goroutines, storing each
// outcome in done[k] (and in st). The first error stops the hand-out of
// new runs.
func (c Config) runAll(plan []RunSpec, todo []int, done []*Outcome, st *store) error {
	var (
		mu       sync.Mutex
		firstErr error
		finished int
		wg       sync.WaitGroup
	)
	next := make(chan int)
	for range min(c.Jobs, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				o, err := c.runOne(plan[k])
				if err == nil && st != nil {
					err = st.save(o)
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = errors.Wrapf(err, "compare: run %s", plan[k].Key())
				}
				if err == nil {
					done[k] = o
					finished++
					c.logRun(finished, len(todo), o)
				}
				mu.Unlock()
			}
		}()
	}
	for _, k := range todo {
		mu.Lock()
		stop := firstErr != nil
		mu.Unlock()
		if stop {
			break
		}
		next <- k
	}
	close(next)
	wg.Wait()
	return firstErr
}

func (c Config) logRun(i, n int, o *Outcome) {
	if c.Log == nil {
		return
	}
	what := fmt.Sprintf("valid %.6g, test %.6g", o.ValidLoss, o.TestLoss)
	switch o.Status {
	case Diverged:
		what = fmt.Sprintf("diverged at step %d", o.DivergedStep)
	case Failed:
		what = "failed: " + o.Reason
	}
	fmt.Fprintf(c.Log, "compare: [%d/%d] %s lr %s seed %d: %s, %d steps, %.1fs\n",
		i, n, o.Setting, fmtLR(o.LR), o.Seed, what, o.Steps, o.Seconds)
}

// runOne trains one run. Divergence and training failures are outcomes;
// the error is for a problem the factory cannot build or evaluate.
func (c Config) runOne(r RunSpec) (*Outcome, error) {
	s := c.Settings[r.setting]
	p, err := c.Problem(r.Seed)
	if err != nil {
		return nil, errors.Wrapf(err, "building the problem of seed %d", r.Seed)
	}
	opt, err := s.newOptimizer(r.LR)
	if err != nil {
		return nil, err
	}
	var sched optim.Schedule
	if s.Schedule != "" {
		if sched, err = optim.ParseSchedule(s.Schedule); err != nil {
			return nil, err
		}
	}
	rec := newRecorder(c, p, opt)
	epochs := c.Budget.Epochs
	if epochs == 0 {
		epochs = math.MaxInt32
	}
	// The comparison's own rule (Config.DivergeFactor) replaces the
	// Trainer's divergence guard; the Trainer's NaN/Inf checks stay.
	tr, err := optim.NewTrainer(p, opt, optim.TrainConfig{
		Epochs: epochs, BatchSize: c.BatchSize, Seed: r.Seed, Schedule: sched, DivergeFactor: math.Inf(1),
		Hooks: []optim.Hook{{Name: "compare", EverySteps: 1, EveryEpoch: true, Fn: rec.hook}},
	})
	if err != nil {
		return nil, err
	}
	tres, err := tr.Run()
	if len(rec.curve) == 0 { // the initial validation failed
		rec.curve = []Point{{TrainLoss: math.NaN(), ValidLoss: math.NaN()}}
	}
	o := &Outcome{RunSpec: r, Optimizer: opt.Name(), Curve: rec.curve, Epochs: tres.Epochs, Steps: tres.Steps,
		Seconds: max(tres.Seconds, rec.elapsed), ValidLoss: math.NaN(), TestLoss: math.NaN()}
	var (
		div *divergence
		nf  *optim.NonFiniteError
		de  *optim.DivergedError
	)
	switch {
	case err == nil:
		o.ValidLoss = tres.BestValid
	case errors.Is(err, errStop):
		o.ValidLoss = rec.kept
	case errors.As(err, &div):
		o.Status, o.DivergedStep, o.Reason = Diverged, div.step, div.Error()
	case errors.As(err, &nf):
		o.Status, o.DivergedStep, o.Reason = Diverged, nf.Step, nf.Error()
	case errors.As(err, &de):
		o.Status, o.DivergedStep, o.Reason = Diverged, de.Step, de.Error()
	default:
		o.Status, o.Reason = Failed, err.Error()
	}
	if o.Status == OK {
		if rec.valid == nil {
			o.ValidLoss = math.NaN()
		}
		if t, ok := p.(Tester); ok {
			if o.TestLoss, err = t.TestLoss(); err != nil {
				return nil, errors.Wrap(err, "test loss")
			}
		}
	}
	o.normalize()
	return o, nil
}
