package optim

import (
	"math"
	"strconv"
	"strings"

	"github.com/pkg/errors"
)

// Constant keeps the learning rate unchanged. Its zero value is ready to use.
type Constant struct{}

var _ Schedule = Constant{}

// Name implements Schedule; it returns "constant".
func (Constant) Name() string { return "constant" }

// Next implements Schedule; it returns lr.
func (Constant) Next(epoch int, lr, valid float64) float64 { return lr }

// State implements Schedule; Constant has no memory.
func (Constant) State() []float64 { return nil }

// LoadState implements Schedule; it accepts only an empty state.
func (Constant) LoadState(s []float64) error { return loadNoState("constant", s) }

// loadNoState is LoadState for memoryless schedules.
func loadNoState(name string, s []float64) error {
	if len(s) != 0 {
		return errors.Errorf("optim: %s schedule has no state, got %d values", name, len(s))
	}
	return nil
}

// StepDecayConfig configures StepDecay.
type StepDecayConfig struct {
	// StepSize is the number of epochs between decays. If StepSize is 0,
	// it will be defaulted to 10.
	StepSize int
	// Gamma is the factor applied every StepSize epochs. If Gamma is 0, it
	// will be defaulted to 0.1.
	Gamma float64
}

func (c StepDecayConfig) withDefaults() StepDecayConfig {
	if c.StepSize == 0 {
		c.StepSize = 10
	}
	if c.Gamma == 0 {
		c.Gamma = 0.1
	}
	return c
}

// StepDecay multiplies the learning rate by Gamma after every StepSize
// epochs, so epoch e runs at lr₀ Gamma^⌊e/StepSize⌋ (PyTorch's StepLR).
// Its zero value uses the defaults of StepDecayConfig.
type StepDecay struct{ c StepDecayConfig }

var _ Schedule = (*StepDecay)(nil)

// NewStepDecay returns a StepDecay schedule, or an error naming the bad field.
func NewStepDecay(c StepDecayConfig) (*StepDecay, error) {
	c = c.withDefaults()
	if c.StepSize < 0 {
		return nil, errors.Errorf("optim: step size must be >= 1, got %d", c.StepSize)
	}
	if err := checkFactor("gamma", c.Gamma); err != nil {
		return nil, err
	}
	return &StepDecay{c: c}, nil
}

// checkFactor returns an error unless v is positive and finite.
func checkFactor(field string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return errors.Errorf("optim: %s must be positive and finite, got %v", field, v)
	}
	return nil
}

// Name implements Schedule; it returns a spec such as "step:10:0.1" that
// ParseSchedule turns back into the same schedule.
func (s *StepDecay) Name() string {
	c := s.c.withDefaults()
	return "step:" + strconv.Itoa(c.StepSize) + ":" + formatFloat(c.Gamma)
}

// Next implements Schedule.
func (s *StepDecay) Next(epoch int, lr, valid float64) float64 {
	c := s.c.withDefaults()
	if (epoch+1)%c.StepSize == 0 {
		return lr * c.Gamma
	}
	return lr
}

// State implements Schedule; StepDecay has no memory beyond the epoch.
func (s *StepDecay) State() []float64 { return nil }

// LoadState implements Schedule; it accepts only an empty state.
func (s *StepDecay) LoadState(st []float64) error { return loadNoState("step", st) }

// ExponentialDecayConfig configures ExponentialDecay.
type ExponentialDecayConfig struct {
	// Gamma is the factor applied after every epoch. If Gamma is 0, it
	// will be defaulted to 0.95.
	Gamma float64
}

func (c ExponentialDecayConfig) withDefaults() ExponentialDecayConfig {
	if c.Gamma == 0 {
		c.Gamma = 0.95
	}
	return c
}

// ExponentialDecay multiplies the learning rate by Gamma after every
// epoch, so epoch e runs at lr₀ Gammaᵉ. Its zero value uses the defaults
// of ExponentialDecayConfig.
type ExponentialDecay struct{ c ExponentialDecayConfig }

var _ Schedule = (*ExponentialDecay)(nil)

// NewExponentialDecay returns an ExponentialDecay schedule, or an error
// naming the bad field.
func NewExponentialDecay(c ExponentialDecayConfig) (*ExponentialDecay, error) {
	c = c.withDefaults()
	if err := checkFactor("gamma", c.Gamma); err != nil {
		return nil, err
	}
	return &ExponentialDecay{c: c}, nil
}

// Name implements Schedule; it returns a spec such as "exp:0.95".
func (s *ExponentialDecay) Name() string { return "exp:" + formatFloat(s.c.withDefaults().Gamma) }

// Next implements Schedule.
func (s *ExponentialDecay) Next(epoch int, lr, valid float64) float64 {
	return lr * s.c.withDefaults().Gamma
}

