package runs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/internal/memlimit"
)

// TestWFASpecsRefuse checks that each wfa spec refuses a bad value with a
// *FieldError naming the field, before any file is read.
func TestWFASpecsRefuse(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		field string
	}{
		{"learn no train", WFALearnSpec{}.WithDefaults().Validate(), "Train"},
		{"learn lcolumns without rank", WFALearnSpec{Train: "x", LColumns: 2}.WithDefaults().Validate(), "LColumns"},
		{"learn lrows", WFALearnSpec{Train: "x", LRows: 40}.WithDefaults().Validate(), "LRows"},
		{"learn select", WFALearnSpec{Train: "x", Select: "ZLL"}.WithDefaults().Validate(), "Select"},
		{"learn hankel", WFALearnSpec{Train: "x", Hankel: "rows"}.WithDefaults().Validate(), "Hankel"},
		{"learn seed 0 unfilled", WFALearnSpec{Train: "x", Folds: 1, ValidFraction: 0.2, Mixture: 1, Select: "zll"}.Validate(), "Seed"},
		{"sweep ranks twice", WFASweepSpec{Train: "x", Ranks: []int{3, 4, 3}}.WithDefaults().Validate(), "Ranks"},
		{"sweep test alone", WFASweepSpec{Train: "x", Test: "t"}.WithDefaults().Validate(), "Test, Solution"},
		{"finetune lr", WFAFinetuneSpec{Model: "m", Train: "x"}.WithDefaults().withLR(-1).Validate(), "Finetune.Optim.LR"},
		{"rank stdout with targets", WFARankSpec{Model: "m", Prefixes: "p", Targets: "t", Out: "-"}.WithDefaults().Validate(), "Out"},
		{"sample max len", WFASampleSpec{SampleOptions: SampleOptions{Model: "m", MaxLen: -1}}.WithDefaults().Validate(), "MaxLen"},
		{"minimize tol", WFAMinimizeSpec{Model: "m", Out: "o", Tol: 1}.WithDefaults().Validate(), "Tol"},
		{"dot min weight", WFADotSpec{Model: "m", MinWeight: -1}.Validate(), "MinWeight"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fe *FieldError
			if !errors.As(tc.err, &fe) || fe.Field != tc.field {
				t.Errorf("got %v, want a *FieldError of %s", tc.err, tc.field)
			}
		})
	}
}

// withLR is the spec with the fine-tuning rate lr.
func (s WFAFinetuneSpec) withLR(lr float64) WFAFinetuneSpec {
	s.Finetune.Optim.LR = lr
	return s
}

// TestWFAHugeAlphabetRefused checks that a PAutomaC header declaring 2^24
// symbols over 3 strings is refused by the memory estimate of LearnWFA
// and SweepWFA, before the file is read, with a *MemoryError naming the
// file and its alphabet.
func TestWFAHugeAlphabetRefused(t *testing.T) {
	t.Setenv(memlimit.Env, "8G")
	path := filepath.Join(t.TempDir(), "huge")
	if err := os.WriteFile(path, []byte("3 16777216\n2 1 2\n1 5\n3 1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, learnErr := LearnWFA(WFALearnSpec{Train: path})
	_, sweepErr := SweepWFA(WFASweepSpec{Train: path})
	for name, err := range map[string]error{"learn": learnErr, "sweep": sweepErr} {
		var me *MemoryError
		if !errors.As(err, &me) || !strings.Contains(me.Error(), "(alphabet 16777216)") {
			t.Errorf("%s: got %v, want a *MemoryError naming the alphabet", name, err)
		}
	}
}
