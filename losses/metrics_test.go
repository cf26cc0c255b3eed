package losses_test

import (
	"math"
	"testing"

	"github.com/rtnlab/rtn/losses"
)

// Four frames of four notes, counted by hand:
//
//	frame 1: TP 1 (note 0), FP 1 (note 2), FN 1 (note 1) -> 1/3
//	frame 2: nothing predicted, nothing present       -> empty
//	frame 3: TP 2 (0.5 counts as on)                  -> 1
//	frame 4: FN 1                                     -> 0
//
// Pooled: TP 3, FP 1, FN 2 -> 3/6. Framewise: (1/3 + 1 + 0) / 3 = 4/9.
var (
	framePred = []float64{
		0.9, 0.2, 0.6, 0.1,
		0.1, 0.1, 0.1, 0.1,
		0.5, 0.7, 0, 0,
		0, 0, 0, 0,
	}
	frameTarget = []float64{
		1, 1, 0, 0,
		0, 0, 0, 0,
		1, 1, 0, 0,
		0, 0, 0, 1,
	}
)

const metricTol = 1e-15

func checkFrameAccuracy(t *testing.T, a *losses.FrameAccuracy) {
	t.Helper()
	if a.TP != 3 || a.FP != 1 || a.FN != 2 || a.Frames != 4 || a.Empty != 1 {
		t.Errorf("counts TP %d FP %d FN %d frames %d empty %d, want 3 1 2 4 1", a.TP, a.FP, a.FN, a.Frames, a.Empty)
	}
	if got := a.Accuracy(); math.Abs(got-0.5) > metricTol {
		t.Errorf("Accuracy %v, want 0.5", got)
	}
	if got := a.FramewiseAccuracy(); math.Abs(got-4.0/9) > metricTol {
		t.Errorf("FramewiseAccuracy %v, want 4/9", got)
	}
}

func TestFrameAccuracy(t *testing.T) {
	t.Run("AddFrame", func(t *testing.T) {
		var a losses.FrameAccuracy
		for f := 0; f < 4; f++ {
			if err := a.AddFrame(framePred[4*f:4*f+4], frameTarget[4*f:4*f+4]); err != nil {
				t.Fatal(err)
			}
		}
		checkFrameAccuracy(t, &a)
	})
	t.Run("AddFrames", func(t *testing.T) {
		var a losses.FrameAccuracy
		if err := a.AddFrames(framePred, frameTarget, 4); err != nil {
			t.Fatal(err)
		}
		checkFrameAccuracy(t, &a)
	})
	t.Run("AddBoolFrame", func(t *testing.T) {
		var a losses.FrameAccuracy
		for f := 0; f < 4; f++ {
			p, q := make([]bool, 4), make([]bool, 4)
			for k := range p {
				p[k] = framePred[4*f+k] >= 0.5
				q[k] = frameTarget[4*f+k] == 1
			}
			if err := a.AddBoolFrame(p, q); err != nil {
				t.Fatal(err)
			}
		}
		checkFrameAccuracy(t, &a)
	})
	t.Run("Merge", func(t *testing.T) {
		var a, c losses.FrameAccuracy
		if err := a.AddFrames(framePred[:8], frameTarget[:8], 4); err != nil {
			t.Fatal(err)
		}
		if err := c.AddFrames(framePred[8:], frameTarget[8:], 4); err != nil {
			t.Fatal(err)
		}
		a.Merge(&c)
		checkFrameAccuracy(t, &a)
	})
	t.Run("Threshold", func(t *testing.T) {
		// At 0.8 frame 1 keeps note 0 (TP) and loses note 2; the target of
		// note 1 is still on (FN): 1/2.
		a := losses.FrameAccuracy{Threshold: 0.8}
		if err := a.AddFrame(framePred[:4], frameTarget[:4]); err != nil {
			t.Fatal(err)
		}
		if a.TP != 1 || a.FP != 0 || a.FN != 1 || a.Accuracy() != 0.5 || a.FramewiseAccuracy() != 0.5 {
			t.Errorf("got TP %d FP %d FN %d, accuracies %v %v; want 1 0 1, 0.5 0.5", a.TP, a.FP, a.FN, a.Accuracy(), a.FramewiseAccuracy())
		}
	})
}

