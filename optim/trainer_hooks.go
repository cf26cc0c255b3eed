package optim

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"time"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
)

// Event says why a hook runs.
type Event int

const (
	// StepEvent follows an optimizer step.
	StepEvent Event = iota
	// EpochEvent follows the end of an epoch (validation, best tracking,
	// schedule and drop done).
	EpochEvent
	// EndEvent follows the end of training, after the best parameters
	// have been restored.
	EndEvent
)

// String returns "step", "epoch" or "end".
func (e Event) String() string {
	switch e {
	case StepEvent:
		return "step"
	case EpochEvent:
		return "epoch"
	case EndEvent:
		return "end"
	}
	return "unknown"
}

// Hook is a named callback run during training. Progress display, the
// metrics file and checkpoints are built-in hooks (named "progress",
// "metrics" and "checkpoint"); callers add their own through
// TrainConfig.Hooks. An error from Fn stops training with that error,
// wrapped with the hook's name.
type Hook struct {
	// Name identifies the hook in errors. If Name is empty, it will be
	// defaulted to "hook <index>".
	Name string
	// EverySteps runs the hook after every EverySteps-th optimizer step
	// (counted over the whole run). If EverySteps is 0, it does not run
	// on steps.
	EverySteps int
	// EveryEpoch runs the hook at the end of every epoch.
	EveryEpoch bool
	// AtEnd runs the hook once when training ends without error.
	AtEnd bool
	// Fn is the callback. The State is valid only during the call.
	Fn func(*State) error
}

// State is what a hook sees of the training.
type State struct {
	// Event is why the hook runs.
	Event Event
	// Epoch is the epoch in progress at a step (from 1), the epoch just
	// finished at an epoch event, and the number of completed epochs at
	// the end. Epochs is TrainConfig.Epochs.
	Epoch, Epochs int
	// Step is the number of optimizer steps taken.
	Step int
	// Batch is the number of batches done in the current epoch, out of
	// Batches.
	Batch, Batches int
	// BatchLoss is the last step's loss (NaN before the first step of
	// the epoch and after it).
	BatchLoss float64
	// TrainLoss is the mean loss of the epoch so far at a step, of the
	// last epoch otherwise (NaN before any).
	TrainLoss float64
	// ValidLoss is the last epoch's validation loss (NaN if none).
	ValidLoss float64
	// LR is the learning rate the optimizer will use next; with a
	// StepSchedule, which sets the rate before each step, it is the rate
	// of the step just taken.
	LR float64
	// BestValid and BestEpoch describe the best parameters so far (see
	// Result).
	BestValid float64
	BestEpoch int
	// Drops is the number of plateaus met.
	Drops int
	// Elapsed is the training time (see EpochStats.Elapsed), up to this
	// step during an epoch.
	Elapsed time.Duration
	// Params are the current parameters (at the end, the restored best).
	// A hook may read or save them; changing them breaks exact resumption.
	Params *params.Params
	// Best holds the best parameters so far.
	Best *params.Params
	// Stats describes the epoch just finished (nil except at an epoch
	// event).
	Stats *EpochStats
	// Done reports that no epoch follows this one (at an epoch event) or
	// that training is over.
	Done bool
	// StoppedEarly reports that training stopped at the last allowed
	// plateau.
	StoppedEarly bool
}

// builtinHook reports whether name is reserved for a built-in hook.
func builtinHook(name string) bool {
	return name == "progress" || name == "metrics" || name == "checkpoint"
}

// builtinHooks returns the hooks TrainConfig asks for: metrics,
// checkpoint, progress.
func (t *Trainer) builtinHooks() []Hook {
	var hs []Hook
	if t.cfg.MetricsPath != "" {
		m := &metricsWriter{path: t.cfg.MetricsPath, executor: t.cfg.Executor}
		hs = append(hs, Hook{Name: "metrics", EveryEpoch: true, Fn: func(s *State) error { return m.write(t.history) }})
	}
	if t.cfg.CheckpointPath != "" {
		hs = append(hs, Hook{Name: "checkpoint", EveryEpoch: true, Fn: func(s *State) error {
			if s.Epoch%t.cfg.CheckpointEvery != 0 && !s.Done {
				return nil
			}
			return t.save(t.cfg.CheckpointPath)
		}})
	}
	if t.cfg.Progress != nil {
		pb := &progressBar{w: t.cfg.Progress, label: t.cfg.Executor}
		t.progress = pb
		hs = append(hs, Hook{Name: "progress", EverySteps: 1, EveryEpoch: true, AtEnd: true, Fn: pb.update})
	}
	return hs
}

