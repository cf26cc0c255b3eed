package optim

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// A training checkpoint is a params.SaveNPZ file with the sets "params"
// (the current parameters), "best" (the best ones), "optim" (the
// optimizer's State) and "trainer" (exact float state: "lr",
// "best_valid", "elapsed", "history" [epochs, historyCols], the
// schedule's "schedule" and, with a StepSchedule, the base rate
// "base_lr"), and with trainerMeta as meta.json.
const trainerFormat = "rtn-trainer/1"

// historyCols are the columns of the "history" tensor, one row per epoch.
var historyCols = []string{"epoch", "step", "train_loss", "valid_loss", "lr", "seconds", "elapsed", "best", "dropped"}

// trainerMeta is the JSON part of a training checkpoint.
type trainerMeta struct {
	Format       string          `json:"format"`
	Meta         json.RawMessage `json:"meta"` // TrainConfig.Meta
	Optimizer    string          `json:"optimizer"`
	Schedule     string          `json:"schedule"`
	Seed         uint64          `json:"seed"`
	BatchSize    int             `json:"batch_size"`
	Epoch        int             `json:"epoch"` // epochs completed
	Step         int             `json:"step"`  // steps completed
	BestEpoch    int             `json:"best_epoch"`
	Drops        int             `json:"drops"`
	SinceImprove int             `json:"since_improve"`
	HistoryCols  []string        `json:"history_columns"`
}

// scheduleName is the name checkpoints record for s.
func scheduleName(s Schedule) string {
	if s == nil {
		return Constant{}.Name()
	}
	return s.Name()
}

