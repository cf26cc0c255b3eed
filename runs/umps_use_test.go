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
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "Len, Samples" || !strings.Contains(err.Error(), "hours of sampling at bond 20") {
		t.Errorf("-len 1000000: got %v, want a *FieldError of Len, Samples", err)
	}
	if _, err := (UMPSEvalSpec{Model: "m"}.WithDefaults()).evalCost(20, 2, true); err != nil {
		t.Errorf("the default eval is refused: %v", err)
	}
}
