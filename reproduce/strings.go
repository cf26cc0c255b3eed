package reproduce

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/runs"
)

// PAutomaC 2012 winners' figures from the data README ("The competition's
// own results"): the first-placed score's gap to the optimum over the 48
// problems, and the first-placed scores it gives individually.
const (
	winnersMeanGap = 0.025
	winnersMaxGap  = 0.097
	winnersGeoGap  = 0.0125
)

var winnersScore = map[int]float64{17: 47.35, 20: 91.00, 21: 30.57, 25: 65.78, 26: 80.83, 37: 21.00, 41: 13.92, 44: 11.73, 45: 24.05, 47: 4.119}

// stringsQuick are the problems of quick mode: two small deterministic
// targets, with a growing grid capped at 12 states, EM capped at 30
// iterations and the gradient at 10 epochs.
var stringsQuick = []int{24, 42}

// stringsSubsamples are the training sizes of the paper's regime: the
// first N strings of each training set.
var stringsSubsamples = []int{1000, 5000}

// stringsFit is one fit's test figure.
type stringsFit struct {
	perplexity, seconds float64
	family              string
	states              int
}

// stringsSub is a subsample's figures: spectral then refinement against
// the spectral WFA alone.
type stringsSub struct {
	n             int
	fit, spectral stringsFit
}

// stringsResult is one problem's figures.
type stringsResult struct {
	problem               int
	kind                  string
	optimum               float64
	fit, random, spectral stringsFit
	subs                  []stringsSub
}

// runStringsSection runs rtn strings fit (the default learner, from the
// spectral start), the same learner from random starts with the same
// grid and budget, and the spectral WFA alone, on every PAutomaC problem
// with training data (quick mode: stringsQuick with a small grid), and on
// the subsamples of stringsSubsamples the learner and the WFA, and reports
// the gaps to the optimum beside the 2012 winners'.
func runStringsSection(ctx *Context) ([]Row, error) {
	dir := datasets.PAutomaCDir()
	if dir == "" {
		fmt.Fprintln(ctx.Log, "strings: no PAutomaC data (shared/data/pautomac or $RTN_PAUTOMAC_DIR); skipped")
		return nil, nil
	}
	refs, err := ReadPAutomaCReferences(filepath.Join(dir, "README.md"))
	if err != nil {
		return nil, err
	}
	kinds, err := readPAutomaCTypes(filepath.Join(dir, "README.md"))
	if err != nil {
		return nil, err
	}
	problems := stringsQuick
	spec := runs.StringsFitSpec{Seed: ctx.Seed}
	if ctx.Quick {
		spec.StatesMax, spec.EMIterations, spec.Training.Epochs = 12, 30, 10
	} else {
		problems = nil
		for p := 1; p <= 48; p++ {
			if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("%d.pautomac.train", p))); err == nil {
				problems = append(problems, p)
			}
		}
	}
	results := make([]*stringsResult, len(problems))
	err = forEachProblem(problems, ctx.Jobs, func(i int, log func(format string, args ...any)) error {
		r, err := stringsProblem(dir, problems[i], spec)
		if err != nil {
			return err
		}
		r.optimum, r.kind = refs[r.problem].Optimum, kinds[r.problem]
		results[i] = r
		log("strings: problem %d (%s): fit %.4f (%s, %d states, %.0f s), random start %.4f, spectral %.4f, optimum %.4f\n",
			r.problem, r.kind, r.fit.perplexity, r.fit.family, r.fit.states, r.fit.seconds, r.random.perplexity, r.spectral.perplexity, r.optimum)
		return nil
	}, ctx.Log)
	if err != nil {
		return nil, err
	}
	if ctx.Dir != "" {
		if err := writeStringsTable(filepath.Join(ctx.Dir, "table.md"), results, refs); err != nil {
			return nil, err
		}
	}
	return stringsRows(results), nil
}

