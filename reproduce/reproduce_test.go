package reproduce

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/runs"
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

// TestReproduceConfigRefuses checks that Reproduce refuses what rtn
// reproduce refuses, with the same field errors, before any section runs.
func TestReproduceConfigRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, field, msg string
		cfg              ReproduceConfig
	}{
		{"negative jobs", "Jobs", "Jobs must be in [1, 1024]", ReproduceConfig{Only: []string{"test-section"}, Jobs: -1}},
		{"too many jobs", "Jobs", "Jobs must be in [1, 1024]", ReproduceConfig{Only: []string{"test-section"}, Jobs: 100000}},
		{"unknown section", "Only", "Only: unknown section \"nope\"", ReproduceConfig{Only: []string{"test-section", "nope"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Reproduce(tc.cfg)
			var fe *runs.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %v, want a field error of %s saying %q", err, tc.field, tc.msg)
			}
		})
	}
	// A zero left after WithDefaults is refused: the command line's -seed 0.
	if err := (ReproduceConfig{Jobs: 1}).Validate(); err == nil || !strings.Contains(err.Error(), "Seed must be >= 1") {
		t.Errorf("seed 0: err = %v", err)
	}
	if err := (ReproduceConfig{}).WithDefaults().Validate(); err != nil {
		t.Errorf("the zero config with its defaults: %v", err)
	}
	// An Out that is a file is refused before any section runs.
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var pe *runs.PathError
	if _, err := Reproduce(ReproduceConfig{Only: []string{"test-section"}, Out: file}); !errors.As(err, &pe) || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("Out a file: err = %v, want a *runs.PathError saying it is not a directory", err)
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

// Measurements keep 4 significant digits unless that moves them by more
// than 1e-4 relative.
func TestMeasuredCell(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{1.0004, "1.0004"}, {1.00762, "1.0076"}, {38.98123, "38.98"}, {2, "2"}, {0.01479, "0.01479"}, {1e-9 + 1, "1"}, {math.NaN(), "NaN"}, {math.Inf(1), "+Inf"}} {
		if got := measuredCell(c.v); got != c.want {
			t.Errorf("measuredCell(%g) = %q, want %q", c.v, got, c.want)
		}
	}
}

// A quick row with a paper figure says in its note that its budget is the
// quick one and names the page of the long run; a row without one does not.
func TestBudgetNote(t *testing.T) {
	for _, tc := range []struct {
		paper string
		want  bool
	}{{"65.67", true}, {"plot (Adamax, lr 0.001)", true}, {"n/a", false}, {"n/a (RNN 8.37 [BL2012])", false}, {"", false}} {
		if got := hasPaperFigure(tc.paper); got != tc.want {
			t.Errorf("hasPaperFigure(%q) = %v, want %v", tc.paper, got, tc.want)
		}
	}
	s := &Summary{Quick: true, Rows: []Row{
		{Section: "pretrain", Metric: "acc", Paper: "65.67", Measured: 23.3, Note: "5 epochs", Budget: budgetNote("papers/pretrain.md")},
	}}
	var b strings.Builder
	if err := s.WriteMarkdown(&b, "rtn reproduce"); err != nil {
		t.Fatal(err)
	}
	if want := "| acc | 65.67 | 23.3 | 5 epochs; quick budget, not the paper's setting; long run: [papers/pretrain.md](papers/pretrain.md) |"; !strings.Contains(b.String(), want) {
		t.Errorf("markdown lacks %q:\n%s", want, b.String())
	}
}
