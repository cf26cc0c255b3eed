package optim

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/params"
)

func TestTrainerDiverged(t *testing.T) {
	// 24 examples in batches of 8: steps 1-3 are epoch 1, 4-6 epoch 2.
	tests := []struct {
		name   string
		bigAt  int // LossGrad call returning 1e9
		epoch  int
		epochs int // completed before the failure
	}{
		{"second epoch", 5, 2, 1},
		{"first epoch", 2, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ck := filepath.Join(dir, "ck.npz")
			p := newTrProblem(t, 24, 2)
			p.record, p.bigLossAt = true, tc.bigAt
			tr := mustTrainer(t, p, &testSGD{lr: 0.1}, TrainConfig{Epochs: 3, BatchSize: 8, CheckpointPath: ck})
			res, err := tr.Run()
			var de *DivergedError
			if !errors.As(err, &de) || !IsDiverged(err) {
				t.Fatalf("got %v, want a *DivergedError", err)
			}
			if de.Step != tc.bigAt || de.Epoch != tc.epoch || de.Factor != 1e4 || de.Loss != 1e9 {
				t.Fatalf("error %+v", de)
			}
			if want := "diverged at step " + string(rune('0'+tc.bigAt)); !strings.Contains(err.Error(), want) {
				t.Fatalf("message %q lacks %q", err, want)
			}
			if res.Epochs != tc.epochs {
				t.Fatalf("%d epochs completed, want %d", res.Epochs, tc.epochs)
			}
			// The parameters are those before the last step whose loss was good.
			if d := trSameBits(p.params, p.seen[tc.bigAt-2]); d != "" {
				t.Fatalf("parameters not restored: %s", d)
			}
			if tc.epochs == 0 {
				return
			}
			var m trainerMeta
			if _, err := params.LoadNPZ(ck, &m); err != nil || m.Epoch != tc.epochs {
				t.Fatalf("checkpoint: epoch %d, %v", m.Epoch, err)
			}
		})
	}
}

// TestTrainerDivergedRealRate runs plain gradient descent at a rate far
// above 2/L on a least-squares problem: the loss grows geometrically and
// the guard stops it while it is still finite.
func TestTrainerDivergedRealRate(t *testing.T) {
	p := newTrProblem(t, 24, 2)
	_, err := mustTrainer(t, p, &testSGD{lr: 30}, TrainConfig{Epochs: 50, BatchSize: 8, Seed: 1}).Run()
	var de *DivergedError
	if !errors.As(err, &de) {
		t.Fatalf("got %v, want a *DivergedError", err)
	}
	if math.IsInf(de.Loss, 0) || de.Loss <= 1e4*de.Reference {
		t.Fatalf("loss %v against reference %v", de.Loss, de.Reference)
	}
	if err := p.params.Finite(); err != nil {
		t.Fatalf("restored parameters are not finite: %v", err)
	}
}

func TestTrainerDivergeFactor(t *testing.T) {
	t.Run("off", func(t *testing.T) {
		p := newTrProblem(t, 24, 2)
		p.bigLossAt = 5
		if _, err := mustTrainer(t, p, &testSGD{lr: 0.1}, TrainConfig{Epochs: 3, BatchSize: 8, DivergeFactor: math.Inf(1)}).Run(); err != nil {
			t.Fatalf("guard off: %v", err)
		}
	})
	t.Run("tight", func(t *testing.T) {
		// At a small rate every loss stays below 2 x the first epoch's.
		p := newTrProblem(t, 24, 2)
		if _, err := mustTrainer(t, p, &testSGD{lr: 0.01}, TrainConfig{Epochs: 3, BatchSize: 8, DivergeFactor: 2}).Run(); err != nil {
			t.Fatalf("converging run stopped: %v", err)
		}
	})
	for _, f := range []float64{1, 0.5, -1, math.NaN()} {
		if _, err := NewTrainer(newTrProblem(t, 8, 1), &testSGD{lr: 0.1}, TrainConfig{DivergeFactor: f}); err == nil ||
			!strings.Contains(err.Error(), "DivergeFactor") {
			t.Fatalf("DivergeFactor %v: got %v", f, err)
		}
	}
}

// seqProblem returns the losses of seq in turn (the last one from then
// on), with a zero gradient.
type seqProblem struct {
	params *params.Params
	seq    []float64
	calls  int
}

func (p *seqProblem) Params() *params.Params { return p.params }
func (p *seqProblem) NumExamples() int       { return 8 }
func (p *seqProblem) LossGrad(batch []int, grads *params.Params) (float64, error) {
	clear(grads.Data("w"))
	p.calls++
	return p.seq[min(p.calls, len(p.seq))-1], nil
}

// A first loss at the rounding level of float64 counts as
// DivergeReferenceFloor: the small rises after it (rounding noise, an
// optimizer's first steps) are not a divergence, a real rise is, and the
// message says the reference was floored.
func TestTrainerDivergeReferenceFloor(t *testing.T) {
	for _, tc := range []struct {
		seq      []float64
		diverged bool
	}{
		{[]float64{1.76e-31, 9.21e-21, 4.04e-6}, false},
		{[]float64{1.76e-31, 1e-3}, true},
		{[]float64{0, 1e-3}, true},
		{[]float64{1, 2e4}, true},
	} {
		ps := params.New()
		if _, err := ps.Add("w", 1); err != nil {
			t.Fatal(err)
		}
		p := &seqProblem{params: ps, seq: tc.seq}
		_, err := mustTrainer(t, p, &testSGD{lr: 0.1}, TrainConfig{Epochs: 1, BatchSize: 1}).Run()
		if got := IsDiverged(err); got != tc.diverged {
			t.Errorf("losses %v: diverged %v (%v), want %v", tc.seq, got, err, tc.diverged)
		}
		if floored := tc.seq[0] < DivergeReferenceFloor; err != nil && floored != strings.Contains(err.Error(), fmt.Sprintf("x 1e-08 (the first step's %.3g, below that floor)", tc.seq[0])) {
			t.Errorf("losses %v: message %q", tc.seq, err)
		}
	}
}
