package compare

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/pkg/errors"
)

// Status is the outcome of a run.
type Status int

const (
	// OK is a run that used its budget.
	OK Status = iota
	// Diverged is a run stopped at a NaN or infinite loss, gradient or
	// parameter, or at a training loss above Config.DivergeFactor times
	// the first one.
	Diverged
	// Failed is a run stopped by another error (its Reason).
	Failed
)

// String returns "ok", "diverged" or "failed".
func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case Diverged:
		return "diverged"
	case Failed:
		return "failed"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// ParseStatus reads the String form of a Status.
func ParseStatus(s string) (Status, error) {
	for _, st := range []Status{OK, Diverged, Failed} {
		if st.String() == s {
			return st, nil
		}
	}
	return 0, errors.Errorf("compare: unknown status %q (want ok, diverged or failed)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Status) UnmarshalText(b []byte) error {
	v, err := ParseStatus(string(b))
	*s = v
	return err
}

// Point is one point of a learning curve.
type Point struct {
	// Epoch is the number of epochs done, fractional between epoch ends
	// (0: the initial parameters).
	Epoch float64
	// Step is the number of optimizer steps taken.
	Step int
	// TrainLoss is the mean training loss of the steps since the
	// previous point (over the whole epoch at an epoch end; NaN at 0),
	// each measured at the parameters of its step.
	TrainLoss float64
	// ValidLoss is the validation loss at the point's parameters (NaN
	// when the problem has no validation set).
	ValidLoss float64
	// Seconds is the training wall time so far.
	Seconds float64
}

// Outcome is one finished run.
type Outcome struct {
	RunSpec
	// Optimizer is the optimizer's Name ("adam", "acceptreject(sgd)").
	Optimizer string
	// Status says how the run ended.
	Status Status
	// DivergedStep is the step whose loss (or gradient, or update) was
	// not finite or too large (Status Diverged).
	DivergedStep int
	// Reason says why a run diverged or failed.
	Reason string
	// Curve holds the learning curve, starting at the initial
	// parameters.
	Curve []Point
	// Epochs and Steps are the epochs completed and steps taken;
	// Seconds is the training wall time.
	Epochs, Steps int
	Seconds       float64
	// ValidLoss and TestLoss are the validation and test losses of the
	// parameters kept at the end: the best by validation loss among the
	// initial ones, those of each epoch end and those at a Steps or
	// Seconds stop (the last ones without a validation set). NaN when
	// the run did not end OK or the problem lacks the set.
	ValidLoss, TestLoss float64
}

// FinalValid is the validation loss at the last point of the curve (NaN
// when the run did not end OK).
func (o *Outcome) FinalValid() float64 {
	if o.Status != OK || len(o.Curve) == 0 {
		return math.NaN()
	}
	return o.Curve[len(o.Curve)-1].ValidLoss
}

// exact encodes a float64 of a run file so that it reads back bit for
// bit: finite values as JSON numbers (Go writes the shortest form that
// round-trips), NaN as null (JSON has no NaN). A run's outcome holds no
// infinity (normalize turns every non-finite number into NaN before the
// outcome is saved or returned), so that a resumed comparison holds the
// numbers of a fresh one. Files written before null was used hold the
// strings "NaN", "+Inf" and "-Inf"; they still read.
type exact float64

func (v exact) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

func (v *exact) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null", `"NaN"`:
		*v = exact(math.NaN())
	case `"+Inf"`:
		*v = exact(math.Inf(1))
	case `"-Inf"`:
		*v = exact(math.Inf(-1))
	default:
		var f float64
		if err := json.Unmarshal(b, &f); err != nil {
			return errors.Errorf("compare: %s is not a number", b)
		}
		*v = exact(f)
	}
	return nil
}

// normalize replaces every non-finite number of o by NaN, the one
// non-finite value a run file holds (as null).
func (o *Outcome) normalize() {
	fix := func(v *float64) {
		if math.IsNaN(*v) || math.IsInf(*v, 0) {
			*v = math.NaN()
		}
	}
	fix(&o.Seconds)
	fix(&o.ValidLoss)
	fix(&o.TestLoss)
	for i := range o.Curve {
		p := &o.Curve[i]
		fix(&p.Epoch)
		fix(&p.TrainLoss)
		fix(&p.ValidLoss)
		fix(&p.Seconds)
	}
}

// outcomeFile is the JSON of a run file.
type outcomeFile struct {
	Hash         string      `json:"comparison"`
	Setting      string      `json:"setting"`
	LR           exact       `json:"lr"`
	Seed         uint64      `json:"seed"`
	Optimizer    string      `json:"optimizer"`
	Status       Status      `json:"status"`
	DivergedStep int         `json:"diverged_step,omitempty"`
	Reason       string      `json:"reason,omitempty"`
	Epochs       int         `json:"epochs"`
	Steps        int         `json:"steps"`
	Seconds      exact       `json:"seconds"`
	ValidLoss    exact       `json:"valid_loss"`
	TestLoss     exact       `json:"test_loss"`
	Curve        []pointFile `json:"curve"`
}

type pointFile struct {
	Epoch     exact `json:"epoch"`
	Step      int   `json:"step"`
	TrainLoss exact `json:"train_loss"`
	ValidLoss exact `json:"valid_loss"`
	Seconds   exact `json:"seconds"`
}

func (o *Outcome) file(hash string) outcomeFile {
	f := outcomeFile{Hash: hash, Setting: o.Setting, LR: exact(o.LR), Seed: o.Seed, Optimizer: o.Optimizer,
		Status: o.Status, DivergedStep: o.DivergedStep, Reason: o.Reason, Epochs: o.Epochs, Steps: o.Steps,
		Seconds: exact(o.Seconds), ValidLoss: exact(o.ValidLoss), TestLoss: exact(o.TestLoss)}
	for _, p := range o.Curve {
		f.Curve = append(f.Curve, pointFile{exact(p.Epoch), p.Step, exact(p.TrainLoss), exact(p.ValidLoss), exact(p.Seconds)})
	}
	return f
}

func (f outcomeFile) outcome() *Outcome {
	o := &Outcome{RunSpec: RunSpec{Setting: f.Setting, LR: float64(f.LR), Seed: f.Seed}, Optimizer: f.Optimizer,
		Status: f.Status, DivergedStep: f.DivergedStep, Reason: f.Reason, Epochs: f.Epochs, Steps: f.Steps,
		Seconds: float64(f.Seconds), ValidLoss: float64(f.ValidLoss), TestLoss: float64(f.TestLoss)}
	for _, p := range f.Curve {
		o.Curve = append(o.Curve, Point{float64(p.Epoch), p.Step, float64(p.TrainLoss), float64(p.ValidLoss), float64(p.Seconds)})
	}
	o.normalize()
	return o
}