// State implements Schedule; ExponentialDecay has no memory.
func (s *ExponentialDecay) State() []float64 { return nil }

// LoadState implements Schedule; it accepts only an empty state.
func (s *ExponentialDecay) LoadState(st []float64) error { return loadNoState("exp", st) }

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// ReduceOnPlateauConfig configures ReduceOnPlateau.
type ReduceOnPlateauConfig struct {
	// Factor multiplies the learning rate at a plateau. If Factor is 0, it
	// will be defaulted to 0.1. It must be in (0, 1).
	Factor float64
	// Patience is the number of consecutive epochs without improvement
	// after which the rate is reduced (Keras's convention: 1 reduces after
	// the first bad epoch). If Patience is 0, it will be defaulted to 10.
	Patience int
	// Threshold is the absolute decrease of the validation loss that
	// counts as an improvement. If Threshold is 0, any decrease counts.
	Threshold float64
	// MinLR is a floor for the learning rate. If MinLR is 0, the rate has
	// no floor.
	MinLR float64
}

func (c ReduceOnPlateauConfig) withDefaults() ReduceOnPlateauConfig {
	if c.Factor == 0 {
		c.Factor = 0.1
	}
	if c.Patience == 0 {
		c.Patience = 10
	}
	return c
}

// ReduceOnPlateau multiplies the learning rate by Factor when the
// validation loss has not improved on its best value by more than
// Threshold for Patience consecutive epochs, never going below MinLR;
// the count of bad epochs then starts again. Its memory (best validation
// loss, bad-epoch count) is its State. An epoch without a validation loss
// (NaN) leaves the rate and the memory unchanged.
//
// Its zero value uses the defaults of ReduceOnPlateauConfig.
type ReduceOnPlateau struct {
	c    ReduceOnPlateauConfig
	best float64 // best validation loss so far, +Inf before the first
	bad  int     // consecutive epochs without improvement
	init bool    // best has been set (the zero value has not)
}

var _ Schedule = (*ReduceOnPlateau)(nil)

// NewReduceOnPlateau returns a ReduceOnPlateau schedule, or an error
// naming the bad field.
func NewReduceOnPlateau(c ReduceOnPlateauConfig) (*ReduceOnPlateau, error) {
	c = c.withDefaults()
	switch {
	case !(c.Factor > 0 && c.Factor < 1):
		return nil, errors.Errorf("optim: factor must be in (0, 1), got %v", c.Factor)
	case c.Patience < 0:
		return nil, errors.Errorf("optim: patience must be >= 1, got %d", c.Patience)
	case !(c.Threshold >= 0) || math.IsInf(c.Threshold, 0):
		return nil, errors.Errorf("optim: threshold must be >= 0 and finite, got %v", c.Threshold)
	case !(c.MinLR >= 0) || math.IsInf(c.MinLR, 0):
		return nil, errors.Errorf("optim: min lr must be >= 0 and finite, got %v", c.MinLR)
	}
	return &ReduceOnPlateau{c: c}, nil
}

// Name implements Schedule; it returns a spec such as
// "plateau:10:0.1:0:0" (patience, factor, threshold, min lr).
func (s *ReduceOnPlateau) Name() string {
	c := s.c.withDefaults()
	return "plateau:" + strconv.Itoa(c.Patience) + ":" + formatFloat(c.Factor) + ":" +
		formatFloat(c.Threshold) + ":" + formatFloat(c.MinLR)
}

// Next implements Schedule.
func (s *ReduceOnPlateau) Next(epoch int, lr, valid float64) float64 {
	if math.IsNaN(valid) {
		return lr
	}
	c := s.c.withDefaults()
	if !s.init {
		s.best, s.init = math.Inf(1), true
	}
	if valid < s.best-c.Threshold {
		s.best, s.bad = valid, 0
		return lr
	}
	s.bad++
	if s.bad < c.Patience {
		return lr
	}
	s.bad = 0
	return math.Max(lr*c.Factor, math.Min(lr, c.MinLR))
}

// State implements Schedule: [best validation loss (+Inf before the
// first), bad-epoch count].
func (s *ReduceOnPlateau) State() []float64 {
	if !s.init {
		return []float64{math.Inf(1), 0}
	}
	return []float64{s.best, float64(s.bad)}
}

// LoadState implements Schedule; st is what State returned.
func (s *ReduceOnPlateau) LoadState(st []float64) error {
	if len(st) != 2 {
		return errors.Errorf("optim: plateau schedule state has %d values, want 2 (best loss, bad epochs)", len(st))
	}
	best, bad := st[0], st[1]
	if math.IsNaN(best) || math.IsInf(best, -1) {
		return errors.Errorf("optim: plateau schedule state: best loss is %v", best)
	}
	if !(bad >= 0) || bad != math.Trunc(bad) || bad > math.MaxInt32 {
		return errors.Errorf("optim: plateau schedule state: bad-epoch count is %v, want a non-negative integer", bad)
	}
	s.best, s.bad, s.init = best, int(bad), true
	return nil
}

