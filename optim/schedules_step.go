package optim

import (
	"math"
	"strings"

	"github.com/pkg/errors"
)

// StepSchedule is the optional interface of schedules that set the
// learning rate before every optimizer step, as a function of how far
// training has gone (warm-up, cosine and linear decay). The Trainer
// calls Factor before each step and runs the step at the base rate times
// the factor; the base rate is the optimizer's rate when the Trainer was
// made, multiplied by TrainConfig.DropFactor at each plateau drop, and is
// saved in checkpoints. Next is not called.
type StepSchedule interface {
	Schedule
	// Factor returns the rate of the step that takes training from a to
	// b epochs, as a multiple of the base rate. Progress is counted in
	// epochs, fractional within one: step i (from 0) of the B steps of
	// 0-based epoch e goes from e + i/B to e + (i+1)/B.
	Factor(a, b float64) float64
}

// WarmupDecayConfig configures WarmupDecay. Lengths are in epochs and may
// be fractional; the zero value keeps the rate constant.
type WarmupDecayConfig struct {
	// Warmup is the length of the linear warm-up. If Warmup is 0, there is
	// none.
	Warmup float64
	// Decay is the shape of the decay after the warm-up: "cosine",
	// "linear", or "" for none (the rate stays at its base).
	Decay string
	// Epochs is the length of the decay, counted from the end of the
	// warm-up; after it the rate stays at Floor times its base. It must
	// be positive when Decay is set, and 0 otherwise.
	Epochs float64
	// Floor is the rate at the end of the decay as a fraction of the base
	// rate, in [0, 1). If Floor is 0, the rate decays to 0.
	Floor float64
}

// WarmupDecay is a linear warm-up followed by a cosine or linear decay,
// the schedule of most recent training recipes (AlgoPerf's baselines,
// optax's warmup_cosine_decay_schedule with the decay counted after the
// warm-up). With W = Warmup, T = Epochs and F = Floor, the step from a to
// b epochs runs at the base rate η times
//
//	min(1, b/W)                                 while a < W (warm-up)
//	F + (1−F) (1 + cos(π min(a−W, T)/T)) / 2    cosine
//	1 − (1−F) min(a−W, T)/T                     linear
//
// so the first step of a warm-up over k steps runs at η/k and its last at
// η, and the decay starts from η. It is a StepSchedule: the rate changes
// at every step, not only between epochs.
type WarmupDecay struct{ c WarmupDecayConfig }

var _ StepSchedule = (*WarmupDecay)(nil)

// NewWarmupDecay returns a WarmupDecay schedule, or an error naming the
// bad field.
func NewWarmupDecay(c WarmupDecayConfig) (*WarmupDecay, error) {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !(c.Warmup >= 0) || !finite(c.Warmup):
		return nil, errors.Errorf("optim: warm-up must be >= 0 epochs and finite, got %v", c.Warmup)
	case c.Decay != "" && c.Decay != "cosine" && c.Decay != "linear":
		return nil, errors.Errorf("optim: decay must be cosine, linear or empty, got %q", c.Decay)
	case c.Decay != "" && (!(c.Epochs > 0) || !finite(c.Epochs)):
		return nil, errors.Errorf("optim: %s decay needs a positive, finite length in epochs, got %v", c.Decay, c.Epochs)
	case c.Decay == "" && (c.Epochs != 0 || c.Floor != 0):
		return nil, errors.New("optim: a decay length or floor without a decay shape")
	case !(c.Floor >= 0 && c.Floor < 1):
		return nil, errors.Errorf("optim: floor must be in [0, 1), got %v", c.Floor)
	}
	return &WarmupDecay{c: c}, nil
}

// Name implements Schedule; it returns a spec such as
// "warmup:2+cosine:30:0" that ParseSchedule turns back into the same
// schedule ("constant" for the zero value).
func (s *WarmupDecay) Name() string {
	var parts []string
	if s.c.Warmup > 0 {
		parts = append(parts, "warmup:"+formatFloat(s.c.Warmup))
	}
	if s.c.Decay != "" {
		parts = append(parts, s.c.Decay+":"+formatFloat(s.c.Epochs)+":"+formatFloat(s.c.Floor))
	}
	if len(parts) == 0 {
		return "constant"
	}
	return strings.Join(parts, "+")
}

// Factor implements StepSchedule.
func (s *WarmupDecay) Factor(a, b float64) float64 {
	c := s.c
	if a < c.Warmup {
		return math.Min(1, b/c.Warmup)
	}
	if c.Decay == "" {
		return 1
	}
	u := math.Min(a-c.Warmup, c.Epochs) / c.Epochs
	if c.Decay == "cosine" {
		return c.Floor + (1-c.Floor)*(1+math.Cos(math.Pi*u))/2
	}
	return 1 - (1-c.Floor)*u
}

// Next implements Schedule; it returns lr, since the Trainer sets a
// StepSchedule's rate before every step.
func (s *WarmupDecay) Next(epoch int, lr, valid float64) float64 { return lr }

// State implements Schedule; WarmupDecay has no memory (the base rate is
// the Trainer's).
func (s *WarmupDecay) State() []float64 { return nil }

// LoadState implements Schedule; it accepts only an empty state.
func (s *WarmupDecay) LoadState(st []float64) error { return loadNoState("warmup/decay", st) }

// splitPhases splits a schedule spec at each '+' that starts a phase (a
// '+' followed by a letter, as in warmup:2+cosine:10), not at the sign of
// an exponent (cosine:1e+300).
func splitPhases(spec string) []string {
	var parts []string
	start := 0
	for i := 0; i+1 < len(spec); i++ {
		if c := spec[i+1]; spec[i] == '+' && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			parts = append(parts, spec[start:i])
			start = i + 1
		}
	}
	return append(parts, spec[start:])
}

// parseWarmupDecay reads a spec of warmup:W, cosine:T[:FLOOR],
// linear:T[:FLOOR] parts joined by "+", a warm-up first.
func parseWarmupDecay(spec string) (Schedule, error) {
	var c WarmupDecayConfig
	parts := splitPhases(spec)
	for i, part := range parts {
		kind, rest, _ := strings.Cut(part, ":")
		var args []string
		if strings.Contains(part, ":") {
			args = strings.Split(rest, ":")
		}
		a := &specArgs{spec: spec, args: args}
		switch {
		case kind == "warmup" && i == 0 && len(parts) <= 2:
			a.names = []string{"warm-up epochs"}
			c.Warmup = a.float(0, true)
		case (kind == "cosine" || kind == "linear") && i == len(parts)-1 && len(parts) <= 2:
			a.names = []string{"decay epochs", "floor"}
			c.Decay, c.Epochs, c.Floor = kind, a.float(0, true), a.float(1, false)
		default:
			return nil, errors.Errorf("optim: schedule %q: %q does not fit: write warmup:W, cosine:T[:FLOOR], linear:T[:FLOOR] or warmup:W+cosine:T[:FLOOR] (or +linear)", spec, part)
		}
		if err := a.check(); err != nil {
			return nil, err
		}
		if len(args) == 0 {
			return nil, errors.Errorf("optim: schedule %q: %s needs its length in epochs (%s:N)", spec, kind, kind)
		}
	}
	s, err := NewWarmupDecay(c)
	if err != nil {
		return nil, errors.Errorf("optim: schedule %q: %s", spec, strings.TrimPrefix(err.Error(), "optim: "))
	}
	return s, nil
}
