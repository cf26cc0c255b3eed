package losses

import (
	"math"

	"github.com/pkg/errors"
)

// FrameAccuracy accumulates the frame-level accuracy of polyphonic
// transcription (Bay, Ehmann and Downie, ISMIR 2009), as reported for piano
// rolls by Boulanger-Lewandowski et al. (2012). A frame is one time step of
// a piano roll; a note is predicted when its probability is >= Threshold.
// Per frame, TP counts notes predicted and present, FP notes predicted but
// absent, FN notes present but not predicted.
//
// The zero value is ready to use.
type FrameAccuracy struct {
	// Threshold is the probability from which a note counts as on, in
	// predictions and targets alike. If Threshold is 0, it will be defaulted
	// to 0.5.
	Threshold float64

	// TP, FP and FN are the counts summed over every frame added.
	TP, FP, FN int
	// Frames counts the frames added; Empty counts those with no note
	// predicted and none present (TP + FP + FN = 0).
	Frames, Empty int

	frameSum float64 // sum over non-empty frames of TP/(TP+FP+FN)
}

func (a *FrameAccuracy) threshold() float64 {
	if a.Threshold == 0 {
		return 0.5
	}
	return a.Threshold
}

// AddFrame adds one frame. pred holds note probabilities, target the true
// notes (0 or 1); both have one entry per note. It returns an error, and
// adds nothing, if the lengths differ or pred holds a NaN.
func (a *FrameAccuracy) AddFrame(pred, target []float64) error {
	return a.AddFrames(pred, target, len(pred))
}

// AddFrames adds a batch of frames stored row-major: frame f is
// pred[f*notes : (f+1)*notes], likewise for target. It returns an error,
// and adds nothing, if the lengths differ or are not a multiple of notes,
// or if pred holds a NaN.
func (a *FrameAccuracy) AddFrames(pred, target []float64, notes int) error {
	if len(pred) != len(target) {
		return errors.Errorf("losses: %d predictions for %d targets", len(pred), len(target))
	}
	if notes <= 0 || len(pred)%notes != 0 {
		return errors.Errorf("losses: %d values do not split into frames of %d notes", len(pred), notes)
	}
	for i, p := range pred {
		if math.IsNaN(p) {
			return errors.Errorf("losses: prediction %d is NaN", i)
		}
	}
	th := a.threshold()
	for f := 0; f < len(pred); f += notes {
		var tp, fp, fn int
		for k := f; k < f+notes; k++ {
			p, t := pred[k] >= th, target[k] >= th
			switch {
			case p && t:
				tp++
			case p:
				fp++
			case t:
				fn++
			}
		}
		a.add(tp, fp, fn)
	}
	return nil
}

// AddBoolFrame adds one frame given as predicted and true note sets. It
// returns an error, and adds nothing, if the lengths differ.
func (a *FrameAccuracy) AddBoolFrame(pred, target []bool) error {
	if len(pred) != len(target) {
		return errors.Errorf("losses: %d predictions for %d targets", len(pred), len(target))
	}
	var tp, fp, fn int
	for k, p := range pred {
		switch t := target[k]; {
		case p && t:
			tp++
		case p:
			fp++
		case t:
			fn++
		}
	}
	a.add(tp, fp, fn)
	return nil
}

func (a *FrameAccuracy) add(tp, fp, fn int) {
	a.TP += tp
	a.FP += fp
	a.FN += fn
	a.Frames++
	if d := tp + fp + fn; d == 0 {
		a.Empty++
	} else {
		a.frameSum += float64(tp) / float64(d)
	}
}

// Merge adds the counts of o (accumulated with the same threshold, say on
// another goroutine) to a.
func (a *FrameAccuracy) Merge(o *FrameAccuracy) {
	a.TP += o.TP
	a.FP += o.FP
	a.FN += o.FN
	a.Frames += o.Frames
	a.Empty += o.Empty
	a.frameSum += o.frameSum
}

