package reproduce

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/runs"
)

// Row is one line of the reproduction summary: a figure the paper
// reports, next to ours.
type Row struct {
	Section string `json:"section"`
	Metric  string `json:"metric"`
	// Paper is the paper's figure as printed there ("n/a" where the paper
	// has none, e.g. for the training loop's own checks).
	Paper string `json:"paper"`
	// Measured is our figure, computed by this run (null in JSON when it
	// is NaN or infinite).
	Measured float64 `json:"measured"`
	// Note says how to read the row (units, reference values).
	Note string `json:"note,omitempty"`
	// Headline marks the rows the README's headline table shows.
	Headline bool `json:"headline,omitempty"`
	// Budget, set by quick runs on the rows with a paper figure, says
	// that the row ran a reduced budget and names the page with the long
	// run (budgetNote).
	Budget string `json:"budget,omitempty"`
}

// budgetNote is the Budget of a quick row with a paper figure in the
// section whose long runs are on page (a path under docs/).
func budgetNote(page string) string {
	return "quick budget, not the paper's setting; long run: [" + page + "](" + page + ")"
}

// hasPaperFigure reports whether paper, a Row's Paper, is a figure of
// the paper (not "n/a" or "n/a (...)").
func hasPaperFigure(paper string) bool {
	return paper != "" && !strings.HasPrefix(paper, "n/a")
}

// MarshalJSON writes a row with a non-finite measurement as null (JSON
// has no NaN).
func (r Row) MarshalJSON() ([]byte, error) {
	type plain Row
	return json.Marshal(struct {
		plain
		Measured report.Float `json:"measured"`
	}{plain(r), report.Float(r.Measured)})
}

// Context is what a section gets to run with.
type Context struct {
	// Quick selects the short settings (the default of rtn reproduce).
	Quick bool
	// Seed seeds everything stochastic in the section.
	Seed uint64
	// Dir is the section's own output directory (created).
	Dir string
	// Log receives progress lines.
	Log io.Writer
	// Progress receives progress bars (nil: none).
	Progress io.Writer
	// Jobs is how many independent runs a section may train at once
	// (sections that support it; each run's numbers do not depend on it).
	Jobs int
	// Resume asks the sections that keep per-problem results in Dir to
	// reuse them (ReproduceConfig.Resume).
	Resume bool
}

// Section is one experiment of rtn reproduce.
type Section struct {
	// Name is the short name -only selects it by.
	Name string
	// Title says what it reproduces.
	Title string
	// Run runs the experiment and returns its summary rows.
	Run func(ctx *Context) ([]Row, error)
	// LongRun is the page under docs/ with the section's runs at the
	// paper's settings, named by the quick rows' Budget.
	LongRun string
}

// sections lists every section of rtn reproduce in the order they run.
var sections = []Section{
	{Name: "rnn-lstm", Title: "Elman RNN and LSTM on the built-in automaton task (a check of the training loop, no paper figure)", Run: runRNNLSTM, LongRun: "tensor-models.md"},
	{Name: "optimizers", Title: "optimizer comparisons: 2-RNN fine-tuning from a spectral estimate, PCNN (Riemannian against Adam and SGD)", Run: runOptimizersSection, LongRun: "compare.md"},
	{Name: "pcnn", Title: "persistent contextual networks with Riemannian training (Ollivier), Table 1", Run: runPCNNSection, LongRun: "papers/pcnn.md"},
	{Name: "pretrain", Title: "Linear-autoencoder pre-training of RNNs on piano rolls (Pasa and Sperduti 2014, Table 1 and Figure 1)", Run: runPretrainSection, LongRun: "papers/pretrain.md"},
	{Name: "spectral", Title: "linear 2-RNNs learned from Hankel tensors (Rabusseau et al. 2019, Figures 3-5)", Run: runSpectralSection, LongRun: "papers/spectral.md"},
	{Name: "umps", Title: "u-MPS Born machines on Tomita grammars and the Motzkin language (Tables 2 and 3 of the u-MPS paper)", Run: runUMPS, LongRun: "papers/umps.md"},
	{Name: "umps-pautomac", Title: "u-MPS perplexity on the PAutomaC problems beside the optimum and scikit-splearn", Run: runUMPSPAutomaC, LongRun: "umps.md"},
	{Name: "wfa", Title: "spectral WFAs and their fine-tuning on the PAutomaC problems, against scikit-splearn 1.2.1", Run: runWFASection, LongRun: "wfa.md"},
	{Name: "strings", Title: "rtn strings fit (spectral start, PFA and HMM, EM and gradient) on the PAutomaC problems, beside the optimum and the 2012 winners", Run: runStringsSection, LongRun: "strings.md"},
}

