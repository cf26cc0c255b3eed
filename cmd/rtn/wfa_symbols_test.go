package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/spectral"
)

// symbolsTol is the relative difference allowed between the scores of
// two models learned from the same strings written in two formats: their
// symbol ids differ, which only changes the order of floating-point sums.
const symbolsTol = 1e-12

// symbolsData is a sample over 12 symbols named "0".."11", whose sorted
// names ("0", "1", "10", "11", "2", ...) are not in numeric order, written
// in both PAutomaC and lines format.
type symbolsData struct {
	dir                        string
	train, test                datasets.Symbols
	trainP, trainL, testP      string
	testL, solution, prefixesP string
	prefixesL                  string
}

// writeSymbolsData draws the sample from a seeded 2-state probabilistic
// automaton over 12 symbols and writes the files (the solution holds the
// test strings' true probabilities, the prefixes are the test strings'
// first two symbols).
func writeSymbolsData(t *testing.T) symbolsData {
	t.Helper()
	const symbols, states = 12, 2
	rng := rand.New(rand.NewPCG(7, 11))
	w := spectral.WFA{States: states, Out: 1, Alpha: []float64{1, 0}, Omega: []float64{0.2, 0.3}}
	w.Trans = make([][]float64, symbols)
	for s := range w.Trans {
		w.Trans[s] = make([]float64, states*states)
		for k := range w.Trans[s] {
			w.Trans[s][k] = rng.Float64()
		}
	}
	for i := range states { // row i of all the matrices sums to 1 - Omega[i]
		sum := 0.0
		for s := range w.Trans {
			for j := range states {
				sum += w.Trans[s][i*states+j]
			}
		}
		for s := range w.Trans {
			for j := range states {
				w.Trans[s][i*states+j] *= (1 - w.Omega[i]) / sum
			}
		}
	}
	names := make([]string, symbols)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	d := symbolsData{dir: t.TempDir()}
	d.train, d.test = datasets.Symbols{Alphabet: names}, datasets.Symbols{Alphabet: names}
	prefixes := datasets.Symbols{Alphabet: names}
	sol := []string{"200"}
	for k := range 2200 {
		x, err := w.Sample(rng, 30)
		if err != nil {
			t.Fatal(err)
		}
		if k < 2000 {
			d.train.Seqs = append(d.train.Seqs, x)
			continue
		}
		d.test.Seqs = append(d.test.Seqs, x)
		prefixes.Seqs = append(prefixes.Seqs, x[:min(2, len(x))])
		sol = append(sol, strconv.FormatFloat(w.Value(x), 'g', -1, 64))
	}
	write := func(name string, s datasets.Symbols, f datasets.StringFormat) string {
		var b bytes.Buffer
		if err := datasets.WriteStrings(&b, s, f); err != nil {
			t.Fatal(err)
		}
		return writeText(t, d.dir, name, b.String())
	}
	d.trainP, d.trainL = write("train.pautomac", d.train, datasets.PAutomaC), write("train.lines", d.train, datasets.Lines)
	d.testP, d.testL = write("test.pautomac", d.test, datasets.PAutomaC), write("test.lines", d.test, datasets.Lines)
	d.prefixesP, d.prefixesL = write("prefixes.spice", prefixes, datasets.SPiCe), write("prefixes.lines", prefixes, datasets.Lines)
	d.solution = writeText(t, d.dir, "solution", strings.Join(sol, "\n")+"\n")
	return d
}

