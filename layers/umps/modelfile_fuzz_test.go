package umps

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp/syntax"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/rtnlab/rtn/internal/fuzzcheck"
)

// The fuzz targets of the u-MPS model file and of the regexes its
// samplers take: an error or a model (a regex) every query accepts, never
// a panic, and no allocation beyond a constant plus what the input can
// hold (a deflated .npz entry expands up to about 1032 times).

// fuzzModelFiles returns small model files: a P_* model and a per-length
// model with its length model.
func fuzzModelFiles(tb testing.TB) [][]byte {
	dir := tb.TempDir()
	lengths, err := FitLengths([]int{0, 1, 2, 2, 5})
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for i, meta := range []ModelMeta{
		{Kind: "umps", Data: "tomita1", Alphabet: []string{"0", "1"}, Bond: 2, Norm: AllLengths.String()},
		{Kind: "umps", Data: "file", Alphabet: []string{"a", "bb", "c"}, Bond: 2, Norm: PerLength.String(), Lengths: lengths},
	} {
		p, err := NewParams(2, len(meta.Alphabet), NearIdentity, rand.New(rand.NewPCG(uint64(i), 1)))
		if err != nil {
			tb.Fatal(err)
		}
		path := filepath.Join(dir, "m.npz")
		if err := SaveModel(path, meta, p); err != nil {
			tb.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func FuzzLoadModel(f *testing.F) {
	for _, b := range fuzzModelFiles(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "model.npz")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(b), 10000), func() {
			m, meta, err := LoadModel(path)
			if err != nil {
				return
			}
			if err := meta.Check(m); err != nil {
				t.Fatalf("LoadModel returned a model its metadata does not describe: %v", err)
			}
			seqs := [][]int{{}, {0}, {m.Symbols - 1, 0}}
			if _, err := m.LogProbsN(seqs); err != nil {
				t.Fatalf("a loaded model refuses strings over its alphabet: %v", err)
			}
			meta.Distribution(m).LogProbs(seqs)
		})
	})
}

// fuzzRegexAlphabet bounds the alphabet of FuzzCompileRegex, and
// fuzzRegexRepeat the counts of its patterns' repetitions (x{n,m}): a
// count of a thousand is a valid pattern of a thousand DFA states, whose
// exact sampler solves its largest system (maxExactSystem unknowns, about
// 290 MB and seconds), which the target allows but need not draw often.
const (
	fuzzRegexAlphabet = 6
	fuzzRegexRepeat   = 32
)

// exactSystemBytes is the most the exact sampler's dense system takes.
const exactSystemBytes = 8 * maxExactSystem * maxExactSystem

// largeRepeat reports whether pattern parses and repeats something more
// than fuzzRegexRepeat times.
func largeRepeat(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl|syntax.DotNL)
	if err != nil {
		return false
	}
	var walk func(*syntax.Regexp) bool
	walk = func(re *syntax.Regexp) bool {
		if re.Op == syntax.OpRepeat && (re.Min > fuzzRegexRepeat || re.Max > fuzzRegexRepeat) {
			return true
		}
		return slices.ContainsFunc(re.Sub, walk)
	}
	return walk(re)
}

func FuzzCompileRegex(f *testing.F) {
	for _, s := range [][2]string{
		{"0*1(01)*", "01"}, {"(a|b)*c{2,3}", "abc"}, {".*1.{3}", "01"}, {"[^a]+|()", "ab"},
		{"(0|00)*", "01"}, {"x{1000}", "xy"}, {"((0*)*)*1", "01"}, {"", "0"},
	} {
		f.Add(s[0], s[1])
	}
	lengths, err := FitLengths([]int{0, 1, 3, 4})
	if err != nil {
		f.Fatal(err)
	}
	models := make([]*MPS, fuzzRegexAlphabet+1)
	for d := 1; d <= fuzzRegexAlphabet; d++ {
		m, err := New(2, d, RandomNormal, rand.New(rand.NewPCG(uint64(d), 7)))
		if err != nil {
			f.Fatal(err)
		}
		s := math.Sqrt(0.5 / exactRho(m)) // the transfer operator's radius 0.5: Z_* is finite
		for i := range m.A {
			m.A[i] *= s
		}
		models[d] = m
	}
	f.Fuzz(func(t *testing.T, pattern, alphabet string) {
		if !utf8.ValidString(alphabet) || utf8.RuneCountInString(alphabet) > fuzzRegexAlphabet {
			t.Skip("an alphabet of more than a few characters")
		}
		if largeRepeat(pattern) {
			t.Skip("a repetition count above the fuzzing cap")
		}
		fuzzcheck.Bounded(t, fuzzcheck.Limit(len(pattern), 1<<16)+exactSystemBytes, func() {
			r, err := CompileRegex(pattern, alphabet)
			if err != nil {
				return
			}
			_ = r.String()
			m := models[utf8.RuneCountInString(alphabet)]
			rng := rand.New(rand.NewPCG(1, 2))
			for _, dist := range []Distribution{{M: m}, {M: m, Lengths: lengths}} {
				dist.LogProbRegex(r)
				for _, method := range []SampleMethod{SampleAuto, SampleExact} {
					out, _, err := dist.Sample(r, 2, method, rng)
					if err != nil {
						continue
					}
					for _, s := range out {
						if err := m.checkSeq(s); err != nil {
							t.Fatalf("a sample of %q: %v", pattern, err)
						}
					}
				}
			}
		})
	})
}
