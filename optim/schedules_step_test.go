package optim

import (
	"math"
	"path/filepath"
	"testing"
)

// TestWarmupDecayFormulas checks Factor against the formulas written out
// per case: linear warm-up b/W, then the cosine or linear decay from the
// end of the warm-up, then the floor.
func TestWarmupDecayFormulas(t *testing.T) {
	tests := []struct {
		spec string
		want func(a, b float64) float64
	}{
		{"warmup:4", func(a, b float64) float64 { return math.Min(1, b/4) }},
		{"warmup:0.5", func(a, b float64) float64 { return math.Min(1, b/0.5) }},
		{"cosine:10:0.1", func(a, b float64) float64 {
			return 0.1 + 0.9*0.5*(1+math.Cos(math.Pi*math.Min(a, 10)/10))
		}},
		{"linear:6", func(a, b float64) float64 { return 1 - math.Min(a, 6)/6 }},
		{"warmup:2+cosine:8", func(a, b float64) float64 {
			if a < 2 {
				return math.Min(1, b/2)
			}
			return 0.5 * (1 + math.Cos(math.Pi*math.Min(a-2, 8)/8))
		}},
		{"warmup:1+linear:3:0.25", func(a, b float64) float64 {
			if a < 1 {
				return math.Min(1, b)
			}
			return 1 - 0.75*math.Min(a-1, 3)/3
		}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			s, err := ParseSchedule(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			ss := s.(StepSchedule)
			const perEpoch = 7 // steps per epoch
			for k := range 15 * perEpoch {
				a, b := float64(k)/perEpoch, float64(k+1)/perEpoch
				if got, want := ss.Factor(a, b), tt.want(a, b); !closeTo(got, want) && math.Abs(got-want) > 1e-15 {
					t.Fatalf("step %d (%.3f to %.3f epochs): factor %v, want %v", k+1, a, b, got, want)
				}
			}
		})
	}
}

// TestWarmupDecayLandmarks checks values a reader can verify by hand.
func TestWarmupDecayLandmarks(t *testing.T) {
	tests := []struct {
		spec       string
		a, b, want float64
	}{
		{"warmup:4", 0, 0.25, 1.0 / 16},    // first of 16 warm-up steps
		{"warmup:4", 3.75, 4, 1},           // last warm-up step
		{"warmup:4", 9, 9.25, 1},           // after the warm-up
		{"cosine:10:0.1", 0, 0.5, 1},       // the decay starts at the base rate
		{"cosine:10:0.1", 5, 5.5, 0.55},    // half-way: (1 + 0.1) / 2
		{"cosine:10:0.1", 10, 10.5, 0.1},   // the floor
		{"linear:8", 2, 2.5, 0.75},         // a quarter of the way
		{"warmup:2+linear:8", 6, 6.5, 0.5}, // half-way through the decay after the warm-up
		{"warmup:2+linear:8", 12, 13, 0},   // decayed to 0
	}
	for _, tt := range tests {
		s, err := ParseSchedule(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.(StepSchedule).Factor(tt.a, tt.b); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("%s: factor from %v to %v = %v, want %v", tt.spec, tt.a, tt.b, got, tt.want)
		}
	}
}

// TestTrainerStepSchedule checks the rate of every step of a run with 4
// steps per epoch under warmup:1+cosine:2: step k (from 1) runs at
// 0.1 k/4 for k ≤ 4, then at 0.1 (1 + cos(π (k−5)/8)) / 2.
func TestTrainerStepSchedule(t *testing.T) {
	const base = 0.1
	s, err := ParseSchedule("warmup:1+cosine:2")
	if err != nil {
		t.Fatal(err)
	}
	var lrs []float64
	hook := Hook{Name: "rates", EverySteps: 1, Fn: func(s *State) error { lrs = append(lrs, s.LR); return nil }}
	p := newTrProblem(t, 16, 3)
	tr := mustTrainer(t, p, &testSGD{lr: base}, TrainConfig{Epochs: 4, BatchSize: 4, Schedule: s, Hooks: []Hook{hook}})
	res, err := tr.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(lrs) != 16 {
		t.Fatalf("%d steps, want 16", len(lrs))
	}
	for i, lr := range lrs {
		k := float64(i + 1)
		want := base * k / 4
		if k > 4 {
			want = base * 0.5 * (1 + math.Cos(math.Pi*math.Min(k-5, 8)/8))
		}
		if math.Abs(lr-want) > 1e-15 {
			t.Errorf("step %v: lr %v, want %v", k, lr, want)
		}
	}
	for e, h := range res.History { // an epoch reports its first step's rate
		if h.LR != lrs[4*e] {
			t.Errorf("epoch %d: LR %v, want its first step's %v", e+1, h.LR, lrs[4*e])
		}
	}
}

// TestTrainerStepScheduleDecayedToZero resumes a run whose cosine decay
// has reached a rate of 0 at the checkpoint.
func TestTrainerStepScheduleDecayedToZero(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "ck.npz")
	s, err := ParseSchedule("cosine:1")
	if err != nil {
		t.Fatal(err)
	}
	cfg := TrainConfig{Epochs: 2, BatchSize: 4, Schedule: s, CheckpointPath: ck}
	if _, err := mustTrainer(t, newTrProblem(t, 8, 3), &testSGD{lr: 0.1}, cfg).Run(); err != nil {
		t.Fatal(err)
	}
	cfg.Epochs = 3
	tr := mustTrainer(t, newTrProblem(t, 8, 3), &testSGD{lr: 0.1}, cfg)
	if err := tr.Resume(ck); err != nil {
		t.Fatalf("resuming at rate 0: %v", err)
	}
	if tr.baseLR != 0.1 {
		t.Errorf("base rate %v after Resume, want 0.1", tr.baseLR)
	}
}

// TestTrainerEvaluatesAverage checks that with schedule-free AdamW the
// Trainer validates the average x, not the gradient point y that the
// parameters hold during training, and leaves x at the end.
func TestTrainerEvaluatesAverage(t *testing.T) {
	p := newTrProblem(t, 40, 4)
	opt, err := New("schedulefree", Config{LR: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var lastX, lastY []float64
	hook := Hook{Name: "check", EveryEpoch: true, Fn: func(s *State) error {
		var atX float64
		if err := EvalAt(opt, s.Params, func() (err error) { atX, err = p.ValidationLoss(); return err }); err != nil {
			return err
		}
		if s.Stats.ValidLoss != atX {
			t.Errorf("epoch %d: validation loss %v, want %v (at x)", s.Epoch, s.Stats.ValidLoss, atX)
		}
		atY, err := p.ValidationLoss()
		if err != nil {
			return err
		}
		if atY == atX {
			t.Errorf("epoch %d: y and x validate alike (%v): the test cannot tell them apart", s.Epoch, atY)
		}
		x := s.Params.Like()
		if err := opt.(Averager).EvalParams(x, s.Params); err != nil {
			return err
		}
		lastX, lastY = x.Data("W"), append([]float64(nil), s.Params.Data("W")...)
		return nil
	}}
	res, err := mustTrainer(t, p, opt, TrainConfig{Epochs: 4, BatchSize: 8, Seed: 2, Hooks: []Hook{hook}}).Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.BestEpoch != 4 {
		t.Fatalf("best epoch %d, want the last (4) for this check", res.BestEpoch)
	}
	for i, w := range p.params.Data("W") {
		if w != lastX[i] {
			t.Fatalf("final W %v, want the last epoch's x %v (y was %v)", p.params.Data("W"), lastX, lastY)
		}
	}
}
