package runs

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/internal/memlimit"
	"github.com/rtnlab/rtn/optim"
	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/wfa"
)

// TestSpecsRefuseBadFields runs each driver on a spec with one bad
// field: each returns a *FieldError naming it, before any work (the
// drivers would otherwise train, read files or, for u-MPS restarts,
// dereference a nil report).
func TestSpecsRefuseBadFields(t *testing.T) {
	for _, tc := range []struct {
		name, field string
		run         func() error
	}{
		{"umps restarts", "Restarts", func() error { _, err := TrainUMPS(UMPSSpec{Data: "tomita4", Restarts: -1}); return err }},
		{"umps bond", "Bond", func() error { _, err := TrainUMPS(UMPSSpec{Data: "tomita4", Bond: MaxBond + 1}); return err }},
		{"umps balance", "BalanceEpochs", func() error { _, err := TrainUMPS(UMPSSpec{Data: "tomita4", BalanceEpochs: -1}); return err }},
		{"umps lr", "LR", func() error { _, err := TrainUMPS(UMPSSpec{Data: "tomita4", LR: math.NaN()}); return err }},
		{"umps alphabet", "Alphabet", func() error { _, err := TrainUMPS(UMPSSpec{Data: "tomita4", Alphabet: []string{"a"}}); return err }},
		{"train hidden", "Hidden", func() error { _, err := Train(TrainSpec{Hidden: -3}); return err }},
		{"train layers", "Layers", func() error { _, err := Train(TrainSpec{Layers: MaxLayers + 1}); return err }},
		{"train dropout", "Dropout", func() error { _, err := Train(TrainSpec{Dropout: 0.5}); return err }},
		{"train model", "Model", func() error { _, err := Train(TrainSpec{Model: "transformer"}); return err }},
		{"train lr", "Optim.LR", func() error { _, err := Train(TrainSpec{Optim: optimLR(math.Inf(1))}); return err }},
		{"train rank", "Rank", func() error { _, err := Train(TrainSpec{Model: "lstm", Rank: 3}); return err }},
		{"train schedule", "Schedule", func() error { _, err := Train(TrainSpec{Schedule: "warp:3"}); return err }},
		{"train schedule incomplete", "Schedule", func() error { _, err := Train(TrainSpec{Schedule: "step:5"}); return err }},
		{"umps grow lr", "GrowLR", func() error { _, err := TrainUMPS(UMPSSpec{Data: "tomita4", GrowLR: 0.1}); return err }},
		{"umps valid frac", "ValidFrac", func() error { _, err := TrainUMPS(UMPSSpec{Data: "tomita4", ValidFrac: 0.3}); return err }},
		{"wfa learn folds with rank", "Folds", func() error { _, err := LearnWFA(WFALearnSpec{Train: "s.txt", Rank: 2, Folds: 3}); return err }},
		{"wfa learn valid with folds", "ValidFraction", func() error {
			_, err := LearnWFA(WFALearnSpec{Train: "s.txt", Folds: 3, ValidFraction: 0.3})
			return err
		}},
		{"wfa learn mixture with nll", "Mixture", func() error {
			_, err := LearnWFA(WFALearnSpec{Train: "s.txt", Select: "nll", Mixture: 2})
			return err
		}},
		{"wfa sweep valid with folds", "ValidFraction", func() error {
			_, err := SweepWFA(WFASweepSpec{Train: "s.txt", Folds: 2, ValidFraction: 0.3})
			return err
		}},
		{"wfa finetune check se", "Finetune.CheckSE", func() error {
			_, err := FinetuneWFA(WFAFinetuneSpec{Model: "m.json", Train: "s.txt", Finetune: wfa.FinetuneConfig{Check: wfa.CheckNone, CheckSE: 3}})
			return err
		}},
		{"pcnn baseline depth with hmm", "Depth", func() error {
			_, err := RunPCNNBaseline(PCNNBaselineSpec{Baseline: "hmm", Depth: 3})
			return err
		}},
		{"pcnn baseline network", "Network.Units", func() error {
			_, err := RunPCNNBaseline(PCNNBaselineSpec{Baseline: "ctw", Network: PCNNSpec{Units: 4}})
			return err
		}},
		{"pcnn baseline none", "Baseline", func() error { _, err := RunPCNNBaseline(PCNNBaselineSpec{}); return err }},
		{"tune model", "Model", func() error { _, err := TuneSpectral(SpectralTuneSpec{Data: "x.csv"}); return err }},
		{"tune patience", "Patience", func() error {
			_, err := TuneSpectral(SpectralTuneSpec{Model: "m.npz", Data: "x.csv", Patience: -2})
			return err
		}},
		{"tune fractions", "ValidFrac, TestFrac", func() error {
			_, err := TuneSpectral(SpectralTuneSpec{Model: "m.npz", Data: "x.csv", ValidFrac: 0.6, TestFrac: 0.5})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field {
				t.Fatalf("error %v, want a *FieldError of %s", err, tc.field)
			}
			if !strings.HasPrefix(err.Error(), tc.field) {
				t.Errorf("message %q does not start with the field", err)
			}
		})
	}
}

// TestCompareBudgetSeconds checks that a time budget is refused beside
// an epoch or step budget, and that epochs and steps go together.
func TestCompareBudgetSeconds(t *testing.T) {
	for _, tc := range []struct {
		budget compare.Budget
		ok     bool
	}{
		{compare.Budget{Seconds: 1}, true},
		{compare.Budget{Epochs: 2, Steps: 5}, true},
		{compare.Budget{Steps: 5, Seconds: 1}, false},
		{compare.Budget{Epochs: 1, Seconds: 1}, false},
	} {
		err := CompareSpec{Model: "lstm", Budget: tc.budget, Jobs: 1}.WithDefaults().Validate()
		var fe *FieldError
		if tc.ok != (err == nil) || (err != nil && (!errors.As(err, &fe) || fe.Field != "Budget.Seconds")) {
			t.Errorf("budget %+v: error %v, want ok %v or a *FieldError of Budget.Seconds", tc.budget, err, tc.ok)
		}
	}
}

// TestFieldErrorNamed checks the two message forms and the naming of
// fields, those in Want included.
func TestFieldErrorNamed(t *testing.T) {
	upper := strings.ToUpper
	for _, tc := range []struct {
		err  *FieldError
		want string
	}{
		{&FieldError{Field: "Hidden", Value: 0, Want: "in [1, 4096]"}, "HIDDEN must be in [1, 4096], got 0"},
		{&FieldError{Field: "Task", Value: "x", Want: "pfa (or give {DataFile} FILE)"}, `TASK must be pfa (or give DATAFILE FILE), got "x"`},
		{&FieldError{Field: "Rank, Lags", Err: errors.New("too large")}, "RANK, LAGS: too large"},
		{&FieldError{Field: "Model", Want: "a model file"}, "MODEL must be a model file"},
	} {
		if got := tc.err.Named(upper); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}

// TestTrainRefusedOverMemory checks that Train refuses, with a
// *MemoryError naming the sizes, a model past RTN_MEMORY_LIMIT.
func TestTrainRefusedOverMemory(t *testing.T) {
	t.Setenv(memlimit.Env, "64M")
	_, err := Train(TrainSpec{Hidden: 1024, Layers: 2})
	var me *MemoryError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "Model lstm Hidden 1024 Layers 2") || me.Source != memlimit.Env {
		t.Fatalf("error %v, want a *MemoryError naming the sizes and the variable", err)
	}
}

// optimLR is an optimizer configuration with learning rate lr.
func optimLR(lr float64) optim.Config { return optim.Config{LR: lr} }
