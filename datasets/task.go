package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pkg/errors"
)

// TargetKind says how a task's targets are read.
type TargetKind int

const (
	// Categorical targets are one class id per step, in [0, Out); the loss
	// is the categorical negative log-likelihood (softmax output).
	Categorical TargetKind = iota
	// Binary targets are Out values in [0, 1] per step (usually 0 or 1);
	// the loss is the sum of Out Bernoulli negative log-likelihoods.
	Binary
	// Real targets are Out real values per step (regression, e.g. MSE).
	Real
)

// String returns "categorical", "binary" or "real".
func (k TargetKind) String() string {
	switch k {
	case Categorical:
		return "categorical"
	case Binary:
		return "binary"
	case Real:
		return "real"
	}
	return fmt.Sprintf("TargetKind(%d)", int(k))
}

// Example is one sequence of T steps. X holds T*In inputs, step-major
// (step t is X[t*In:(t+1)*In]). For Binary and Real tasks Y holds T*Out
// targets, step-major; for Categorical tasks Y holds T class ids stored as
// float64 (Y[t] is the class of step t).
type Example struct {
	X, Y []float64
	T    int
}

// Task is a supervised sequence task: a model reads X step by step and
// predicts Y at every step.
type Task struct {
	// Name identifies the task in logs and reports.
	Name string
	// In is the input width; Out is the output width, the number of
	// classes for a Categorical task.
	In, Out int
	// Kind says how targets are read.
	Kind TargetKind
	// Train, Valid and Test are the three splits; Valid and Test may be
	// empty.
	Train, Valid, Test []Example
	// OptimalLoss is the best achievable mean per-step loss on Valid in
	// nats (the sum over all Valid steps divided by their number), e.g.
	// the true model's negative log-likelihood for a synthetic task; NaN
	// when unknown.
	OptimalLoss float64
	// Symbols optionally names the classes of a Categorical symbol task
	// (len(Symbols) == Out); nil when the classes have no names.
	Symbols []string
}

// Validate checks that the task's widths and kind are valid and that every
// example has T > 0, len(X) == T*In, the right number of targets, finite
// values, class ids that are integers in [0, Out) (Categorical) and
// targets in [0, 1] (Binary). The error names the first bad example.
func (t *Task) Validate() error {
	if t == nil {
		return errors.Errorf("datasets: nil task")
	}
	if t.In < 1 || t.Out < 1 {
		return errors.Errorf("datasets: task %q: In = %d, Out = %d, want both >= 1", t.Name, t.In, t.Out)
	}
	if t.Kind < Categorical || t.Kind > Real {
		return errors.Errorf("datasets: task %q: unknown target kind %d", t.Name, int(t.Kind))
	}
	if t.Symbols != nil && (t.Kind != Categorical || len(t.Symbols) != t.Out) {
		return errors.Errorf("datasets: task %q: %d symbol names for a %s task with Out = %d", t.Name, len(t.Symbols), t.Kind, t.Out)
	}
	for _, s := range []struct {
		name string
		exs  []Example
	}{{"train", t.Train}, {"valid", t.Valid}, {"test", t.Test}} {
		for i, ex := range s.exs {
			if err := t.checkExample(ex); err != nil {
				return errors.Errorf("datasets: task %q: %s example %d: %v", t.Name, s.name, i, err)
			}
		}
	}
	return nil
}

// checkExample checks one example against the task's shapes; the error
// carries no prefix so that callers can say where the example came from.
func (t *Task) checkExample(ex Example) error {
	if ex.T < 1 {
		return errors.Errorf("T = %d, want >= 1", ex.T)
	}
	if len(ex.X) != ex.T*t.In {
		return errors.Errorf("len(X) = %d, want T*In = %d*%d = %d", len(ex.X), ex.T, t.In, ex.T*t.In)
	}
	for j, x := range ex.X {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.Errorf("X at step %d unit %d is %g", j/t.In, j%t.In, x)
		}
	}
	if t.Kind == Categorical {
		if len(ex.Y) != ex.T {
			return errors.Errorf("len(Y) = %d, want T = %d class ids", len(ex.Y), ex.T)
		}
		for s, y := range ex.Y {
			if y != math.Trunc(y) || y < 0 || y >= float64(t.Out) {
				return errors.Errorf("class id %g at step %d is not an integer in [0, %d)", y, s, t.Out)
			}
		}
		return nil
	}
	if len(ex.Y) != ex.T*t.Out {
		return errors.Errorf("len(Y) = %d, want T*Out = %d*%d = %d", len(ex.Y), ex.T, t.Out, ex.T*t.Out)
	}
	for j, y := range ex.Y {
		if math.IsNaN(y) || math.IsInf(y, 0) || (t.Kind == Binary && (y < 0 || y > 1)) {
			return errors.Errorf("%s target %g at step %d unit %d is out of range", t.Kind, y, j/t.Out, j%t.Out)
		}
	}
	return nil
}

// NumSteps is the total number of steps of exs (the denominator of a
// per-step loss).
func NumSteps(exs []Example) int {
	n := 0
	for _, ex := range exs {
		n += ex.T
	}
	return n
}

