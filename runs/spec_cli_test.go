package runs

import (
	"errors"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/optim/compare"
)

// TestSpecsRefuseAsTheCommandLine runs each driver on a spec that rtn
// refuses with a usage error: the Go API refuses it too, with the
// command line's message in the fields' Go names (rtn names them by
// flag), before any work.
func TestSpecsRefuseAsTheCommandLine(t *testing.T) {
	small := func(s CompareSpec) CompareSpec {
		s.Model, s.Size, s.Settings, s.LRGrid, s.Seeds, s.Jobs = "2rnn", 20, []compare.Setting{{Optimizer: "sgd"}}, []float64{0.1}, []uint64{1}, 1
		return s
	}
	for _, tc := range []struct {
		name, field, msg string
		run              func() error
	}{
		{"compare negative batch", "Batch", "Batch must be >= 1, or FullBatch (full batch), got -1", func() error {
			_, err := RunCompare(small(CompareSpec{Batch: -1}))
			return err
		}},
		{"compare shard without out", "Out", "Out must be a directory with Shard", func() error {
			_, err := RunCompare(small(CompareSpec{Shard: compare.Shard{Index: 1, Count: 2}}))
			return err
		}},
		{"umps language name", "Data", "Data: datasets: Tomita grammar 9 does not exist", func() error {
			_, err := TrainUMPS(UMPSSpec{Data: "tomita9"})
			return err
		}},
		{"umps norm", "Norm", "Norm must be umps.PerLength or umps.AllLengths, got 7", func() error {
			_, err := TrainUMPS(UMPSSpec{Data: "tomita4", Norm: new(umps.Norm(7))})
			return err
		}},
		{"umps epochs none", "Epochs", "Epochs must be >= 1, got none", func() error {
			_, err := TrainUMPS(UMPSSpec{Data: "tomita4", Epochs: Off})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want a *FieldError of %s saying %q", err, tc.field, tc.msg)
			}
		})
	}
}

// TestUMPSFileDefaults checks that WithDefaults gives a string file's
// spec the defaults rtn umps train -format uses with no other flag
// (DefaultUMPSFileSpec's), a built-in language the paper's, and that a
// value set, the built-in one included, is kept.
func TestUMPSFileDefaults(t *testing.T) {
	file := UMPSSpec{Data: "s.txt", Format: new(datasets.Lines)}.WithDefaults()
	want := DefaultUMPSFileSpec()
	switch {
	case *file.Norm != *want.Norm || *file.RestoreOnDrop != *want.RestoreOnDrop:
		t.Errorf("file: norm %v restore %v, want %v %v", *file.Norm, *file.RestoreOnDrop, *want.Norm, *want.RestoreOnDrop)
	case file.Bond != want.Bond || file.GrowFrom != want.GrowFrom || file.Epochs != want.Epochs || file.Patience != want.Patience ||
		file.LR != want.LR || file.InitNoise != want.InitNoise || file.ClipNorm != want.ClipNorm || file.BalanceEpochs != want.BalanceEpochs:
		t.Errorf("file defaults %+v, want those of %+v", file, want)
	}
	builtin := UMPSSpec{}.WithDefaults()
	if *builtin.Norm != umps.PerLength || *builtin.RestoreOnDrop || builtin.Epochs != 300 || builtin.BalanceEpochs != 5 {
		t.Errorf("built-in defaults: norm %v restore %v epochs %d balance %d", *builtin.Norm, *builtin.RestoreOnDrop, builtin.Epochs, builtin.BalanceEpochs)
	}
	set := UMPSSpec{Data: "s.txt", Format: new(datasets.Lines), Norm: new(umps.PerLength), RestoreOnDrop: new(false), BalanceEpochs: 5}.WithDefaults()
	if *set.Norm != umps.PerLength || *set.RestoreOnDrop || set.BalanceEpochs != 5 {
		t.Errorf("set on a file: norm %v restore %v balance %d, want n, false, 5", *set.Norm, *set.RestoreOnDrop, set.BalanceEpochs)
	}
}