// Sections lists the sections' names in order.
func Sections() []string {
	var n []string
	for _, s := range sections {
		n = append(n, s.Name)
	}
	return n
}

// ReproduceConfig sets a reproduction run. The zero value runs every
// section in full settings with seed 1 and writes nothing. It follows the
// spec contract of package runs: WithDefaults fills the unset fields,
// Validate refuses a bad value with a *runs.FieldError naming the field.
type ReproduceConfig struct {
	// Quick runs every section's short settings (a few minutes in all;
	// the command line's default); false runs the papers' full settings.
	Quick bool
	// Only names the sections to run (Sections); empty means all.
	Only []string
	// Out is the output directory: summary.csv, summary.json and one
	// folder per section go there; it is locked for the run
	// (runs.LockOutputs). If empty, nothing is written.
	Out string
	// Seed seeds every section. If 0, it will be defaulted to 1.
	Seed uint64
	// Jobs is how many independent runs a section may train at once (each
	// run's numbers do not depend on it). If 0, it will be defaulted to 1.
	Jobs int
	// Resume reuses the per-problem results an earlier run with the same
	// Quick and Seed left in Out (the strings section keeps one file per
	// PAutomaC problem, written as each problem ends), so that a full run
	// of many hours can be stopped and taken up again; the problems without
	// one are run. The results are reused whatever version of rtn made
	// them: after changing the code, resume into a fresh Out. Needs Out.
	Resume bool
	// Log receives the sections' progress lines (nil: none).
	Log io.Writer
	// Progress receives progress bars (nil: none).
	Progress io.Writer
}

// WithDefaults returns the config with its unset fields at their
// defaults.
func (c ReproduceConfig) WithDefaults() ReproduceConfig {
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Jobs == 0 {
		c.Jobs = 1
	}
	return c
}

// Validate checks the config's values (a *runs.FieldError); a zero left
// in Seed or Jobs is refused (WithDefaults fills them).
func (c ReproduceConfig) Validate() error {
	for _, name := range c.Only {
		if _, err := selectSections([]string{name}); err != nil {
			return &runs.FieldError{Field: "Only", Err: err}
		}
	}
	switch {
	case c.Seed == 0:
		return &runs.FieldError{Field: "Seed", Value: c.Seed, Want: ">= 1 (0 is unset: WithDefaults makes it 1)"}
	case c.Resume && c.Out == "":
		return &runs.FieldError{Field: "Resume", Want: "given with an output directory {Out}"}
	case c.Jobs < 1 || c.Jobs > runs.MaxJobs:
		return &runs.FieldError{Field: "Jobs", Value: c.Jobs, Want: fmt.Sprintf("in [1, %d] (0 is unset: WithDefaults makes it 1)", runs.MaxJobs)}
	}
	return nil
}

// Summary is the result of a reproduction run.
type Summary struct {
	Quick   bool    `json:"quick"`
	Seed    uint64  `json:"seed"`
	Seconds float64 `json:"seconds"`
	Rows    []Row   `json:"rows"`
}