// stringsProblem fits problem p (the learner of spec from the spectral
// start, from a random start, and the spectral WFA alone) and, on each
// subsample, the learner and the WFA, scoring each on the test strings.
func stringsProblem(dir string, p int, spec runs.StringsFitSpec) (*stringsResult, error) {
	base := filepath.Join(dir, strconv.Itoa(p))
	train, err := datasets.ReadStringsFile(base+".pautomac.train", datasets.PAutomaC, nil)
	if err != nil {
		return nil, err
	}
	sol, err := datasets.ReadSolutionFile(base + ".pautomac_solution.txt")
	if err != nil {
		return nil, err
	}
	score := func(s runs.StringsFitSpec, data *datasets.Symbols) (stringsFit, error) {
		s.Strings = data
		began := time.Now()
		m, _, err := runs.FitStrings(s)
		if err != nil {
			return stringsFit{}, err
		}
		f := stringsFit{seconds: time.Since(began).Seconds()}
		test, err := m.Read(base+".pautomac.test", datasets.PAutomaC)
		if err != nil {
			return stringsFit{}, err
		}
		sc, err := runs.ScoreStrings(m, test.Seqs, sol, 1)
		if err != nil {
			return stringsFit{}, err
		}
		f.perplexity = *sc.Perplexity
		c := m.Fit.Candidates[m.Fit.Chosen]
		f.family, f.states = c.Family, c.States
		return f, nil
	}
	rs, ws := spec, spec
	rs.Start = runs.StartRandom
	ws.Families = []string{runs.FamilyWFA}
	r := &stringsResult{problem: p}
	if r.fit, err = score(spec, &train); err != nil {
		return nil, err
	}
	if r.random, err = score(rs, &train); err != nil {
		return nil, err
	}
	if r.spectral, err = score(ws, &train); err != nil {
		return nil, err
	}
	for _, n := range stringsSubsamples {
		if n >= len(train.Seqs) {
			continue
		}
		sub := datasets.Symbols{Alphabet: train.Alphabet, Seqs: train.Seqs[:n]}
		s := stringsSub{n: n}
		if s.fit, err = score(spec, &sub); err != nil {
			return nil, err
		}
		if s.spectral, err = score(ws, &sub); err != nil {
			return nil, err
		}
		r.subs = append(r.subs, s)
	}
	return r, nil
}

// gapStats are the mean, maximum and geometric mean of gaps (a gap of 0
// counts as 1e-6 in the geometric mean).
func gapStats(gaps []float64) (mean, maxGap, geo float64) {
	if len(gaps) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	lg := 0.0
	for _, g := range gaps {
		mean += g
		maxGap = max(maxGap, g)
		lg += math.Log(max(g, 1e-6))
	}
	n := float64(len(gaps))
	return mean / n, maxGap, math.Exp(lg / n)
}

// stringsTally counts, over the problems, how often spectral then
// refinement beats the spectral WFA alone (and its worst ratio to it).
type stringsTally struct {
	wins, total int
	worst       float64
}

func (t *stringsTally) add(fit, spectral float64) {
	t.total++
	if fit < spectral {
		t.wins++
	}
	t.worst = max(t.worst, fit/spectral)
}

func (t *stringsTally) row(metric string) Row {
	return Row{Section: "strings", Metric: metric, Paper: fmt.Sprintf("%d problems", t.total), Measured: float64(t.wins), Headline: true,
		Note: fmt.Sprintf("worst ratio of the fit to the spectral WFA %.5f", t.worst)}
}

