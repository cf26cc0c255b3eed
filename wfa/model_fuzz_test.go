package wfa

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/rtnlab/rtn/internal/fuzzcheck"
	"github.com/rtnlab/rtn/spectral"
)

// The fuzz targets of the WFA model file and the SPiCe target file: an
// error or a result every method can use (a model is evaluated, sampled
// from and drawn), never a panic, and no allocation beyond a constant
// plus a small multiple of the input.

// fuzzModel is a small two-state model over three symbols, a mixture of
// two components.
func fuzzModel() *Model {
	return &Model{
		WFA: spectral.WFA{States: 2, Out: 1, Alpha: []float64{0.6, 0.4},
			Trans: [][]float64{{0.1, 0.2, 0, 0.3}, {0.2, 0, 0.1, 0.1}, {0, 0.1, 0.2, 0}},
			Omega: []float64{0.3, 0.5}},
		Alphabet:   []string{"0", "1", "10"},
		Spec:       Spec{Variant: spectral.Factor, Rows: 3, Cols: 3, Rank: 1},
		Components: []Component{{Spec: Spec{Variant: spectral.Factor, Rows: 3, Cols: 3, Rank: 1}, Weight: 0.5}, {Spec: Spec{Variant: spectral.Prefix, Rows: 2, Cols: 2, Rank: 1}, Weight: 0.5}},
		Finetuned:  true,
	}
}

func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	if err := fuzzModel().Write(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add(bytes.ReplaceAll(b.Bytes(), []byte("0.3"), []byte("1e308")))
	f.Add([]byte(`{"format":"rtn-wfa-1","alphabet":["a"],"variant":"classic","states":1000000000,"alpha":[],"transitions":[[]],"omega":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b), 256), func() {
			m, err := Read(bytes.NewReader(b))
			if err != nil {
				return
			}
			if len(m.Alphabet) != len(m.WFA.Trans) {
				t.Fatalf("%d names for %d symbols", len(m.Alphabet), len(m.WFA.Trans))
			}
			m.Predict([][]int{{}, {0}, {0, len(m.Alphabet) - 1}, {len(m.Alphabet)}})
			m.WFA.Mass()
			m.WFA.SpectralRadius()
			if _, err := m.WFA.Sample(rand.New(rand.NewPCG(1, 2)), 5); err != nil {
				return
			}
			if err := m.DOT(io.Discard, 0.1); err != nil {
				t.Fatal(err)
			}
		})
	})
}

func FuzzReadTargets(f *testing.F) {
	f.Add([]byte("1.5 0 0.5 -1 0.25 3 0.1\n\n2 1 1\n"))
	f.Add([]byte("1 -2 0.5\n"))
	f.Add([]byte("NaN\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b), 256), func() {
			ts, err := ReadTargets(bytes.NewReader(b))
			if err != nil {
				return
			}
			for i, tg := range ts {
				if !(tg.Ideal > 0) {
					t.Fatalf("target %d: ideal %v", i, tg.Ideal)
				}
			}
		})
	})
}