// Reproduce runs the selected sections and writes the summary files.
func Reproduce(cfg ReproduceConfig) (*Summary, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := runs.CheckOutDir("{Out}", cfg.Out); err != nil {
		return nil, err
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	run, err := selectSections(cfg.Only)
	if err != nil {
		return nil, err
	}
	lock, err := runs.LockOutputs([]string{cfg.Out}, nil)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	start := time.Now()
	sum := &Summary{Quick: cfg.Quick, Seed: cfg.Seed}
	for _, s := range run {
		ctx := &Context{Quick: cfg.Quick, Seed: cfg.Seed, Log: cfg.Log, Progress: cfg.Progress, Jobs: cfg.Jobs, Resume: cfg.Resume}
		if cfg.Out != "" {
			ctx.Dir = filepath.Join(cfg.Out, s.Name)
			if err := os.MkdirAll(ctx.Dir, 0o755); err != nil {
				return nil, errors.Wrap(err, "creating the output directory")
			}
		}
		fmt.Fprintf(cfg.Log, "== %s: %s\n", s.Name, s.Title)
		t0 := time.Now()
		rows, err := s.Run(ctx)
		if err != nil {
			return nil, errors.Wrapf(err, "section %s", s.Name)
		}
		fmt.Fprintf(cfg.Log, "== %s done in %.1fs\n", s.Name, time.Since(t0).Seconds())
		for i := range rows {
			rows[i].Section = s.Name
			if cfg.Quick && hasPaperFigure(rows[i].Paper) {
				rows[i].Budget = budgetNote(s.LongRun)
			}
		}
		sum.Rows = append(sum.Rows, rows...)
	}
	sum.Seconds = time.Since(start).Seconds()
	if cfg.Out != "" {
		if err := sum.write(cfg.Out); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

func selectSections(only []string) ([]Section, error) {
	if len(only) == 0 {
		return sections, nil
	}
	var out []Section
	for _, name := range only {
		found := false
		for _, s := range sections {
			if s.Name == name {
				out = append(out, s)
				found = true
			}
		}
		if !found {
			return nil, errors.Errorf("unknown section %q (known: %s)", name, strings.Join(Sections(), ", "))
		}
	}
	return out, nil
}

func (s *Summary) write(dir string) error {
	var rows [][]string
	for _, r := range s.Rows {
		rows = append(rows, []string{r.Section, r.Metric, r.Paper, report.Ftoa(r.Measured), r.Note})
	}
	if err := report.WriteCSV(filepath.Join(dir, "summary.csv"), []string{"section", "metric", "paper", "measured", "note"}, rows); err != nil {
		return err
	}
	return report.WriteJSON(filepath.Join(dir, "summary.json"), s)
}

// WriteTable prints the summary as an aligned table: section, metric,
// the paper's figure and ours.
func (s *Summary) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "section\tmetric\tpaper\tmeasured\tnote")
	for _, r := range s.Rows {
		m := "NaN"
		if !math.IsNaN(r.Measured) {
			m = fmt.Sprintf("%.4f", r.Measured)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Section, r.Metric, r.Paper, m, r.Note)
	}
	return tw.Flush()
}

// WriteMarkdown writes the summary as a Markdown page: one table per
// section with the paper's figure beside ours, headed by the command that
// regenerates it and the run's settings.
func (s *Summary) WriteMarkdown(w io.Writer, command string) error {
	mode := "quick"
	if !s.Quick {
		mode = "full"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Results\n\nGenerated by `%s` (%s settings, seed %d, %.0f s); do not edit by hand.\n", command, mode, s.Seed, s.Seconds)
	b.WriteString("Each row puts the paper's figure beside ours; the note says what was run. Quick settings use\n")
	b.WriteString("reduced sizes and budgets, so read the rows as \"does the effect come out\"; the pages under\n")
	b.WriteString("[papers/](papers/) hold the longer runs.\n")
	section := ""
	for _, r := range s.Rows {
		if r.Section != section {
			section = r.Section
			title := section
			for _, sec := range sections {
				if sec.Name == section {
					title = sec.Name + ": " + sec.Title
				}
			}
			fmt.Fprintf(&b, "\n## %s\n\n| metric | paper | ours | note |\n|---|---|---|---|\n", title)
		}
		note := mdCell(r.Note)
		if r.Budget != "" {
			note = strings.TrimPrefix(note+"; "+mdCell(r.Budget), "; ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdCell(r.Metric), mdCell(r.Paper), measuredCell(r.Measured), note)
	}
	_, err := io.WriteString(w, b.String())
	return errors.Wrap(err, "reproduce: writing the Markdown summary")
}

// measuredCell writes a measurement for a Markdown table: 4 significant
// digits, or as many more (up to 8) as keep it within 1e-4 of its value
// relative, so that a ratio of 1.0004 does not read as 1.
func measuredCell(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	for digits := 4; ; digits++ {
		s := strconv.FormatFloat(v, 'g', digits, 64)
		if r, err := strconv.ParseFloat(s, 64); digits == 8 || err == nil && math.Abs(r-v) <= 1e-4*math.Abs(v) {
			return s
		}
	}
}

// mdCell escapes the characters that would break a Markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// Headline block markers: ReplaceHeadline rewrites what lies between them.
const (
	HeadlineBegin = "<!-- headline:begin (generated by rtn reproduce -readme; do not edit) -->"
	HeadlineEnd   = "<!-- headline:end -->"
)

// ReplaceHeadline returns doc with the text between HeadlineBegin and
// HeadlineEnd replaced by a Markdown table of the summary's headline rows
// (section, metric, paper, ours), headed by the command that made it. It
// fails when doc lacks the markers.
func (s *Summary) ReplaceHeadline(doc, command string) (string, error) {
	i := strings.Index(doc, HeadlineBegin)
	j := strings.Index(doc, HeadlineEnd)
	if i < 0 || j < i {
		return "", errors.Errorf("reproduce: no %q ... %q block", HeadlineBegin, HeadlineEnd)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n`%s`, seed %d, %.0f s:\n\n| section | metric | paper | ours |\n|---|---|---|---|\n", HeadlineBegin, command, s.Seed, s.Seconds)
	for _, r := range s.Rows {
		if !r.Headline {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.Section, mdCell(r.Metric), mdCell(r.Paper), measuredCell(r.Measured))
	}
	b.WriteString("\n")
	return doc[:i] + b.String() + doc[j:], nil
}
