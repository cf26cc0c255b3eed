package runs

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/internal/fuzzcheck"
	"github.com/rtnlab/rtn/layers"
)

// The fuzz targets of the specs' checks and of the readers in runs: any
// field values give an error or a spec whose defaults are filled in and
// whose values are in range (and a second Validate leaves it as it is),
// never a panic; a run of an accepted spec, kept small, ends with an
// error or a report.

// fuzzSymbolModel saves a small next-symbol model over the symbols a, b
// and c and returns its directory.
func fuzzSymbolModel(tb testing.TB) string {
	cfg := layers.ModelConfig{Cell: "lstm", Config: layers.CellConfig{In: 4, Hidden: 2}, Out: 3, Kind: "categorical",
		Input: layers.InputNextSymbol, Symbols: []string{"a", "b", "c"}}
	m, err := layers.NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(tb.TempDir(), "model")
	if err := m.Save(dir); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// fuzzSampleSteps bounds the symbols FuzzSampleSpec draws (N x MaxLen).
const fuzzSampleSteps = 2000

func FuzzSampleSpec(f *testing.F) {
	model := fuzzSymbolModel(f)
	f.Add(true, 3, uint64(1), 1.0, 5, "c", "ab")
	f.Add(true, 0, uint64(0), 0.5, 0, "", "")
	f.Add(true, -1, uint64(7), math.Inf(1), -3, "z", "a b")
	f.Add(false, 1, uint64(2), math.NaN(), 1, "a", "abcabc")
	f.Fuzz(func(t *testing.T, withModel bool, n int, seed uint64, temp float64, maxLen int, stop, prefix string) {
		s := SampleSpec{N: n, Seed: seed, Temperature: temp, MaxLen: maxLen, Stop: stop, Prefix: prefix}
		if withModel {
			s.Model = model
		}
		if err := s.Validate(); err != nil {
			return
		}
		switch {
		case s.Model == "", s.N < 1, s.Seed == 0, s.MaxLen < 1, !(s.Temperature > 0), math.IsInf(s.Temperature, 0):
			t.Fatalf("Validate accepted %+v", s)
		}
		again := s
		if err := again.Validate(); err != nil || again != s {
			t.Fatalf("a second Validate changed %+v to %+v (%v)", s, again, err)
		}
		if s.N*s.MaxLen > fuzzSampleSteps || s.N > fuzzSampleSteps || s.MaxLen > fuzzSampleSteps {
			return
		}
		fuzzcheck.Bounded(t, fuzzcheck.Base, func() {
			rep, err := Sample(s)
			if err != nil {
				return
			}
			if len(rep.Samples) != s.N {
				t.Fatalf("%d samples, want %d", len(rep.Samples), s.N)
			}
			for _, x := range rep.Samples {
				if x.Length > s.MaxLen || math.IsNaN(x.LogProb) || x.LogProb > 0 {
					t.Fatalf("sample %+v of a spec with -max-len %d", x, s.MaxLen)
				}
			}
		})
	})
}

func FuzzEvalSpec(f *testing.F) {
	f.Add("model", "", "")
	f.Add("", "d.txt", "pautomac")
	f.Add("m", "d.txt", "csv")
	f.Fuzz(func(t *testing.T, model, data, format string) {
		s := EvalSpec{Model: model, DataFile: data, Format: format}
		if err := s.Validate(); err != nil {
			return
		}
		if s.Model == "" || !slices.Contains(DataFormats, s.Format) {
			t.Fatalf("Validate accepted %+v", s)
		}
		again := s
		if err := again.Validate(); err != nil || again != s {
			t.Fatalf("a second Validate changed %+v to %+v (%v)", s, again, err)
		}
	})
}

func FuzzPredictSpec(f *testing.F) {
	f.Add("model", "d.txt", "", "p.csv")
	f.Add("m", "", "lines", "p.csv")
	f.Add("m", "d", "spice", "")
	f.Fuzz(func(t *testing.T, model, data, format, out string) {
		s := PredictSpec{Model: model, DataFile: data, Format: format, Out: out}
		if err := s.Validate(); err != nil {
			return
		}
		if s.Model == "" || s.DataFile == "" || s.Out == "" || !slices.Contains(DataFormats, s.Format) {
			t.Fatalf("Validate accepted %+v", s)
		}
		again := s
		if err := again.Validate(); err != nil || again != s {
			t.Fatalf("a second Validate changed %+v to %+v (%v)", s, again, err)
		}
	})
}

// FuzzParseSymbols reads strings over alphabets of single characters and
// of longer names: an error, or ids in the alphabet that FormatSymbols
// writes back to a string ParseSymbols reads the same.
func FuzzParseSymbols(f *testing.F) {
	f.Add("0110", "0 1")
	f.Add("a b  c", "a b c")
	f.Add("11 3 10", "3 10 11")
	f.Add("x y", "x y z")
	f.Add(" ", "a")
	f.Fuzz(func(t *testing.T, s, alphabet string) {
		alpha := splitAlphabet(alphabet)
		if len(alpha) == 0 {
			return
		}
		ids, err := ParseSymbols(s, alpha)
		if err != nil {
			return
		}
		for _, id := range ids {
			if id < 0 || id >= len(alpha) {
				t.Fatalf("id %d outside an alphabet of %d", id, len(alpha))
			}
		}
		back, err := ParseSymbols(FormatSymbols(ids, alpha), alpha)
		if err != nil || !slices.Equal(back, ids) {
			t.Fatalf("%q read as %v, written as %q, read back as %v (%v)", s, ids, FormatSymbols(ids, alpha), back, err)
		}
	})
}

// splitAlphabet is the distinct white-space-separated names of s, in
// order.
func splitAlphabet(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func FuzzReadSweep(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "sweep.csv")
	if err := WriteSweepCSV(path, []SpectralReport{
		{Task: "random2rnn", Method: "ls", N: 20, Noise: 0.1, Rank: 2, Seed: 1, TrainMSE: 0.5, TestMSE: 0.25, TestOutputVar: 1, Seconds: 0.01},
		{Task: "addition", Method: "tiht", N: 40, Rank: 3, Seed: 2, ZeroFallback: true},
	}); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "sweep.csv")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b), 256), func() {
			reps, err := ReadSweep(path)
			if err != nil {
				return
			}
			for _, r := range reps {
				if !slices.Contains(SpectralMethods, r.Method) || math.IsNaN(float64(r.TestMSE)) {
					t.Fatalf("ReadSweep accepted %+v", r)
				}
			}
		})
	})
}