// runHooks runs the hooks due at event ev (st is the finished epoch at an
// epoch event).
func (t *Trainer) runHooks(ev Event, st *EpochStats) error {
	var s *State
	for i := range t.hooks {
		h := &t.hooks[i]
		due := false
		switch ev {
		case StepEvent:
			due = h.EverySteps > 0 && t.step%h.EverySteps == 0
		case EpochEvent:
			due = h.EveryEpoch
		case EndEvent:
			due = h.AtEnd
		}
		if !due {
			continue
		}
		if s == nil {
			s = t.state(ev, st)
		}
		if err := h.Fn(s); err != nil {
			return errors.Wrapf(err, "optim: hook %q", h.Name)
		}
	}
	return nil
}

// state builds the State hooks see.
func (t *Trainer) state(ev Event, st *EpochStats) *State {
	c := &t.cur
	s := &State{
		Event: ev, Epoch: t.epoch, Epochs: t.cfg.Epochs, Step: t.step,
		Batch: c.batch, Batches: c.batches, BatchLoss: math.NaN(),
		TrainLoss: math.NaN(), ValidLoss: math.NaN(), LR: t.opt.LearningRate(),
		BestValid: t.bestValid, BestEpoch: t.bestEpoch, Drops: t.drops,
		Elapsed: time.Duration(t.elapsed * float64(time.Second)),
		Params:  t.params, Best: t.best, Stats: st,
		Done: t.done(), StoppedEarly: t.stoppedEarly() && t.epoch < t.cfg.Epochs,
	}
	if n := len(t.history); n > 0 {
		s.TrainLoss, s.ValidLoss = t.history[n-1].TrainLoss, t.history[n-1].ValidLoss
	}
	if ev == StepEvent {
		s.Epoch, s.Done = t.epoch+1, false
		s.BatchLoss, s.TrainLoss = c.batchLoss, c.sum/float64(c.count)
		s.Elapsed += time.Since(c.epochStart)
	}
	return s
}

// metricsWriter keeps the JSON Lines metrics file: the first write of a
// Run rewrites it (atomically) from the whole history, later ones append
// the last epoch.
type metricsWriter struct {
	path     string
	executor string // TrainConfig.Executor, in every line
	written  int    // history entries in the file
	started  bool
}

func (m *metricsWriter) write(h []EpochStats) error {
	if !m.started || m.written > len(h) {
		err := params.WriteFileAtomic(m.path, func(w io.Writer) error {
			for _, st := range h {
				if err := writeMetricsLine(w, st, m.executor); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		m.started, m.written = true, len(h)
		return nil
	}
	f, err := os.OpenFile(m.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	for _, st := range h[m.written:] {
		if err := writeMetricsLine(f, st, m.executor); err != nil {
			f.Close()
			return err
		}
	}
	m.written = len(h)
	return f.Close()
}

// jsonFloat encodes a non-finite value as null (JSON has no NaN or Inf).
type jsonFloat float64

func (v jsonFloat) MarshalJSON() ([]byte, error) {
	if !finite64(float64(v)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(v))
}

// metricsLine is one line of the metrics file.
type metricsLine struct {
	Epoch     int       `json:"epoch"`
	Step      int       `json:"step"`
	TrainLoss jsonFloat `json:"train_loss"`
	ValidLoss jsonFloat `json:"valid_loss"`
	LR        jsonFloat `json:"lr"`
	Seconds   jsonFloat `json:"seconds"`
	Elapsed   jsonFloat `json:"elapsed"`
	Best      bool      `json:"best"`
	Dropped   bool      `json:"dropped"`
	Executor  string    `json:"executor,omitempty"`
}

func newMetricsLine(st EpochStats, executor string) metricsLine {
	return metricsLine{st.Epoch, st.Step, jsonFloat(st.TrainLoss), jsonFloat(st.ValidLoss),
		jsonFloat(st.LR), jsonFloat(st.Seconds), jsonFloat(st.Elapsed), st.Best, st.Dropped, executor}
}

// MarshalJSON writes the epoch's statistics with snake_case keys, as one
// line of the metrics file (without the executor); non-finite values
// become null.
func (st EpochStats) MarshalJSON() ([]byte, error) { return json.Marshal(newMetricsLine(st, "")) }

func writeMetricsLine(w io.Writer, st EpochStats, executor string) error {
	b, err := json.Marshal(newMetricsLine(st, executor))
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
