package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
)

// wfa sample redraws the draws that do not end within -max-len, so its
// strings follow the model conditioned on ending within it, says how many
// it redrew, and refuses a model whose strings too seldom end within it.
func TestWFASampleMaxLen(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, stop, each float64) string {
		path := filepath.Join(dir, name)
		if err := (&wfa.Model{WFA: spectral.WFA{States: 1, Out: 1, Alpha: []float64{1}, Omega: []float64{stop}, Trans: [][]float64{{each}, {each}}},
			Alphabet: []string{"0", "1"}}).Save(path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Each string ends after each symbol with probability 1/2: P(|x| = n) =
	// 2^-(n+1), so conditioned on |x| <= 2 the length 2 has probability
	// (1/8) / (7/8) = 1/7, where cut draws would make it 1/4.
	half := save("half.json", 0.5, 0.25)
	const n, freqTol = 4000, 0.03
	stdout, stderr, code := invoke("wfa", "sample", "-model", half, "-n", "4000", "-max-len", "2", "-format", "lines")
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != 0 || len(lines) != n || !strings.Contains(stderr, "draws did not end within -max-len 2 and were drawn again") {
		t.Fatalf("exit %d, %d lines, stderr %q", code, len(lines), stderr)
	}
	long := 0
	for _, l := range lines {
		switch len(strings.Fields(l)) {
		case 2:
			long++
		case 0, 1:
		default:
			t.Fatalf("string %q is longer than -max-len 2", l)
		}
	}
	if f := float64(long) / n; math.Abs(f-1.0/7) > freqTol {
		t.Errorf("%d of %d strings of length 2 (%.3f): want about 1/7", long, n, f)
	}
	// A string ends after each symbol with probability 1e-6.
	endless := save("endless.json", 1e-6, 0.4999995)
	_, stderr, code = invoke("wfa", "sample", "-model", endless, "-n", "5", "-max-len", "10")
	if code != 1 || !strings.Contains(stderr, "-max-len 10: 0 of 150 draws ended within 10 symbols") || !strings.Contains(stderr, "raise -max-len") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("a model whose strings are longer: exit %d, %q", code, stderr)
	}
}
