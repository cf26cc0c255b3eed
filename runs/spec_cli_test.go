package runs

import (
	"errors"
	"strings"
	"testing"

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
