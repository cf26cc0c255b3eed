package runs

import (
	"errors"
	"strings"
	"testing"
)

// TestUMPSEvalCost checks that umps eval refuses hours of sampling that
// fit in memory (a -len 1000000 run hung), and accepts the default eval.
func TestUMPSEvalCost(t *testing.T) {
	long := UMPSEvalSpec{Model: "m", Len: 1000000}.WithDefaults()
	_, err := long.evalCost(20, 2, false)
	var te *TimeError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "hours of sampling at bond 20") || !strings.Contains(err.Error(), "lower Len or Samples") {
		t.Errorf("-len 1000000: got %v, want a *TimeError naming Len and Samples", err)
	}
	if _, err := (UMPSEvalSpec{Model: "m"}.WithDefaults()).evalCost(20, 2, true); err != nil {
		t.Errorf("the default eval is refused: %v", err)
	}
}

// TestReproduceSpecsRefuse checks the specs of reproduce's drivers: a bad
// value is a *FieldError naming the field, before any work.
func TestReproduceSpecsRefuse(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		field string
	}{
		{"pautomac problem", WFAPAutomaCSpec{Dir: "d", Problem: 49}.WithDefaults().Validate(), "Problem"},
		{"pautomac dir", WFAPAutomaCSpec{Problem: 1}.WithDefaults().Validate(), "Dir"},
		{"baseline no strings", UMPSBaselineSpec{Symbols: 2}.WithDefaults().Validate(), "Train"},
		{"baseline symbols", UMPSBaselineSpec{Train: [][]int{{0}}}.WithDefaults().Validate(), "Symbols"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fe *FieldError
			if !errors.As(tc.err, &fe) || fe.Field != tc.field {
				t.Errorf("got %v, want a *FieldError of %s", tc.err, tc.field)
			}
		})
	}
	if _, _, err := TrainLSTMLM(UMPSBaselineSpec{Symbols: 2}); err == nil {
		t.Error("TrainLSTMLM without strings ran")
	}
}
