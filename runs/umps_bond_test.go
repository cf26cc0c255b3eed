package runs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/wfa"
)

// iidStrings draws count strings of i.i.d. symbols over {0, 1} (the
// second twice as likely) stopping with probability 1/4 after each: a
// one-state machine.
func iidStrings(count int, seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([][]int, count)
	for i := range out {
		s := []int{}
		for rng.Float64() >= 0.25 {
			s = append(s, min(rng.IntN(3), 1))
		}
		out[i] = s
	}
	return out
}

// cycleStrings draws count strings of the three-state cycle 0 -> 1 -> 2
// -> 0, symbol q leaving state q, stopping in state 0 with probability
// 0.3: (012)^n with n geometric, a Hankel matrix of rank 3.
func cycleStrings(count int, seed uint64) [][]int {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([][]int, count)
	for i := range out {
		s := []int{}
		for rng.Float64() >= 0.3 {
			s = append(s, 0, 1, 2)
		}
		out[i] = s
	}
	return out
}

// The rule gives the small bond when the spectral selection stops below
// the largest rank it tries (one-state data, ranks 1-3) and the large one
// when it picks that rank (rank-3 data, ranks 1-2); it refuses bad
// settings.
func TestBondRule(t *testing.T) {
	rule := BondRule{Small: 2, Large: 5, WFA: wfa.Config{Bases: []int{2}, Ranks: []int{1, 2, 3}}}
	c, err := rule.Choose(datasets.Symbols{Alphabet: []string{"a", "b"}, Seqs: iidStrings(3000, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if c.Bond != 2 || c.Rank >= c.MaxRank || c.MaxRank != 3 || c.GrowFrom != 0 {
		t.Errorf("one-state data: %+v, want bond 2 and a rank below 3", c)
	}
	rule.WFA.Ranks = []int{1, 2}
	c, err = rule.Choose(datasets.Symbols{Alphabet: []string{"a", "b", "c"}, Seqs: cycleStrings(3000, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if c.Bond != 5 || c.Rank != 2 || c.MaxRank != 2 || c.GrowFrom != 2 {
		t.Errorf("rank-3 data, ranks 1-2: %+v, want bond 5 at rank 2, grown from 2", c)
	}
	same := rule
	same.Small, same.Large = 3, 3
	if c, err := same.Choose(datasets.Symbols{Alphabet: []string{"a", "b", "c"}, Seqs: cycleStrings(3000, 1)}); err != nil || c.Bond != 3 || c.GrowFrom != 0 {
		t.Errorf("small = large = 3: %+v, %v, want bond 3 not grown", c, err)
	}
	noGrow := rule
	noGrow.GrowFrom = -1
	if c, err := noGrow.Choose(datasets.Symbols{Alphabet: []string{"a", "b", "c"}, Seqs: cycleStrings(3000, 1)}); err != nil || c.GrowFrom != 0 {
		t.Errorf("rank-3 data, no growth: %+v, %v, want bond 5 not grown", c, err)
	}
	if c.WFA == nil || c.WFA.Spec.Rank != c.Rank || c.WFA.WFA.States != c.Rank {
		t.Errorf("rank-3 data: the chosen automaton %+v, want the selection's of rank %d", c.WFA, c.Rank)
	}
	rule.WFA.Ranks = []int{1, 2, 3, 4, 5}
	c, err = rule.Choose(datasets.Symbols{Alphabet: []string{"a", "b", "c"}, Seqs: cycleStrings(3000, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if c.Bond != c.Rank || c.Rank <= rule.Small || c.Rank >= c.MaxRank || c.MaxRank != 5 {
		t.Errorf("rank-3 data, ranks 1-5: %+v, want a rank between %d and 5 and the bond equal to it", c, rule.Small)
	}
	s := datasets.Symbols{Alphabet: []string{"a", "b"}, Seqs: iidStrings(100, 1)}
	for _, bad := range []BondRule{
		{Small: -1},
		{Small: 30, Large: 20},
		{WFA: wfa.Config{Spec: wfa.Spec{Rank: 3}}},
		{MaxStrings: -1},
		{Small: 2, Large: 5, GrowFrom: 5},
	} {
		if _, err := bad.Choose(s); err == nil {
			t.Errorf("rule %+v: no error", bad)
		}
	}
}

// A file with more strings than MaxStrings is represented by that many,
// evenly spaced: every third string of this file is one-state data and
// the others rank-3 data, so the capped rule sees one-state data only and
// decides otherwise than on the whole file.
func TestBondRuleMaxStrings(t *testing.T) {
	iid, cyc := iidStrings(9000, 1), cycleStrings(9000, 1)
	all := make([][]int, 9000)
	for i := range all {
		all[i] = cyc[i]
		if i%3 == 0 {
			all[i] = iid[i]
		}
	}
	s := datasets.Symbols{Alphabet: []string{"a", "b", "c"}, Seqs: all}
	rule := BondRule{Small: 2, Large: 5, MaxStrings: 3000, WFA: wfa.Config{Bases: []int{2}, Ranks: []int{1, 2, 3}}}
	capped, err := rule.Choose(s)
	if err != nil {
		t.Fatal(err)
	}
	rule.MaxStrings = len(all)
	whole, err := rule.Choose(s)
	if err != nil {
		t.Fatal(err)
	}
	if capped.Bond != 2 || whole.Bond != 5 {
		t.Errorf("capped at 3000 of 9000: %+v, want bond 2; whole file: %+v, want bond 5", capped, whole)
	}
}

// writePAutomaC writes seqs over v symbols as a PAutomaC file.
func writePAutomaC(t *testing.T, path string, seqs [][]int, v int) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%d %d\n", len(seqs), v)
	for _, s := range seqs {
		fmt.Fprint(&b, len(s))
		for _, c := range s {
			fmt.Fprintf(&b, " %d", c)
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TrainUMPS with BondAuto trains at the rule's bond and reports the
// rank; the rule draws nothing from the training's generators, so the
// same run with that bond given as a number is the same model bit for
// bit. A built-in language has no file to choose from.
func TestTrainUMPSBondAuto(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cycle.train")
	writePAutomaC(t, path, cycleStrings(400, 3), 3)
	format := datasets.PAutomaC
	spec := UMPSSpec{Data: path, Format: &format, Bond: BondAuto, GrowFrom: Off, Norm: new(umps.AllLengths), Epochs: 1, BatchSize: 40, LR: 0.03, InitNoise: 0.1, Seed: 2,
		BondRule: BondRule{Small: 2, Large: 3, WFA: wfa.Config{Bases: []int{2}, Ranks: []int{1, 2}}}}
	auto, err := TrainUMPS(spec)
	if err != nil {
		t.Fatal(err)
	}
	if auto.Bond != 3 || auto.SpectralRank != 2 {
		t.Fatalf("auto: bond %d, spectral rank %d, want 3 and 2", auto.Bond, auto.SpectralRank)
	}
	spec.Bond = 3
	fixed, err := TrainUMPS(spec)
	if err != nil {
		t.Fatal(err)
	}
	if fixed.SpectralRank != 0 || fixed.ValidNLL != auto.ValidNLL || fixed.TrainNLL != auto.TrainNLL ||
		!slices.Equal(fixed.Params.Data(umps.ParamA), auto.Params.Data(umps.ParamA)) {
		t.Errorf("bond 3 given: valid NLL %v, rank %d; chosen: %v", fixed.ValidNLL, fixed.SpectralRank, auto.ValidNLL)
	}
	if _, err := TrainUMPS(UMPSSpec{Data: "tomita1", Bond: BondAuto, NTrain: 20, NValid: 10, Epochs: 1}); err == nil {
		t.Error("BondAuto on a built-in language: no error")
	}
}

// A file too small for the validation split fails on the split, before
// the bond rule fits anything, with or without strings.
func TestTrainUMPSBondAutoSplitFirst(t *testing.T) {
	format := datasets.PAutomaC
	for _, n := range []int{0, 1} {
		path := filepath.Join(t.TempDir(), "small.train")
		writePAutomaC(t, path, cycleStrings(n, 3), 3)
		_, err := TrainUMPS(UMPSSpec{Data: path, Format: &format, Bond: BondAuto, Epochs: 1})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d strings: too few for a validation fraction", n)) || strings.Contains(err.Error(), "bond rule") {
			t.Errorf("%d strings: %v", n, err)
		}
	}
}

// With GrowAuto at the top of the grid, TrainUMPS first trains the rule's
// GrowFrom bond, which is the run at that bond given as a number, bit for
// bit, then grows it; its metrics go to grow-from-N under Out. A GrowFrom
// not below the bond is refused.
func TestTrainUMPSGrow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cycle.train")
	writePAutomaC(t, path, cycleStrings(400, 3), 3)
	format := datasets.PAutomaC
	out := filepath.Join(t.TempDir(), "run")
	spec := UMPSSpec{Data: path, Format: &format, Bond: BondAuto, GrowFrom: GrowAuto, Norm: new(umps.AllLengths), Epochs: 2, BatchSize: 40, LR: 0.03, InitNoise: 0.1, Seed: 2,
		BondRule: BondRule{Small: 2, Large: 3, WFA: wfa.Config{Bases: []int{2}, Ranks: []int{1, 2}}}, Out: out}
	grown, err := TrainUMPS(spec)
	if err != nil {
		t.Fatal(err)
	}
	if grown.Bond != 3 || grown.Grown == nil || grown.Grown.Bond != 2 || grown.Grown.Grown != nil || grown.Grown.LengthModel != "star" || math.Abs(grown.Grown.ValidNLLAll-grown.Grown.ValidNLL) > 1e-9 {
		t.Fatalf("grown: bond %d, grown from %+v, want 3 grown from 2", grown.Bond, grown.Grown)
	}
	if _, err := os.Stat(filepath.Join(out, "grow-from-2", "metrics.jsonl")); err != nil {
		t.Errorf("the smaller model's metrics: %v", err)
	}
	// The grown model trains at a hundredth of the rate.
	metrics, err := os.ReadFile(filepath.Join(out, "metrics.jsonl"))
	if err != nil || !strings.Contains(strings.SplitN(string(metrics), "\n", 2)[0], `"lr":0.0003,`) {
		t.Errorf("the grown model's first epoch: %q, %v, want lr 0.0003", metrics, err)
	}
	// A number given with a bond the rule chooses applies only below it.
	explicit := spec
	explicit.GrowFrom, explicit.Out = 3, ""
	if r, err := TrainUMPS(explicit); err != nil || r.Grown != nil {
		t.Errorf("auto bond 3, grow from 3: %v, grown from %+v, want no growth", err, r.Grown)
	}
	// Growth under P_n.
	pn := spec
	pn.Bond, pn.GrowFrom, pn.Norm, pn.Out = 3, 2, new(umps.PerLength), ""
	if r, err := TrainUMPS(pn); err != nil || r.Grown == nil || r.LengthModel != "fitted" {
		t.Errorf("P_n grown from 2: %v, %+v", err, r)
	}
	small := spec
	small.Bond, small.GrowFrom, small.Out = 2, 0, ""
	fixed, err := TrainUMPS(small)
	if err != nil {
		t.Fatal(err)
	}
	if fixed.ValidNLL != grown.Grown.ValidNLL || fixed.TrainNLL != grown.Grown.TrainNLL || fixed.Epochs != grown.Grown.Epochs {
		t.Errorf("bond 2 alone: valid NLL %v, train NLL %v; grown from: %v, %v", fixed.ValidNLL, fixed.TrainNLL, grown.Grown.ValidNLL, grown.Grown.TrainNLL)
	}
	for _, g := range []int{3, 4, -2} {
		bad := small
		bad.Bond, bad.GrowFrom = 3, g
		if _, err := TrainUMPS(bad); err == nil {
			t.Errorf("bond 3 grown from %d: no error", g)
		}
	}
	for _, bad := range []UMPSSpec{{GrowNoise: -1}, {GrowNoise: 2}, {GrowLR: math.NaN()}, {GrowLR: math.Inf(1)}} {
		b := small
		b.GrowNoise, b.GrowLR = bad.GrowNoise, bad.GrowLR
		if _, err := TrainUMPS(b); err == nil {
			t.Errorf("grow noise %v, rate %v: no error", bad.GrowNoise, bad.GrowLR)
		}
	}
}