// writeText writes text to dir/name and returns the path.
func writeText(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// mustInvoke runs a command that must succeed and returns its stdout.
func mustInvoke(t *testing.T, args ...string) string {
	t.Helper()
	stdout, stderr, code := invoke(args...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

// learnSymbolsModels learns one model from the lines training file and
// one from the PAutomaC one, with the same configuration.
func learnSymbolsModels(t *testing.T, d symbolsData) (lines, counted string) {
	t.Helper()
	lines, counted = filepath.Join(d.dir, "l.json"), filepath.Join(d.dir, "p.json")
	fit := []string{"-rank", "4", "-lrows", "2", "-hankel", "factor"}
	mustInvoke(t, append([]string{"wfa", "learn", "-train", d.trainL, "-format", "lines", "-out", lines}, fit...)...)
	mustInvoke(t, append([]string{"wfa", "learn", "-train", d.trainP, "-out", counted}, fit...)...)
	return lines, counted
}

// A model learned from a lines file scores a PAutomaC test file as the
// lines form of that file and as the model learned from the PAutomaC
// training file: symbols are matched by name, not by position.
func TestWFAScoreMatchesSymbolsByName(t *testing.T) {
	d := writeSymbolsData(t)
	lines, counted := learnSymbolsModels(t, d)
	var want float64
	for _, c := range []struct{ model, format, test string }{
		{counted, "pautomac", d.testP},
		{counted, "lines", d.testL},
		{lines, "pautomac", d.testP},
		{lines, "lines", d.testL},
	} {
		p := jsonPerplexity(t, "wfa", "score", "-model", c.model, "-format", c.format, "-test", c.test, "-solution", d.solution, "-json")
		if want == 0 {
			want = p
		}
		if math.Abs(p-want) > symbolsTol*want {
			t.Errorf("%s on %s: perplexity %.17g, want %.17g", filepath.Base(c.model), filepath.Base(c.test), p, want)
		}
	}
}

// rank writes symbol names, the same for both models and both prefix
// formats, and NDCG@5 against SPiCe targets agrees between the models.
func TestWFARankWritesSymbolNames(t *testing.T) {
	d := writeSymbolsData(t)
	lines, counted := learnSymbolsModels(t, d)
	want := mustInvoke(t, "wfa", "rank", "-model", counted, "-format", "spice", "-prefixes", d.prefixesP)
	for _, c := range []struct{ format, prefixes string }{{"spice", d.prefixesP}, {"lines", d.prefixesL}} {
		if got := mustInvoke(t, "wfa", "rank", "-model", lines, "-format", c.format, "-prefixes", c.prefixes); got != want {
			t.Fatalf("lines model, %s prefixes: rankings\n%.200s\nwant (PAutomaC model)\n%.200s", c.format, got, want)
		}
	}
	// Targets that hold the PAutomaC model's rankings as the truth, with
	// probabilities 0.4, 0.2, ...: that model scores 1.
	var targets strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
		ideal, p := 0.0, 0.4
		var pairs strings.Builder
		for j, s := range strings.Fields(line) {
			ideal += p / math.Log2(float64(j+2))
			fmt.Fprintf(&pairs, " %s %g", s, p)
			p /= 2
		}
		fmt.Fprintf(&targets, "%.17g%s\n", ideal, pairs.String())
	}
	tpath := writeText(t, d.dir, "targets", targets.String())
	for _, model := range []string{counted, lines} {
		out := mustInvoke(t, "wfa", "rank", "-model", model, "-format", "spice", "-prefixes", d.prefixesP, "-targets", tpath, "-json")
		var res struct {
			NDCG float64 `json:"ndcg5"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.NDCG-1) > symbolsTol {
			t.Errorf("%s: NDCG@5 %.17g, want 1", filepath.Base(model), res.NDCG)
		}
	}
}

// Fine-tuning a lines model on the PAutomaC form of its training strings
// is fine-tuning it on the lines form.
func TestWFAFinetuneMatchesSymbolsByName(t *testing.T) {
	d := writeSymbolsData(t)
	lines, _ := learnSymbolsModels(t, d)
	run := func(format, train string) []byte {
		out := filepath.Join(d.dir, format+".json")
		mustInvoke(t, "wfa", "finetune", "-model", lines, "-format", format, "-train", train, "-epochs", "1", "-check", "none", "-quiet", "-out", out)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got, want := run("pautomac", d.trainP), run("lines", d.trainL); !bytes.Equal(got, want) {
		t.Fatalf("fine-tuned on the PAutomaC file:\n%.300s\nwant (lines file)\n%.300s", got, want)
	}
}

// sample writes a lines model's strings under their names in every
// format, and refuses a counted format for names that are not numbers,
// writing nothing.
func TestWFASampleWritesSymbolNames(t *testing.T) {
	d := writeSymbolsData(t)
	lines, _ := learnSymbolsModels(t, d)
	sample := func(model, format string) datasets.Symbols {
		out := mustInvoke(t, "wfa", "sample", "-model", model, "-n", "20", "-seed", "3", "-format", format)
		s, err := datasets.ReadStrings(strings.NewReader(out), datasets.Lines, nil)
		if format != "lines" {
			s, err = datasets.ReadStrings(strings.NewReader(out), datasets.PAutomaC, nil)
		}
		if err != nil {
			t.Fatalf("-format %s: %v in\n%s", format, err, out)
		}
		return s
	}
	p, l := sample(lines, "pautomac"), sample(lines, "lines")
	for i := range l.Seqs {
		if got, want := p.Format(p.Seqs[i], " "), l.Format(l.Seqs[i], " "); got != want {
			t.Fatalf("string %d: %q in PAutomaC format, %q in lines format", i, got, want)
		}
	}

	letters := filepath.Join(d.dir, "ab.json")
	ab := writeText(t, d.dir, "ab.lines", "a b\nb a a\n\na\nb b\n")
	mustInvoke(t, "wfa", "learn", "-train", ab, "-format", "lines", "-rank", "1", "-lrows", "1", "-out", letters)
	out := filepath.Join(d.dir, "ab.out")
	for _, args := range [][]string{
		{"wfa", "sample", "-model", letters, "-format", "pautomac"},
		{"wfa", "sample", "-model", letters, "-format", "spice", "-out", out},
	} {
		stdout, stderr, code := invoke(args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, `writes symbols as numbers and `+letters+` has a symbol named "a"`) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused sample left %s (%v)", out, err)
	}
}

// Strings read against a model: a symbol the model does not know, in any
// format, is an error naming the file and line; a lines token that is not
// UTF-8 is refused with its line and column; rank refuses an alphabet
// that holds its end marker's name.
func TestWFASymbolErrors(t *testing.T) {
	dir := t.TempDir()
	// Symbols "1" and "2" only: ids 0 and 1.
	model := filepath.Join(dir, "m.json")
	mustInvoke(t, "wfa", "learn", "-train", writeText(t, dir, "t.lines", "1 2\n2 1 1\n2\n1 1\n"), "-format", "lines", "-rank", "1", "-lrows", "1", "-out", model)
	minus := filepath.Join(dir, "minus.json")
	mustInvoke(t, "wfa", "learn", "-train", writeText(t, dir, "minus.lines", "-1 a\na\na -1 a\n"), "-format", "lines", "-rank", "1", "-lrows", "1", "-out", minus)
	counted := writeText(t, dir, "test.pautomac", "2 2\n1 1\n2 1 0\n")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"score", []string{"score", "-model", model, "-test", counted}, "test.pautomac:3: symbol \"0\" is not in the alphabet"},
		{"rank", []string{"rank", "-model", model, "-format", "spice", "-prefixes", counted}, "test.pautomac:3: symbol \"0\""},
		{"finetune", []string{"finetune", "-model", model, "-train", counted, "-epochs", "1"}, "test.pautomac:3: symbol \"0\""},
		{"lines", []string{"score", "-model", model, "-format", "lines", "-test", writeText(t, dir, "u.lines", "1\n1 3\n")}, "u.lines:2: symbol \"3\" is not in the alphabet"},
		{"utf8-learn", []string{"learn", "-format", "lines", "-rank", "1", "-lrows", "1", "-train", writeText(t, dir, "x.lines", "a \xff\nb a\n")}, "x.lines:1:3: invalid UTF-8"},
		{"utf8-score", []string{"score", "-model", model, "-format", "lines", "-test", writeText(t, dir, "y.lines", "1\n2 \xfe1\n")}, "y.lines:2:3: invalid UTF-8"},
		{"end-name", []string{"rank", "-model", minus, "-format", "lines", "-prefixes", writeText(t, dir, "p.lines", "a\n")}, "holds a symbol named -1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := invoke(append([]string{"wfa"}, c.args...)...)
			if code != 1 || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q, want exit 1 and %q", code, stdout, stderr, c.want)
			}
		})
	}
}

// umps score reads strings against its model by name as wfa score does.
func TestUMPSScoreMatchesSymbolsByName(t *testing.T) {
	d := writeSymbolsData(t)
	run := filepath.Join(d.dir, "run")
	mustInvoke(t, "umps", "train", "-data", d.trainL, "-format", "lines", "-bond", "2", "-epochs", "1", "-quiet", "-out", run)
	var want float64
	for _, c := range []struct{ format, test string }{{"lines", d.testL}, {"pautomac", d.testP}} {
		p := jsonPerplexity(t, "umps", "score", "-model", run, "-format", c.format, "-test", c.test, "-solution", d.solution, "-json")
		if want == 0 {
			want = p
		}
		if math.Abs(p-want) > symbolsTol*want {
			t.Errorf("-format %s: perplexity %.17g, want %.17g (lines)", c.format, p, want)
		}
	}
}

// jsonPerplexity runs a score command with -json and returns its
// "perplexity".
func jsonPerplexity(t *testing.T, args ...string) float64 {
	t.Helper()
	var res struct {
		Perplexity float64 `json:"perplexity"`
	}
	if err := json.Unmarshal([]byte(mustInvoke(t, args...)), &res); err != nil {
		t.Fatal(err)
	}
	return res.Perplexity
}