// ParseSchedule builds a schedule from a command-line spec: a kind and
// optional colon-separated parameters, omitted ones taking their defaults:
//
//	constant                                        (also the empty string)
//	step[:STEPSIZE[:GAMMA]]                         e.g. step:10:0.5
//	exp[:GAMMA]                                     e.g. exp:0.95 (also "exponential")
//	plateau[:PATIENCE[:FACTOR[:THRESHOLD[:MINLR]]]] e.g. plateau:5:0.1
//	warmup:W                                        linear warm-up over W epochs
//	cosine:T[:FLOOR]                                cosine decay over T epochs to FLOOR x the rate
//	linear:T[:FLOOR]                                linear decay over T epochs to FLOOR x the rate
//	warmup:W+cosine:T[:FLOOR]                       warm-up, then cosine decay (also +linear)
//
// Lengths in epochs may be fractional (warmup:0.5); the last four set the
// rate at every step (WarmupDecay). A schedule's Name is a spec that
// ParseSchedule turns back into it. The error names the part of the spec
// that is wrong.
func ParseSchedule(spec string) (Schedule, error) {
	kind, rest, _ := strings.Cut(spec, ":")
	if kind == "warmup" || kind == "cosine" || kind == "linear" || len(splitPhases(spec)) > 1 {
		return parseWarmupDecay(spec)
	}
	var args []string
	if rest != "" || strings.Contains(spec, ":") {
		args = strings.Split(rest, ":")
	}
	a := &specArgs{spec: spec, args: args}
	var s Schedule
	var err error
	switch kind {
	case "", "constant":
		a.names = nil
		s = Constant{}
	case "step":
		a.names = []string{"step size", "gamma"}
		c := StepDecayConfig{StepSize: a.int(0), Gamma: a.float(1, true)}
		s, err = a.build(func() (Schedule, error) { return NewStepDecay(c) })
	case "exp", "exponential":
		a.names = []string{"gamma"}
		c := ExponentialDecayConfig{Gamma: a.float(0, true)}
		s, err = a.build(func() (Schedule, error) { return NewExponentialDecay(c) })
	case "plateau":
		a.names = []string{"patience", "factor", "threshold", "min lr"}
		c := ReduceOnPlateauConfig{Patience: a.int(0), Factor: a.float(1, true), Threshold: a.float(2, false), MinLR: a.float(3, false)}
		s, err = a.build(func() (Schedule, error) { return NewReduceOnPlateau(c) })
	default:
		return nil, errors.Errorf("optim: unknown schedule %q in %q (known: constant, step, exp, plateau, warmup, cosine, linear)", kind, spec)
	}
	if err == nil {
		err = a.check()
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// specArgs reads the parameters of a schedule spec, keeping the first
// error; a missing parameter reads as 0 (the default).
type specArgs struct {
	spec  string
	args  []string
	names []string // parameter names, in order
	err   error
}

func (a *specArgs) arg(i int) (string, bool) {
	if a.err != nil || i >= len(a.args) {
		return "", false
	}
	return a.args[i], true
}

// int reads parameter i, which must be a positive integer.
func (a *specArgs) int(i int) int {
	s, ok := a.arg(i)
	if !ok {
		return 0
	}
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		a.err = errors.Errorf("optim: schedule %q: %s %q is not a positive integer", a.spec, a.names[i], s)
	}
	return v
}

// float reads parameter i; an explicit 0 is refused when positive is set,
// since it would silently select the default.
func (a *specArgs) float(i int, positive bool) float64 {
	s, ok := a.arg(i)
	if !ok {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil:
		a.err = errors.Errorf("optim: schedule %q: %s %q is not a number", a.spec, a.names[i], s)
	case positive && !(v > 0):
		a.err = errors.Errorf("optim: schedule %q: %s %q is not positive", a.spec, a.names[i], s)
	}
	return v
}

// check reports too many parameters or the first parse error.
func (a *specArgs) check() error {
	if a.err != nil {
		return a.err
	}
	if len(a.names) == 0 && len(a.args) > 0 {
		return errors.Errorf("optim: schedule %q: takes no parameters", a.spec)
	}
	if len(a.args) > len(a.names) {
		return errors.Errorf("optim: schedule %q: %d parameters, at most %d (%s)", a.spec, len(a.args), len(a.names), strings.Join(a.names, ", "))
	}
	return nil
}

// build runs the constructor once the parameters parsed, prefixing its
// error with the spec.
func (a *specArgs) build(f func() (Schedule, error)) (Schedule, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	s, err := f()
	if err != nil {
		return nil, errors.Errorf("optim: schedule %q: %s", a.spec, strings.TrimPrefix(err.Error(), "optim: "))
	}
	return s, nil
}