// save writes a training checkpoint to path.
func (t *Trainer) save(path string) error {
	m := trainerMeta{
		Format: trainerFormat, Meta: t.metaJSON, Optimizer: t.opt.Name(), Schedule: scheduleName(t.cfg.Schedule),
		Seed: t.cfg.Seed, BatchSize: t.cfg.BatchSize, Epoch: t.epoch, Step: t.step, BestEpoch: t.bestEpoch,
		Drops: t.drops, SinceImprove: t.sinceImprove, HistoryCols: historyCols,
	}
	tr := params.New()
	for _, kv := range []struct {
		name string
		v    float64
	}{{"lr", t.opt.LearningRate()}, {"best_valid", t.bestValid}, {"elapsed", t.elapsed}} {
		mustAdd(tr, kv.name, 1)
		tr.Data(kv.name)[0] = kv.v
	}
	if n := len(t.history); n > 0 {
		mustAdd(tr, "history", n, len(historyCols))
		h := tr.Data("history")
		for i, st := range t.history {
			copy(h[i*len(historyCols):], []float64{float64(st.Epoch), float64(st.Step), st.TrainLoss, st.ValidLoss,
				st.LR, st.Seconds, st.Elapsed, bool01(st.Best), bool01(st.Dropped)})
		}
	}
	if t.cfg.Schedule != nil {
		if s := t.cfg.Schedule.State(); len(s) > 0 {
			mustAdd(tr, "schedule", len(s))
			copy(tr.Data("schedule"), s)
		}
	}
	if t.stepSched != nil {
		mustAdd(tr, "base_lr", 1)
		tr.Data("base_lr")[0] = t.baseLR
	}
	sets := map[string]*params.Params{"params": t.params, "best": t.best, "optim": t.opt.State(), "trainer": tr}
	return params.SaveNPZ(path, m, sets)
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Resume restores the training state saved in the checkpoint at path:
// current and best parameters, the optimizer's state and learning rate,
// the schedule's state, epoch and step counts, best validation loss and
// epoch, plateau counters and history. Run then continues up to
// TrainConfig.Epochs, taking the same steps as an uninterrupted run would,
// bit for bit, provided the Problem's LossGrad and ValidationLoss are
// deterministic.
//
// The checkpoint must have been written by a Trainer with the same Meta,
// optimizer (by name), schedule (by name, which includes its settings)
// and parameter names and shapes; otherwise Resume returns a one-line
// error naming the first difference and changes nothing. The seed and
// batch size may differ (the run then no longer matches an uninterrupted
// one).
func (t *Trainer) Resume(path string) error {
	var m trainerMeta
	sets, err := params.LoadNPZ(path, &m)
	if err != nil {
		return err
	}
	if m.Format != trainerFormat {
		return errors.Errorf("optim: checkpoint %s is not a training checkpoint (format %q, want %q)", path, m.Format, trainerFormat)
	}
	incompatible := func(format string, args ...any) error {
		return errors.Errorf("optim: checkpoint %s is incompatible: "+format, append([]any{path}, args...)...)
	}
	if d := jsonDiff(m.Meta, t.metaJSON); d != "" {
		return incompatible("%s", d)
	}
	if m.Optimizer != t.opt.Name() {
		return incompatible("optimizer is %q in the checkpoint, %q in this run", m.Optimizer, t.opt.Name())
	}
	if s := scheduleName(t.cfg.Schedule); m.Schedule != s {
		return incompatible("schedule is %q in the checkpoint, %q in this run", m.Schedule, s)
	}
	for _, set := range []string{"params", "best"} {
		if sets[set] == nil {
			return errors.Errorf("optim: checkpoint %s has no %q set", path, set)
		}
		if err := t.params.SameLayout(sets[set]); err != nil {
			return incompatible("%s set: %s", set, strings.TrimPrefix(err.Error(), "params: "))
		}
	}
	sc, err := readTrainerSet(sets["trainer"], m)
	if err != nil {
		return errors.Errorf("optim: checkpoint %s: %v", path, err)
	}
	optState := sets["optim"]
	if optState == nil {
		optState = params.New()
	}
	saved := t.opt.State()
	if err := t.opt.LoadState(optState); err != nil {
		return errors.Wrapf(err, "optim: checkpoint %s", path)
	}
	if t.cfg.Schedule != nil {
		if err := t.cfg.Schedule.LoadState(sc.schedule); err != nil {
			if rerr := t.opt.LoadState(saved); rerr != nil {
				return errors.Errorf("optim: checkpoint %s: %v (and putting back the optimizer's state failed: %v)", path, err, rerr)
			}
			return errors.Wrapf(err, "optim: checkpoint %s", path)
		}
	}
	copyParams(t.params, sets["params"]) // layouts checked above
	copyParams(t.best, sets["best"])
	t.opt.SetLearningRate(sc.lr)
	t.baseLR = sc.baseLR
	t.begun = true
	t.epoch, t.step, t.bestEpoch, t.drops, t.sinceImprove = m.Epoch, m.Step, m.BestEpoch, m.Drops, m.SinceImprove
	t.bestValid, t.elapsed, t.history = sc.bestValid, sc.elapsed, sc.history
	return nil
}

// trainerScalars is the float state of a checkpoint.
type trainerScalars struct {
	lr, bestValid, elapsed float64
	baseLR                 float64 // "base_lr", or lr when absent
	schedule               []float64
	history                []EpochStats
}

// readTrainerSet checks and decodes the "trainer" set against m.
func readTrainerSet(tr *params.Params, m trainerMeta) (trainerScalars, error) {
	var sc trainerScalars
	if tr == nil {
		return sc, errors.New(`no "trainer" set`)
	}
	switch {
	case m.Epoch < 0 || m.Step < 0 || m.Drops < 0 || m.SinceImprove < 0:
		return sc, errors.Errorf("negative counters (epoch %d, step %d, drops %d, since_improve %d)", m.Epoch, m.Step, m.Drops, m.SinceImprove)
	case m.BestEpoch < 0 || m.BestEpoch > m.Epoch:
		return sc, errors.Errorf("best_epoch %d outside [0, %d]", m.BestEpoch, m.Epoch)
	}
	for _, s := range []struct {
		name string
		dst  *float64
	}{{"lr", &sc.lr}, {"best_valid", &sc.bestValid}, {"elapsed", &sc.elapsed}} {
		d := tr.Data(s.name)
		if len(d) != 1 {
			return sc, errors.Errorf("trainer set lacks the scalar %q", s.name)
		}
		*s.dst = d[0]
	}
	sc.baseLR = sc.lr
	base := tr.Data("base_lr")
	if base != nil {
		if len(base) != 1 || !(base[0] > 0) || math.IsInf(base[0], 0) {
			return sc, errors.Errorf("base learning rate %v is not one positive, finite value", base)
		}
		sc.baseLR = base[0]
	}
	// A step schedule's rate may have decayed to 0; other rates are positive.
	if !(sc.lr > 0 || (base != nil && sc.lr == 0)) || math.IsInf(sc.lr, 0) {
		return sc, errors.Errorf("learning rate %v is not positive and finite", sc.lr)
	}
	sc.schedule = tr.Data("schedule")
	h, shape := tr.Data("history"), tr.Shape("history")
	if want := []int{m.Epoch, len(historyCols)}; (m.Epoch > 0 || h != nil) && !slices.Equal(shape, want) {
		return sc, errors.Errorf("history has shape %v, want %v", shape, want)
	}
	for i := 0; i < m.Epoch; i++ {
		r := h[i*len(historyCols):]
		sc.history = append(sc.history, EpochStats{Epoch: int(r[0]), Step: int(r[1]), TrainLoss: r[2], ValidLoss: r[3],
			LR: r[4], Seconds: r[5], Elapsed: r[6], Best: r[7] != 0, Dropped: r[8] != 0})
	}
	return sc, nil
}

// jsonDiff compares two JSON documents by value and describes the first
// difference ("" if none), a is the checkpoint's and b this run's.
func jsonDiff(a, b []byte) string {
	var x, y any
	if len(a) == 0 {
		a = []byte("null")
	}
	if len(b) == 0 {
		b = []byte("null")
	}
	if err := json.Unmarshal(a, &x); err != nil {
		return fmt.Sprintf("meta in the checkpoint is not valid JSON: %v", err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return fmt.Sprintf("meta of this run is not valid JSON: %v", err)
	}
	return valueDiff("meta", x, y, true, true)
}

func valueDiff(path string, x, y any, hasX, hasY bool) string {
	if hasX && hasY {
		switch xv := x.(type) {
		case map[string]any:
			if yv, ok := y.(map[string]any); ok {
				keys := map[string]bool{}
				for k := range xv {
					keys[k] = true
				}
				for k := range yv {
					keys[k] = true
				}
				sorted := make([]string, 0, len(keys))
				for k := range keys {
					sorted = append(sorted, k)
				}
				sort.Strings(sorted)
				for _, k := range sorted {
					a, okA := xv[k]
					b, okB := yv[k]
					if d := valueDiff(path+"."+k, a, b, okA, okB); d != "" {
						return d
					}
				}
				return ""
			}
		case []any:
			if yv, ok := y.([]any); ok && len(xv) == len(yv) {
				for i := range xv {
					if d := valueDiff(fmt.Sprintf("%s[%d]", path, i), xv[i], yv[i], true, true); d != "" {
						return d
					}
				}
				return ""
			}
		}
		if reflect.DeepEqual(x, y) {
			return ""
		}
	}
	return fmt.Sprintf("%s is %s in the checkpoint, %s in this run", path, shortJSON(x, hasX), shortJSON(y, hasY))
}

// shortJSON formats v for an error message, cut to a few dozen bytes.
func shortJSON(v any, present bool) string {
	if !present {
		return "absent"
	}
	b, _ := json.Marshal(v)
	if len(b) > 48 {
		return string(b[:45]) + "..."
	}
	return string(b)
}
