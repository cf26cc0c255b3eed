package umps

import (
	"math"

	"github.com/pkg/errors"
)

// LengthModel is a distribution pi over string lengths that turns a
// per-length u-MPS (trained on P_n) into a distribution over all strings,
// P(s) = pi(|s|) P_|s|(s). FitLengths builds it from training lengths as
// the empirical distribution mixed with a geometric one of the same mean:
//
//	pi(n) = (1 - Mix) count(n)/N + Mix (1 - Ratio) Ratio^n,
//
// Mix = 1/(N+1) (one pseudo-string spread geometrically) and Ratio =
// mu/(mu+1) for the mean training length mu. Beyond the longest training
// length L = len(Probs)-1 only the geometric part remains, so the tail
// pi(n > L) = Mix Ratio^(L+1) decays by Ratio per symbol: every length
// keeps a positive probability and a test string longer than any training
// string is not given zero.
type LengthModel struct {
	// Probs holds pi(n) for n = 0..L.
	Probs []float64 `json:"probs"`
	// Mix is the weight of the geometric part.
	Mix float64 `json:"mix"`
	// Ratio is the geometric part's ratio pi(n+1)/pi(n), in [0, 1).
	Ratio float64 `json:"ratio"`
}

// lengthTailEps is the length-model mass left out when a sum over lengths
// is truncated (LengthModel.Horizon).
const lengthTailEps = 1e-16

// maxHorizon bounds the lengths a sum over the length model runs to.
const maxHorizon = 1 << 16

// FitLengths returns the length model of the given training lengths (see
// LengthModel). It fails on an empty or negative length.
func FitLengths(lengths []int) (*LengthModel, error) {
	if len(lengths) == 0 {
		return nil, errors.New("umps: no lengths to fit a length model to")
	}
	L, sum := 0, 0.0
	for _, n := range lengths {
		if n < 0 {
			return nil, errors.Errorf("umps: negative length %d", n)
		}
		L = max(L, n)
		sum += float64(n)
	}
	N := float64(len(lengths))
	mu := sum / N
	lm := &LengthModel{Probs: make([]float64, L+1), Mix: 1 / (N + 1), Ratio: mu / (mu + 1)}
	for _, n := range lengths {
		lm.Probs[n] += (1 - lm.Mix) / N
	}
	g := lm.Mix * (1 - lm.Ratio)
	for n := range lm.Probs {
		lm.Probs[n] += g
		g *= lm.Ratio
	}
	return lm, lm.Validate()
}

// Validate checks that the model is a distribution: probabilities in
// [0, 1], Mix in [0, 1], Ratio in [0, 1), and a total of 1 within 1e-9.
func (lm *LengthModel) Validate() error {
	if lm == nil || len(lm.Probs) == 0 {
		return errors.New("umps: empty length model")
	}
	if !(lm.Mix >= 0 && lm.Mix <= 1) || !(lm.Ratio >= 0 && lm.Ratio < 1) {
		return errors.Errorf("umps: length model with mix %v and ratio %v, want mix in [0, 1] and ratio in [0, 1)", lm.Mix, lm.Ratio)
	}
	total := lm.tail(len(lm.Probs) - 1)
	for n, p := range lm.Probs {
		if !(p >= 0 && p <= 1) {
			return errors.Errorf("umps: length model gives length %d probability %v", n, p)
		}
		total += p
	}
	if math.Abs(total-1) > 1e-9 {
		return errors.Errorf("umps: length model sums to %v, want 1", total)
	}
	return nil
}

// tail is pi(lengths > n) for n >= L.
func (lm *LengthModel) tail(n int) float64 {
	return lm.Mix * math.Pow(lm.Ratio, float64(n+1))
}

// LogProb returns log pi(n), -Inf for a negative n.
func (lm *LengthModel) LogProb(n int) float64 {
	switch {
	case n < 0:
		return math.Inf(-1)
	case n < len(lm.Probs):
		return math.Log(lm.Probs[n])
	}
	return math.Log(lm.Mix*(1-lm.Ratio)) + float64(n)*math.Log(lm.Ratio)
}

// Horizon returns the length N beyond which the model leaves less than
// 1e-16 of its mass: sums over lengths run over 0..N. It fails if that
// takes more than 65,536 lengths.
func (lm *LengthModel) Horizon() (int, error) {
	L := len(lm.Probs) - 1
	if lm.tail(L) <= lengthTailEps {
		return L, nil
	}
	n := L + int(math.Ceil(math.Log(lengthTailEps/lm.tail(L))/math.Log(lm.Ratio)))
	if n > maxHorizon {
		return 0, errors.Errorf("umps: the length model's tail (ratio %v) needs lengths up to %d, limit %d", lm.Ratio, n, maxHorizon)
	}
	return n, nil
}
