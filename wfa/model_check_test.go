package wfa

import (
	"bytes"
	"strings"
	"testing"
)

// A model file whose weights are so large that their sums overflow is
// refused when read, with one line saying which weights; weights as
// large whose sums stay finite are read.
func TestReadRefusesOverflowingWeights(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Model)
		want string // "" when the model is read
	}{
		{"small", func(*Model) {}, ""},
		{"transitions", func(m *Model) { m.WFA.Trans[0][2], m.WFA.Trans[2][2] = 1e308, -1e308 }, "those out of state 1 add up"},
		{"alpha", func(m *Model) { m.WFA.Alpha = []float64{1e308, -1e308} }, "initial or final weights are too large"},
		{"omega", func(m *Model) { m.WFA.Omega = []float64{1.7e308, 1.7e308} }, "initial or final weights are too large"},
		{"one-large", func(m *Model) { m.WFA.Omega[0], m.WFA.Trans[1][0] = 1.7e308, -1.7e308 }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fuzzModel()
			tc.edit(m)
			var b bytes.Buffer
			if err := m.Write(&b); err != nil {
				t.Fatal(err)
			}
			_, err := Read(&b)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Read: %v, want the model", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
				t.Errorf("Read: %v, want one line with %q", err, tc.want)
			}
		})
	}
}