// Lengths returns the T of every example, e.g. for BucketBatches.
func Lengths(exs []Example) []int {
	l := make([]int, len(exs))
	for i, ex := range exs {
		l[i] = ex.T
	}
	return l
}

// Classes returns the targets of Categorical examples as class ids:
// Classes(exs)[i][t] = int(exs[i].Y[t]). Under the BOS convention of
// SymbolExamples these are the original symbol sequences.
func Classes(exs []Example) [][]int {
	out := make([][]int, len(exs))
	for i, ex := range exs {
		out[i] = make([]int, len(ex.Y))
		for t, y := range ex.Y {
			out[i][t] = int(y)
		}
	}
	return out
}

// SymbolExamples turns symbol sequences into next-symbol examples with a
// begin-of-sequence (BOS) marker, so that every symbol is predicted: for a
// sequence s of length T over V symbols the example has T steps, In = V+1
// inputs and Out = V classes, with input x_0 = onehot(V) (the BOS marker),
// x_t = onehot(s_{t-1}) for 0 < t < T, and target y_t = s_t for every t.
// No end-of-sequence symbol is predicted: lengths are taken as given.
func SymbolExamples(s Symbols) ([]Example, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	v := len(s.Alphabet)
	in := v + 1
	exs := make([]Example, len(s.Seqs))
	for i, seq := range s.Seqs {
		T := len(seq)
		x := make([]float64, T*in)
		y := make([]float64, T)
		x[v] = 1
		for t, id := range seq {
			if t+1 < T {
				x[(t+1)*in+id] = 1
			}
			y[t] = float64(id)
		}
		exs[i] = Example{X: x, Y: y, T: T}
	}
	return exs, nil
}

// FrameExamples turns binary frame sequences into next-frame examples: a
// sequence of T frames of width K gives an example of T-1 steps with
// In = Out = K, input frame t and target frame t+1. The first frame is
// never a target. Every sequence needs at least 2 frames. The examples
// share memory with f.
func FrameExamples(f Frames) ([]Example, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return shiftExamples("frame", f.Width, f.Seqs)
}

// VectorExamples is FrameExamples for real vectors: input vector t, target
// vector t+1, T-1 steps of width Dim. The examples share memory with v.
func VectorExamples(v Vectors) ([]Example, error) {
	if err := v.Validate(); err != nil {
		return nil, err
	}
	return shiftExamples("vector", v.Dim, v.Seqs)
}

// shiftExamples pairs step t with step t+1 of validated flat sequences.
func shiftExamples(kind string, w int, seqs [][]float64) ([]Example, error) {
	exs := make([]Example, len(seqs))
	for i, seq := range seqs {
		T := len(seq)/w - 1
		if T < 1 {
			return nil, errors.Errorf("datasets: %s sequence %d has %d step, want >= 2 for next-step prediction", kind, i, T+1)
		}
		exs[i] = Example{X: seq[: T*w : T*w], Y: seq[w:], T: T}
	}
	return exs, nil
}

// NextSymbol builds a Categorical next-symbol task from s (see
// SymbolExamples for the BOS convention: In = V+1, Out = V, every symbol is
// a target), held out by SplitExamples(exs, validFrac, testFrac, rng).
// OptimalLoss is NaN.
func NextSymbol(name string, s Symbols, validFrac, testFrac float64, rng *rand.Rand) (*Task, error) {
	exs, err := SymbolExamples(s)
	if err != nil {
		return nil, err
	}
	v := len(s.Alphabet)
	t := &Task{Name: name, In: v + 1, Out: v, Kind: Categorical, OptimalLoss: math.NaN(),
		Symbols: append([]string(nil), s.Alphabet...)}
	if t.Train, t.Valid, t.Test, err = SplitExamples(exs, validFrac, testFrac, rng); err != nil {
		return nil, err
	}
	return t, nil
}

// NextFrame builds a Binary next-frame task from f (see FrameExamples:
// input frame t, target frame t+1, In = Out = Width), held out by
// SplitExamples(exs, validFrac, testFrac, rng). OptimalLoss is NaN. The
// examples share memory with f.
func NextFrame(name string, f Frames, validFrac, testFrac float64, rng *rand.Rand) (*Task, error) {
	exs, err := FrameExamples(f)
	if err != nil {
		return nil, err
	}
	return shiftTask(name, Binary, f.Width, exs, validFrac, testFrac, rng)
}

// NextVector builds a Real next-vector task from v (see VectorExamples),
// held out by SplitExamples(exs, validFrac, testFrac, rng). OptimalLoss is
// NaN. The examples share memory with v.
func NextVector(name string, v Vectors, validFrac, testFrac float64, rng *rand.Rand) (*Task, error) {
	exs, err := VectorExamples(v)
	if err != nil {
		return nil, err
	}
	return shiftTask(name, Real, v.Dim, exs, validFrac, testFrac, rng)
}

func shiftTask(name string, kind TargetKind, w int, exs []Example, validFrac, testFrac float64, rng *rand.Rand) (*Task, error) {
	t := &Task{Name: name, In: w, Out: w, Kind: kind, OptimalLoss: math.NaN()}
	var err error
	if t.Train, t.Valid, t.Test, err = SplitExamples(exs, validFrac, testFrac, rng); err != nil {
		return nil, err
	}
	return t, nil
}
