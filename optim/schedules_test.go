package optim

import (
	"math"
	"strings"
	"testing"
)

// runSchedule feeds valid[e] to s for each epoch e from lr and returns the
// rate for epochs 1, 2, ...
func runSchedule(s Schedule, lr float64, valid []float64) []float64 {
	var out []float64
	for e, v := range valid {
		lr = s.Next(e, lr, v)
		out = append(out, lr)
	}
	return out
}

// nanLosses is n epochs without a validation set.
func nanLosses(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// scheduleTol is the relative rounding allowed between a product of
// factors and its closed form.
const scheduleTol = 1e-14

func closeTo(a, b float64) bool {
	return math.Abs(a-b) <= scheduleTol*math.Max(math.Abs(a), math.Abs(b))
}

func TestConstant(t *testing.T) {
	for i, lr := range runSchedule(Constant{}, 0.3, []float64{1, 2, math.NaN()}) {
		if lr != 0.3 {
			t.Errorf("epoch %d: lr %v, want 0.3", i+1, lr)
		}
	}
}

func TestStepDecay(t *testing.T) {
	s, err := NewStepDecay(StepDecayConfig{StepSize: 3, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	got := runSchedule(s, 1, nanLosses(7))
	for e, lr := range got {
		// Epoch e+1 runs at Gamma^floor((e+1)/StepSize).
		if want := math.Pow(0.5, float64((e+1)/3)); lr != want {
			t.Errorf("epoch %d: lr %v, want %v (all %v)", e+1, lr, want, got)
		}
	}
}

func TestExponentialDecay(t *testing.T) {
	s, err := NewExponentialDecay(ExponentialDecayConfig{Gamma: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	for e, lr := range runSchedule(s, 2, nanLosses(5)) {
		if want := 2 * math.Pow(0.9, float64(e+1)); !closeTo(lr, want) {
			t.Errorf("epoch %d: lr %v, want %v", e+1, lr, want)
		}
	}
}

func TestZeroValueSchedulesUseDefaults(t *testing.T) {
	tests := []struct {
		s    Schedule
		name string
	}{
		{Constant{}, "constant"},
		{&StepDecay{}, "step:10:0.1"},
		{&ExponentialDecay{}, "exp:0.95"},
		{&ReduceOnPlateau{}, "plateau:10:0.1:0:0"},
	}
	for _, tt := range tests {
		if got := tt.s.Name(); got != tt.name {
			t.Errorf("zero %T: Name %q, want %q", tt.s, got, tt.name)
		}
	}
	if lr := (&StepDecay{}).Next(9, 1, 0); lr != 0.1 {
		t.Errorf("zero StepDecay after epoch 9: %v, want 0.1", lr)
	}
}

func TestReduceOnPlateau(t *testing.T) {
	s, err := NewReduceOnPlateau(ReduceOnPlateauConfig{Patience: 2, Factor: 0.5, Threshold: 0.01, MinLR: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	valid := []float64{
		1,          // best 1
		0.995,      // not better by the threshold: bad 1
		math.NaN(), // no validation loss: ignored
		0.999,      // bad 2: reduce to 0.5
		0.9,        // improvement: best 0.9
		0.95, 0.95, // bad 2: reduce to 0.25
		0.95, 0.95, 0.95, // bad 2: reduce, floored at 0.2; bad 1
	}
	want := []float64{1, 1, 1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.2, 0.2}
	got := runSchedule(s, 1, valid)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("rates %v, want %v", got, want)
		}
	}
	if st := s.State(); st[0] != 0.9 || st[1] != 1 {
		t.Errorf("state %v, want [0.9 1]", st)
	}
}

// TestReduceOnPlateauResume checks that a schedule rebuilt from State
// continues exactly as the original.
func TestReduceOnPlateauResume(t *testing.T) {
	c := ReduceOnPlateauConfig{Patience: 3, Factor: 0.3}
	valid := []float64{5, 4, 4.5, 4.2, 4.1, 3, 3.5, 3.5, 3.5, 3.5, 2, 2.5}
	whole, _ := NewReduceOnPlateau(c)
	want := runSchedule(whole, 1, valid)
	for cut := range valid {
		first, _ := NewReduceOnPlateau(c)
		got := runSchedule(first, 1, valid[:cut])
		lr := 1.0
		if cut > 0 {
			lr = got[cut-1]
		}
		second, _ := NewReduceOnPlateau(c)
		if err := second.LoadState(first.State()); err != nil {
			t.Fatal(err)
		}
		for e := cut; e < len(valid); e++ {
			lr = second.Next(e, lr, valid[e])
			got = append(got, lr)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("cut after %d epochs: rates %v, want %v", cut, got, want)
				break
			}
		}
	}
}

func TestScheduleLoadStateErrors(t *testing.T) {
	p, _ := NewReduceOnPlateau(ReduceOnPlateauConfig{})
	tests := []struct {
		s      Schedule
		state  []float64
		substr string
	}{
		{Constant{}, []float64{1}, "no state"},
		{&StepDecay{}, []float64{1}, "no state"},
		{&ExponentialDecay{}, []float64{1, 2}, "no state"},
		{p, []float64{1}, "1 values, want 2"},
		{p, []float64{math.NaN(), 0}, "best loss"},
		{p, []float64{1, 1.5}, "bad-epoch count"},
		{p, []float64{1, -1}, "bad-epoch count"},
	}
	for _, tt := range tests {
		err := tt.s.LoadState(tt.state)
		if err == nil || !strings.Contains(err.Error(), tt.substr) {
			t.Errorf("%s.LoadState(%v): error %v, want one containing %q", tt.s.Name(), tt.state, err, tt.substr)
		}
	}
	for _, s := range []Schedule{Constant{}, &StepDecay{}, &ExponentialDecay{}} {
		if err := s.LoadState(s.State()); err != nil {
			t.Errorf("%s: loading its own state: %v", s.Name(), err)
		}
	}
}

func TestParseSchedule(t *testing.T) {
	tests := []struct {
		spec, name string
	}{
		{"", "constant"},
		{"constant", "constant"},
		{"step:10:0.5", "step:10:0.5"},
		{"step:4", "step:4:0.1"},
		{"step", "step:10:0.1"},
		{"exp:0.95", "exp:0.95"},
		{"exponential:0.5", "exp:0.5"},
		{"exp", "exp:0.95"},
		{"plateau:5:0.1", "plateau:5:0.1:0:0"},
		{"plateau:5:0.5:1e-3:1e-6", "plateau:5:0.5:0.001:1e-06"},
		{"plateau", "plateau:10:0.1:0:0"},
		{"warmup:5", "warmup:5"},
		{"warmup:0.5", "warmup:0.5"},
		{"cosine:30", "cosine:30:0"},
		{"linear:10:0.1", "linear:10:0.1"},
		{"warmup:2+cosine:30:0.05", "warmup:2+cosine:30:0.05"},
		{"warmup:1.5+linear:8", "warmup:1.5+linear:8:0"},
	}
	for _, tt := range tests {
		s, err := ParseSchedule(tt.spec)
		if err != nil {
			t.Errorf("ParseSchedule(%q): %v", tt.spec, err)
			continue
		}
		if s.Name() != tt.name {
			t.Errorf("ParseSchedule(%q).Name() = %q, want %q", tt.spec, s.Name(), tt.name)
		}
		again, err := ParseSchedule(s.Name())
		if err != nil || again.Name() != s.Name() {
			t.Errorf("ParseSchedule(%q) does not round-trip: %v, %v", s.Name(), again, err)
		}
	}
}

func TestParseScheduleErrors(t *testing.T) {
	tests := []struct {
		spec, substr string
	}{
		{"poly", `unknown schedule "poly"`},
		{"cosine", "cosine needs its length in epochs (cosine:N)"},
		{"warmup", "warmup needs its length"},
		{"warmup:0", `warm-up epochs "0" is not positive`},
		{"warmup:x", `warm-up epochs "x" is not a number`},
		{"warmup:1:2", "2 parameters, at most 1"},
		{"cosine:10:1", "floor must be in [0, 1), got 1"},
		{"linear:10:-0.5", "floor must be in [0, 1)"},
		{"cosine:inf", "positive, finite length"},
		{"cosine:10+warmup:2", `"cosine:10" does not fit`},
		{"warmup:1+step:10", `"step:10" does not fit`},
		{"warmup:1+cosine:5+linear:5", "does not fit"},
		{"constant:1", "takes no parameters"},
		{"step:x:0.5", `step size "x" is not a positive integer`},
		{"step:0", `step size "0" is not a positive integer`},
		{"step:10:abc", `gamma "abc" is not a number`},
		{"step:10:0", `gamma "0" is not positive`},
		{"step:10:0.5:3", "3 parameters, at most 2 (step size, gamma)"},
		{"exp:", `gamma "" is not a number`},
		{"exp:-0.5", `gamma "-0.5" is not positive`},
		{"exp:inf", "gamma must be positive and finite"},
		{"plateau:-5", `patience "-5" is not a positive integer`},
		{"plateau:5:2", "factor must be in (0, 1), got 2"},
		{"plateau:5:0.1:-1", "threshold must be >= 0"},
		{"plateau:5:0.1:0:x", `min lr "x" is not a number`},
	}
	for _, tt := range tests {
		_, err := ParseSchedule(tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.substr) || !strings.HasPrefix(err.Error(), "optim: ") {
			t.Errorf("ParseSchedule(%q): error %v, want one containing %q", tt.spec, err, tt.substr)
		}
	}
}

func TestScheduleConfigErrors(t *testing.T) {
	errs := []struct {
		err    error
		substr string
	}{
		{second(NewStepDecay(StepDecayConfig{StepSize: -1})), "step size must be >= 1, got -1"},
		{second(NewStepDecay(StepDecayConfig{Gamma: -1})), "gamma must be positive"},
		{second(NewExponentialDecay(ExponentialDecayConfig{Gamma: math.NaN()})), "gamma must be positive"},
		{second(NewReduceOnPlateau(ReduceOnPlateauConfig{Factor: 1})), "factor must be in (0, 1)"},
		{second(NewReduceOnPlateau(ReduceOnPlateauConfig{Patience: -2})), "patience must be >= 1"},
		{second(NewReduceOnPlateau(ReduceOnPlateauConfig{MinLR: -1})), "min lr must be >= 0"},
	}
	for i, e := range errs {
		if e.err == nil || !strings.Contains(e.err.Error(), e.substr) {
			t.Errorf("case %d: error %v, want one containing %q", i, e.err, e.substr)
		}
	}
}

// second returns the error of a constructor's result pair.
func second[T any](_ T, err error) error { return err }