// Accuracy is the accuracy over all frames pooled, the measure reported in
// the literature: sum TP / sum (TP + FP + FN). Empty frames add nothing to
// the numerator or the denominator, so silence predicted as silence is
// neither rewarded nor penalised. If the denominator is 0 (no frames, or
// only empty ones) it returns 1: nothing was missed or invented.
func (a *FrameAccuracy) Accuracy() float64 {
	d := a.TP + a.FP + a.FN
	if d == 0 {
		return 1
	}
	return float64(a.TP) / float64(d)
}

// FramewiseAccuracy is the mean over frames of TP / (TP + FP + FN),
// skipping empty frames (they count neither as 0 nor as 1). Unlike
// Accuracy it weights every non-empty frame equally, whatever its number
// of notes. If every frame is empty (or none was added) it returns 1.
func (a *FrameAccuracy) FramewiseAccuracy() float64 {
	n := a.Frames - a.Empty
	if n == 0 {
		return 1
	}
	return a.frameSum / float64(n)
}

// NatsToBits converts a log-likelihood or a loss from nats to bits
// (divides by ln 2).
func NatsToBits(nats float64) float64 { return nats / math.Ln2 }

// BitsToNats converts a log-likelihood or a loss from bits to nats
// (multiplies by ln 2).
func BitsToNats(bits float64) float64 { return bits * math.Ln2 }

// PerSymbol is the average loss per symbol (per frame for piano rolls)
// when total is the summed loss over n symbols, in total's units. It
// returns NaN for n <= 0.
func PerSymbol(total float64, n int) float64 {
	if n <= 0 {
		return math.NaN()
	}
	return total / float64(n)
}

// PerSequence is the loss of a sequence of the given length (or the mean
// loss per sequence, for the mean length of a data set) from the average
// loss per symbol, in perSymbol's units.
func PerSequence(perSymbol, length float64) float64 { return perSymbol * length }

// Perplexity is exp(natsPerSymbol), the effective number of equally
// likely choices per symbol; natsPerSymbol is a mean negative
// log-likelihood in nats (see PerSymbol, BitsToNats).
func Perplexity(natsPerSymbol float64) float64 { return math.Exp(natsPerSymbol) }

// PAutomaCPerplexity is the PAutomaC competition score of a model on a test
// set: 2^(-sum_x P*(x) log2 Q(x)), where target holds the true probabilities
// P* of the test strings and model the model's probabilities Q, each
// normalised here to sum to 1 over the test set. Lower is better; its
// minimum, reached at Q = P*, is 2 to the entropy of the normalised target.
// Values must be finite and >= 0 with a positive sum, and model must be
// positive wherever target is (a model that gives zero to a string the
// target can produce has an infinite score; floor its values first).
func PAutomaCPerplexity(target, model []float64) (float64, error) {
	if len(target) != len(model) || len(target) == 0 {
		return 0, errors.Errorf("losses: perplexity of %d target and %d model values", len(target), len(model))
	}
	var st, sm float64
	for i := range target {
		t, m := target[i], model[i]
		if math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
			return 0, errors.Errorf("losses: target probability %d is %g", i, t)
		}
		if math.IsNaN(m) || math.IsInf(m, 0) || m < 0 {
			return 0, errors.Errorf("losses: model probability %d is %g", i, m)
		}
		st += t
		sm += m
	}
	if st <= 0 || sm <= 0 {
		return 0, errors.Errorf("losses: probabilities sum to %g (target) and %g (model)", st, sm)
	}
	var h float64
	for i := range target {
		if target[i] == 0 {
			continue
		}
		if model[i] == 0 {
			return 0, errors.Errorf("losses: model probability %d is 0 where the target's is %g", i, target[i])
		}
		h -= target[i] / st * math.Log2(model[i]/sm)
	}
	return math.Exp2(h), nil
}