// stringsRows summarises the results: per problem, then the gaps of the
// default learner (all problems and per type) beside the winners', and
// how often the spectral start and the refinement pay.
func stringsRows(results []*stringsResult) []Row {
	var rows []Row
	byKind := map[string][]float64{}
	var all []float64
	randomWins := 0
	full := stringsTally{}
	subs := map[int]*stringsTally{}
	for _, r := range results {
		gap := r.fit.perplexity - r.optimum
		all = append(all, gap)
		byKind[r.kind] = append(byKind[r.kind], gap)
		full.add(r.fit.perplexity, r.spectral.perplexity)
		if r.fit.perplexity <= r.random.perplexity {
			randomWins++
		}
		win := "n/a"
		if w, ok := winnersScore[r.problem]; ok {
			win = fmt.Sprintf("%.4g", w)
		}
		rows = append(rows, Row{Section: "strings", Metric: fmt.Sprintf("problem %d (%s) perplexity", r.problem, r.kind),
			Paper: fmt.Sprintf("optimum %.4f; winner %s", r.optimum, win), Measured: r.fit.perplexity, Headline: true,
			Note: fmt.Sprintf("gap %.4f; %s %d states, %.0f s; random start %.4f (%d states, %.0f s); spectral WFA alone %.4f",
				gap, r.fit.family, r.fit.states, r.fit.seconds, r.random.perplexity, r.random.states, r.random.seconds, r.spectral.perplexity)})
		for _, sb := range r.subs {
			if subs[sb.n] == nil {
				subs[sb.n] = &stringsTally{}
			}
			subs[sb.n].add(sb.fit.perplexity, sb.spectral.perplexity)
			rows = append(rows, Row{Section: "strings", Metric: fmt.Sprintf("problem %d, first %d strings, perplexity", r.problem, sb.n),
				Paper: fmt.Sprintf("optimum %.4f", r.optimum), Measured: sb.fit.perplexity,
				Note: fmt.Sprintf("spectral WFA alone %.4f; %s %d states, %.0f s", sb.spectral.perplexity, sb.fit.family, sb.fit.states, sb.fit.seconds)})
		}
	}
	mean, mx, geo := gapStats(all)
	rows = append(rows,
		Row{Section: "strings", Metric: "mean gap to the optimum", Paper: fmt.Sprintf("winners %.3f", winnersMeanGap), Measured: mean, Headline: true,
			Note: fmt.Sprintf("over %d problems; max %.4f (winners %.3f), geometric mean %.4f (winners %.4f)", len(all), mx, winnersMaxGap, geo, winnersGeoGap)},
		full.row("problems where spectral then refinement beats the spectral WFA alone"),
		Row{Section: "strings", Metric: "problems where the spectral start is at least as good as a random one", Paper: fmt.Sprintf("%d problems", len(results)), Measured: float64(randomWins), Headline: true})
	for _, n := range stringsSubsamples {
		if t := subs[n]; t != nil {
			rows = append(rows, t.row(fmt.Sprintf("problems where spectral then refinement beats the spectral WFA alone, first %d strings", n)))
		}
	}
	for _, k := range []string{"HMM", "PFA", "DPFA"} {
		if g := byKind[k]; len(g) > 0 {
			mean, mx, geo := gapStats(g)
			rows = append(rows, Row{Section: "strings", Metric: k + " mean gap", Paper: "n/a", Measured: mean,
				Note: fmt.Sprintf("%d problems; max %.4f, geometric mean %.4f", len(g), mx, geo)})
		}
	}
	return rows
}

// readPAutomaCTypes reads the type column (HMM, PFA, DPFA) of the README's
// problem table.
func readPAutomaCTypes(readme string) (map[int]string, error) {
	text, err := os.ReadFile(readme)
	if err != nil {
		return nil, errors.Wrap(err, "reproduce")
	}
	kinds := map[int]string{}
	for _, row := range strings.Split(string(text), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(row), "|"), "|")
		if len(cells) != 6 {
			continue
		}
		p, err := strconv.Atoi(strings.TrimSpace(cells[0]))
		if err != nil {
			continue
		}
		kinds[p] = strings.TrimSpace(cells[1])
	}
	return kinds, nil
}

// writeStringsTable writes the per-problem table as Markdown: the full
// training sets, then the subsamples.
func writeStringsTable(path string, results []*stringsResult, refs map[int]PAutomaCReference) error {
	return params.WriteFileAtomic(path, func(w io.Writer) error {
		var b strings.Builder
		b.WriteString("| problem | type | optimum | winner | splearn | spectral WFA | random start | rtn strings fit | gap | model | seconds |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, r := range results {
			win := "n/a"
			if v, ok := winnersScore[r.problem]; ok {
				win = fmt.Sprintf("%.4g", v)
			}
			fmt.Fprintf(&b, "| %d | %s | %.4f | %s | %.6g | %.4f | %.4f | %.4f | %.4f | %s %d | %.0f |\n",
				r.problem, r.kind, r.optimum, win, refs[r.problem].Splearn, r.spectral.perplexity, r.random.perplexity,
				r.fit.perplexity, r.fit.perplexity-r.optimum, r.fit.family, r.fit.states, r.fit.seconds)
		}
		b.WriteString("\n| problem | strings | optimum | spectral WFA | rtn strings fit | model | seconds |\n")
		b.WriteString("|---|---|---|---|---|---|---|\n")
		for _, r := range results {
			for _, sb := range r.subs {
				fmt.Fprintf(&b, "| %d | %d | %.4f | %.4f | %.4f | %s %d | %.0f |\n",
					r.problem, sb.n, r.optimum, sb.spectral.perplexity, sb.fit.perplexity, sb.fit.family, sb.fit.states, sb.fit.seconds)
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}
