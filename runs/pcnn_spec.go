package runs

import (
	"cmp"
	"fmt"
	"reflect"
	"time"

	"github.com/rtnlab/rtn/layers/activation"
	"github.com/rtnlab/rtn/layers/pcnn"
)

// Full as PCNNSpec.Degree asks for a fully connected network.
const Full = Off

// MaxUnits bounds PCNNSpec.Units and the states of the hmm baseline: a
// fully connected PCNN of that size over a 67-symbol alphabet holds 67
// million transition weights.
const MaxUnits = 1 << 10

// pcnnTasks lists the tasks of PCNNSpec and PCNNBaselineSpec.
var pcnnTasks = []string{"alphabet", "music", "xor", "anbn"}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s PCNNSpec) WithDefaults() PCNNSpec {
	s.Task = cmpOr(s.Task, "anbn")
	s.Model = cmpOr(s.Model, "pcnn")
	s.Activation = cmpOr(s.Activation, "tanh")
	s.Writing = cmpOr(s.Writing, "qdh")
	s.Transition = cmpOr(s.Transition, "rbpm")
	if s.Units == 0 {
		s.Units = 16
	}
	if s.Degree == 0 {
		s.Degree = 3
	}
	if s.Checks == 0 {
		s.Checks = 20
	}
	if s.Restarts == 0 {
		s.Restarts = 1
		if s.Task == "anbn" {
			s.Restarts = 4
		}
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	return s
}

// Validate checks the spec's values (a *FieldError); it generates no data.
// Checks and Restarts at 0 are unset (WithDefaults fills them, Restarts
// by the task), so a spec before WithDefaults passes with them at 0.
func (s PCNNSpec) Validate() error {
	if !contains(pcnnTasks, s.Task) {
		return fieldErr("Task", s.Task, "alphabet, music, xor or anbn")
	}
	if _, err := pcnn.ParseKind(s.Model); err != nil {
		return fieldErr("Model", s.Model, "rnn, cnn or pcnn")
	}
	if _, err := activation.ParseOneOf(s.Activation, pcnn.Activations()...); err != nil {
		return fieldErr("Activation", s.Activation, "tanh or logistic")
	}
	if _, err := pcnn.ParseWriting(s.Writing); err != nil {
		return fieldErr("Writing", s.Writing, "qdh or dh")
	}
	tm, err := pcnn.ParseTransition(s.Transition)
	if err != nil {
		return fieldErr("Transition", s.Transition, "rbpm, rutsd, qdrbpm, qdrutsd or fb")
	}
	if s.Model == "rnn" && (tm == pcnn.RBPM || tm == pcnn.RUTSD) {
		return fieldErr("Transition", s.Transition, "qd%s: %s is not available for the rnn (quadratic in the alphabet)", s.Transition, s.Transition)
	}
	if err := checkRange("Units", s.Units, 1, MaxUnits); err != nil {
		return err
	}
	if s.Degree != Full && (s.Degree < 1 || s.Degree > s.Units) {
		return fieldErr("Degree", s.Degree, "full or in [1, {Units} %d]", s.Units)
	}
	switch {
	case s.Budget < 0:
		return fieldErr("Budget", s.Budget, ">= 0")
	case s.Passes == 0 && s.Budget == 0:
		return fieldErr("Passes", nil, "above 0 when {Budget} is 0: set {Budget} or {Passes}")
	}
	return firstErr(
		checkMin("Size", s.Size, 0),
		checkMin("Passes", s.Passes, 0),
		checkMin("Checks", cmp.Or(s.Checks, 1), 1),
		checkMin("Restarts", cmp.Or(s.Restarts, 1), 1),
		checkMin("Generate", s.Generate, 0),
		checkSeed("Seed", s.Seed),
	)
}

// EstimateMemory counts the -generate output and, for a Size given, the
// training and validation streams (symbols per unit of Size measured on a
// small sample) with the per-symbol states kept for the gradient.
func (s PCNNSpec) EstimateMemory() (MemoryEstimate, error) {
	est := MemoryEstimate{What: fmt.Sprintf("{Generate} %d", s.Generate), Bytes: float64s(4 * float64(s.Generate))}
	if s.Size > 0 {
		const probe = 8
		train, _, err := PCNNStreams(s.Task, probe, s.Seed)
		if err != nil {
			return MemoryEstimate{}, err
		}
		symbols := float64(len(train.X)) / probe * float64(s.Size)
		est.Bytes += 2 * float64s(symbols*(3+4*float64(s.Units)))
		if s.Generate <= s.Size {
			est.What = fmt.Sprintf("{Size} %d", s.Size)
		}
	}
	return est, nil
}

// WithDefaults returns the spec with its unset fields at their defaults.
func (s PCNNBaselineSpec) WithDefaults() PCNNBaselineSpec {
	s.Task = cmpOr(s.Task, "anbn")
	if s.Depth == 0 && s.Baseline == "ctw" {
		s.Depth = 8
	}
	if s.States == 0 && s.Baseline == "hmm" {
		s.States = 32
	}
	if s.Iterations == 0 && s.Baseline == "hmm" {
		s.Iterations = 50
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	return s
}

// Validate checks the spec's values (a *FieldError). A Baseline of ""
// stands for none (a network runs, PCNNSpec): it is refused by
// RunPCNNBaseline, and Validate then checks only that no baseline's field
// is set. Depth is refused unless Baseline is ctw, States and Iterations
// unless it is hmm; their 0 is unset (WithDefaults fills it).
func (s PCNNBaselineSpec) Validate() error {
	switch {
	case s.Baseline != "" && s.Baseline != "bzip2" && s.Baseline != "ctw" && s.Baseline != "hmm":
		return fieldErr("Baseline", s.Baseline, "bzip2, ctw or hmm")
	case !contains(pcnnTasks, s.Task):
		return fieldErr("Task", s.Task, "alphabet, music, xor or anbn")
	}
	if s.Baseline != "ctw" {
		if err := checkUnset("Depth", s.Depth, "unset without {Baseline} ctw (the depth of the ctw baseline)"); err != nil {
			return err
		}
	} else if err := checkRange("Depth", cmp.Or(s.Depth, 1), 1, 64); err != nil {
		return err
	}
	if s.Baseline != "hmm" {
		const hmm = "unset without {Baseline} hmm (a setting of the hmm baseline)"
		if err := firstErr(checkUnset("States", s.States, hmm), checkUnset("Iterations", s.Iterations, hmm)); err != nil {
			return err
		}
	} else if err := firstErr(checkRange("States", cmp.Or(s.States, 1), 1, MaxUnits), checkMin("Iterations", cmp.Or(s.Iterations, 1), 1)); err != nil {
		return err
	}
	if s.Baseline != "" {
		if err := s.checkNetwork(); err != nil {
			return err
		}
	}
	return firstErr(
		checkMin("Size", s.Size, 0),
		checkSeed("Seed", s.Seed),
	)
}

// MaxPCNNMinutes bounds a time budget given in minutes (PCNNMinutes): a
// year, past which the budget's time.Duration overflows.
const MaxPCNNMinutes = 366 * 24 * 60

// PCNNMinutes is the PCNNSpec.Budget of a budget given in minutes, or a
// *FieldError of Budget when minutes is not a number in [0,
// MaxPCNNMinutes].
func PCNNMinutes(minutes float64) (time.Duration, error) {
	if !(minutes >= 0) || minutes > MaxPCNNMinutes {
		return 0, fieldErr("Budget", minutes, "a number of minutes in [0, %d] (a year)", MaxPCNNMinutes)
	}
	return time.Duration(minutes * float64(time.Minute)), nil
}

// checkNetwork refuses a field of Network set to a value other than its
// default: a baseline trains no network.
func (s PCNNBaselineSpec) checkNetwork() error {
	n := reflect.ValueOf(s.Network)
	d := reflect.ValueOf(PCNNSpec{Task: s.Network.Task}.WithDefaults())
	for i := range n.NumField() {
		name, f := n.Type().Field(i).Name, n.Field(i)
		switch name {
		case "Task", "Size", "Seed", "Log":
			continue
		}
		if f.IsZero() || reflect.DeepEqual(f.Interface(), d.Field(i).Interface()) {
			continue
		}
		v := f.Interface()
		if name == "Degree" && v == Full {
			v = "full"
		}
		return fieldErr("Network."+name, v, "unset with {Baseline} %s (a setting of the network, which a baseline does not train)", s.Baseline)
	}
	return nil
}
