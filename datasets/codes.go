package datasets

import "github.com/pkg/errors"

// SymbolCodes returns a copy of a task whose inputs are one-hot rows (a
// next-symbol task, say) with each row replaced by the code of its symbol:
// In becomes 1 and X[t] the index of step t's 1 (0, ..., In-1), the input
// an embedding lookup reads (graph.Builder.Embed). Targets and the other
// fields are shared with t. A row that is not one-hot is an error naming
// the split, example and step.
func (t *Task) SymbolCodes() (*Task, error) {
	c := *t
	c.In = 1
	var err error
	for _, s := range []struct {
		name string
		dst  *[]Example
	}{{"train", &c.Train}, {"valid", &c.Valid}, {"test", &c.Test}} {
		if *s.dst, err = CodeExamples(*s.dst, t.In); err != nil {
			return nil, errors.Wrapf(err, "datasets: task %q: %s", t.Name, s.name)
		}
	}
	return &c, nil
}

// CodeExamples returns copies of examples whose inputs are one-hot rows of
// width in with each row replaced by its symbol's code (see
// Task.SymbolCodes); targets are shared.
func CodeExamples(exs []Example, in int) ([]Example, error) {
	if exs == nil {
		return nil, nil
	}
	out := make([]Example, len(exs))
	for i, e := range exs {
		if len(e.X) != e.T*in {
			return nil, errors.Errorf("example %d has %d inputs for %d steps of %d", i, len(e.X), e.T, in)
		}
		codes := make([]float64, e.T)
		for s := range e.T {
			hot := -1
			for j, v := range e.X[s*in : (s+1)*in] {
				switch {
				case v == 1 && hot < 0:
					hot = j
				case v != 0:
					hot = -2
				}
			}
			if hot < 0 {
				return nil, errors.Errorf("example %d step %d: the input is not one-hot", i, s)
			}
			codes[s] = float64(hot)
		}
		out[i] = e
		out[i].X = codes
	}
	return out, nil
}