func TestFrameAccuracyEmpty(t *testing.T) {
	var a losses.FrameAccuracy
	if a.Accuracy() != 1 || a.FramewiseAccuracy() != 1 {
		t.Errorf("no frames: accuracies %v %v, want 1 1", a.Accuracy(), a.FramewiseAccuracy())
	}
	if err := a.AddFrames([]float64{0, 0.2, 0.4, 0.1}, []float64{0, 0, 0, 0}, 2); err != nil {
		t.Fatal(err)
	}
	if a.Frames != 2 || a.Empty != 2 || a.Accuracy() != 1 || a.FramewiseAccuracy() != 1 {
		t.Errorf("only empty frames: frames %d empty %d, accuracies %v %v, want 2 2 1 1", a.Frames, a.Empty, a.Accuracy(), a.FramewiseAccuracy())
	}
	// One all-wrong frame after the empty ones: both measures drop to 0,
	// because empty frames count for nothing.
	if err := a.AddFrame([]float64{1, 0}, []float64{0, 1}); err != nil {
		t.Fatal(err)
	}
	if a.Accuracy() != 0 || a.FramewiseAccuracy() != 0 {
		t.Errorf("accuracies %v %v, want 0 0", a.Accuracy(), a.FramewiseAccuracy())
	}
}

func TestFrameAccuracyErrors(t *testing.T) {
	tests := []struct {
		name         string
		pred, target []float64
		notes        int
	}{
		{"lengths differ", []float64{1, 0}, []float64{1}, 1},
		{"ragged frames", []float64{1, 0, 1}, []float64{1, 0, 1}, 2},
		{"zero notes", []float64{1}, []float64{1}, 0},
		{"NaN", []float64{1, math.NaN()}, []float64{1, 0}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var a losses.FrameAccuracy
			if err := a.AddFrames(tc.pred, tc.target, tc.notes); err == nil {
				t.Fatal("no error")
			}
			if a.Frames != 0 || a.TP != 0 {
				t.Errorf("a failed call added frames: %+v", a)
			}
		})
	}
	var a losses.FrameAccuracy
	if err := a.AddBoolFrame([]bool{true}, nil); err == nil || a.Frames != 0 {
		t.Errorf("AddBoolFrame with lengths 1 and 0: error %v, frames %d", err, a.Frames)
	}
}

func TestConversions(t *testing.T) {
	tests := []struct {
		name      string
		got, want float64
	}{
		{"NatsToBits(ln 2)", losses.NatsToBits(math.Ln2), 1},
		{"BitsToNats(1)", losses.BitsToNats(1), math.Ln2},
		{"round trip", losses.BitsToNats(losses.NatsToBits(3.7)), 3.7},
		{"PerSymbol(10, 4)", losses.PerSymbol(10, 4), 2.5},
		{"PerSequence(2.5, 4)", losses.PerSequence(2.5, 4), 10},
		// A uniform choice among 26 letters costs log 26 nats: perplexity 26.
		{"Perplexity(log 26)", losses.Perplexity(math.Log(26)), 26},
		{"Perplexity(0)", losses.Perplexity(0), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if math.Abs(tc.got-tc.want) > 1e-14*math.Max(1, math.Abs(tc.want)) {
				t.Errorf("got %.17g, want %.17g", tc.got, tc.want)
			}
		})
	}
	if !math.IsNaN(losses.PerSymbol(1, 0)) {
		t.Error("PerSymbol(1, 0) is not NaN")
	}
}

func TestPAutomaCPerplexity(t *testing.T) {
	target := []float64{0.5, 0.25, 0.25}
	// At Q = P* the score is 2^H(P*) = 2^1.5, whatever the scale of Q.
	got, err := losses.PAutomaCPerplexity(target, []float64{2, 1, 1})
	if err != nil || math.Abs(got-math.Pow(2, 1.5)) > 1e-12 {
		t.Fatalf("%v %v", got, err)
	}
	// A uniform model scores 3 on any target.
	got, err = losses.PAutomaCPerplexity(target, []float64{1, 1, 1})
	if err != nil || math.Abs(got-3) > 1e-12 {
		t.Fatalf("%v %v", got, err)
	}
	for _, m := range [][]float64{{1, 0, 1}, {1, math.NaN(), 1}, {1, -1, 1}, {1, 1}} {
		if _, err := losses.PAutomaCPerplexity(target, m); err == nil {
			t.Fatalf("%v accepted", m)
		}
	}
}
