package experiments

import (
	"bytes"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func init() {
	sections = append(sections, Section{Name: "test-section", Title: "a fixed section for the tests", Run: func(ctx *Context) ([]Row, error) {
		return []Row{{Metric: "answer", Paper: "42", Measured: 41.5, Note: "seed " + string(rune('0'+ctx.Seed))}}, nil
	}})
}

func TestReproduceWritesSummary(t *testing.T) {
	dir := t.TempDir()
	sum, err := Reproduce(ReproduceConfig{Quick: true, Only: []string{"test-section"}, Out: dir, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Rows) != 1 || sum.Rows[0].Section != "test-section" || sum.Rows[0].Note != "seed 3" {
		t.Fatalf("rows %+v", sum.Rows)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "section,metric,paper,measured,note\ntest-section,answer,42,41.5,seed 3\n"; string(csv) != want {
		t.Errorf("summary.csv:\n%s\nwant\n%s", csv, want)
	}
	var back Summary
	js, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &back); err != nil || len(back.Rows) != 1 || back.Rows[0].Measured != 41.5 {
		t.Errorf("summary.json: %v %+v", err, back)
	}
	var tab bytes.Buffer
	if err := sum.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tab.String(), "test-section  answer  42     41.5000") {
		t.Errorf("table:\n%s", tab.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "test-section")); err != nil {
		t.Errorf("section directory: %v", err)
	}
}

func TestReproduceUnknownSection(t *testing.T) {
	if _, err := Reproduce(ReproduceConfig{Only: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), "unknown section") {
		t.Errorf("err = %v", err)
	}
}

func TestLinePlotPNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.png")
	err := LinePlot(path, "t", "x", "y",
		[]Series{{Name: "a", X: []float64{1, 2, 3}, Y: []float64{3, math.NaN(), 1}}}, []HLine{{"ref", 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("image is %v", b)
	}
}

func TestFloatJSON(t *testing.T) {
	b, err := json.Marshal([]Float{1.5, Float(math.NaN()), Float(math.Inf(1))})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "[1.5,null,null]" {
		t.Errorf("got %s", b)
	}
}

func TestTrainSpecErrors(t *testing.T) {
	for _, spec := range []TrainSpec{
		{Model: "transformer"},
		{Hidden: -1},
		{Task: "nope"},
		{Optimizer: "nope"},
		{Schedule: "nope"},
	} {
		if _, err := Train(spec); err == nil {
			t.Errorf("Train(%+v) succeeded", spec)
		}
	}
}

// TestTrainTextFile trains briefly on a text file and checks the output
// directory.
func TestTrainTextFile(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "abc.txt")
	var lines []string
	for i := 0; i < 40; i++ {
		lines = append(lines, strings.Repeat("ab", 3+i%5)+"c")
	}
	if err := os.WriteFile(data, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	rep, err := Train(TrainSpec{Model: "rnn", Hidden: 8, DataFile: data, Epochs: 2, Batch: 8, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Task != "abc.txt" || rep.OptimalLoss != nil || rep.UniformLoss == nil || math.Abs(*rep.UniformLoss-math.Log(3)) > 1e-12 {
		t.Errorf("report %+v", rep)
	}
	for _, f := range []string{"checkpoint.npz", "metrics.jsonl", "model.npz", "result.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestRowJSONNaN(t *testing.T) {
	b, err := json.Marshal(Row{Section: "s", Metric: "m", Paper: "1", Measured: math.NaN()})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"section":"s","metric":"m","paper":"1","measured":null}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// TestRNNLSTMSection runs the real rnn-lstm section in quick mode and
// checks its rows and files.
func TestRNNLSTMSection(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two models for 10 epochs")
	}
	dir := t.TempDir()
	sum, err := Reproduce(ReproduceConfig{Quick: true, Only: []string{"rnn-lstm"}, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range sum.Rows {
		got[r.Metric] = r.Measured
	}
	opt, unif := got["optimal NLL (true automaton)"], got["uniform NLL"]
	for _, m := range []string{"rnn valid NLL (nats/symbol)", "lstm valid NLL (nats/symbol)"} {
		if v, ok := got[m]; !ok || !(v > opt && v < unif) {
			t.Errorf("%s = %v, want between the optimum %v and the uniform loss %v", m, v, opt, unif)
		}
	}
	for _, f := range []string{"summary.csv", "summary.json", "rnn-lstm/curves.csv", "rnn-lstm/curves.png", "rnn-lstm/lstm/model.npz"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestSummaryMarkdown(t *testing.T) {
	sum := &Summary{Quick: true, Seed: 2, Seconds: 12.4, Rows: []Row{
		{Section: "test-section", Metric: "answer", Paper: "42", Measured: 41.5, Note: "a|b"},
		{Section: "other", Metric: "nan", Paper: "n/a", Measured: math.NaN()},
	}}
	var b bytes.Buffer
	if err := sum.WriteMarkdown(&b, "rtn reproduce -markdown r.md"); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"Generated by `rtn reproduce -markdown r.md` (quick settings, seed 2, 12 s)",
		"## test-section: a fixed section for the tests\n\n| metric | paper | ours | note |\n|---|---|---|---|\n| answer | 42 | 41.5 | a\\|b |\n",
		"## other\n",
		"| nan | n/a | NaN |  |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("markdown lacks %q:\n%s", want, got)
		}
	}
}

func TestReplaceHeadline(t *testing.T) {
	sum := &Summary{Seed: 1, Seconds: 61, Rows: []Row{
		{Section: "a", Metric: "kept", Paper: "1", Measured: 2, Headline: true},
		{Section: "a", Metric: "dropped", Paper: "3", Measured: 4},
	}}
	doc := "# t\n\n" + HeadlineBegin + "\nold table\n" + HeadlineEnd + "\nafter\n"
	got, err := sum.ReplaceHeadline(doc, "rtn reproduce")
	if err != nil {
		t.Fatal(err)
	}
	want := "# t\n\n" + HeadlineBegin + "\n\n`rtn reproduce`, seed 1, 61 s:\n\n| section | metric | paper | ours |\n|---|---|---|---|\n| a | kept | 1 | 2 |\n\n" + HeadlineEnd + "\nafter\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	again, err := sum.ReplaceHeadline(got, "rtn reproduce")
	if err != nil || again != got {
		t.Errorf("replacing twice changed the text: %v", err)
	}
	if _, err := sum.ReplaceHeadline("no markers", "x"); err == nil {
		t.Error("a document without markers was accepted")
	}
}
