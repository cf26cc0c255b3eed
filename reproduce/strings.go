package reproduce

import (
	"bytes"
	"encoding/json"
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
	Perplexity float64 `json:"perplexity"`
	Seconds    float64 `json:"seconds"`
	// Family is the chosen candidate's family, or "mixture" when the
	// mixture of the trained automata was kept.
	Family string `json:"family"`
	States int    `json:"states"`
	// Families are the test perplexities of each family's best candidate
	// on validation, the mixture aside.
	Families map[string]float64 `json:"families,omitempty"`
}

// family returns the test perplexity of the family's best candidate, or
// "n/a" when the fit did not try it or tried one family alone.
func (f stringsFit) family(name string) string {
	if v, ok := f.Families[name]; ok {
		return fmt.Sprintf("%.4f", v)
	}
	return "n/a"
}

// stringsSub is a subsample's figures: spectral then refinement against
// the spectral WFA alone.
type stringsSub struct {
	N        int        `json:"strings"`
	Fit      stringsFit `json:"fit"`
	Spectral stringsFit `json:"spectral"`
}

// stringsResult is one problem's figures.
type stringsResult struct {
	Problem  int          `json:"problem"`
	Kind     string       `json:"type"`
	Optimum  float64      `json:"optimum"`
	Fit      stringsFit   `json:"fit"`
	Random   stringsFit   `json:"random"`
	Spectral stringsFit   `json:"spectral"`
	Subs     []stringsSub `json:"subsamples"`
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
	learner, err := json.Marshal(spec.WithDefaults())
	if err != nil {
		return nil, err
	}
	keep := stringsKept{Quick: ctx.Quick, Seed: ctx.Seed, Learner: string(learner)}
	err = forEachProblem(problems, ctx.Jobs, func(i int, log func(format string, args ...any)) error {
		path := ""
		if ctx.Dir != "" {
			path = filepath.Join(ctx.Dir, "problems", fmt.Sprintf("%d.json", problems[i]))
		}
		r, err := keep.load(path, ctx.Resume)
		if err != nil || r != nil {
			results[i] = r
			if r != nil {
				log("strings: problem %d: kept from %s\n", r.Problem, path)
			}
			return err
		}
		if r, err = stringsProblem(dir, problems[i], spec); err != nil {
			return err
		}
		r.Optimum, r.Kind = refs[r.Problem].Optimum, kinds[r.Problem]
		if err := keep.save(path, r); err != nil {
			return err
		}
		results[i] = r
		log("strings: problem %d (%s): fit %.4f (%s, %d states, %.0f s), random start %.4f, spectral %.4f, optimum %.4f\n",
			r.Problem, r.Kind, r.Fit.Perplexity, r.Fit.Family, r.Fit.States, r.Fit.Seconds, r.Random.Perplexity, r.Spectral.Perplexity, r.Optimum)
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

// stringsKept is the file the strings section keeps for each problem
// it has run (problems/P.json in its directory): the settings and the
// figures, reused by ReproduceConfig.Resume when the settings match.
// Learner is the learner's spec, with its defaults, as JSON.
type stringsKept struct {
	Quick   bool           `json:"quick"`
	Seed    uint64         `json:"seed"`
	Learner string         `json:"learner"`
	Result  *stringsResult `json:"result,omitempty"`
}

// load returns the result kept at path when resume is set and the file
// exists (nil when there is none), refusing one made with other settings.
func (k stringsKept) load(path string, resume bool) (*stringsResult, error) {
	if path == "" || !resume {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var got stringsKept
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil || got.Result == nil {
		return nil, errors.Errorf("%s: not a kept result (%v); remove it to run the problem again", path, err)
	}
	if got.Quick != k.Quick || got.Seed != k.Seed {
		return nil, errors.Errorf("%s was made with quick %v, seed %d, not quick %v, seed %d: resume into another directory", path, got.Quick, got.Seed, k.Quick, k.Seed)
	}
	if got.Learner != k.Learner {
		return nil, errors.Errorf("%s was made by another learner (%s, not %s): resume into another directory", path, got.Learner, k.Learner)
	}
	return got.Result, nil
}

// save writes r to path atomically ("" writes nothing).
func (k stringsKept) save(path string, r *stringsResult) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	k.Result = r
	return params.WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(k)
	})
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
	test, err := datasets.ReadStringsFile(base+".pautomac.test", datasets.PAutomaC, train.Alphabet)
	if err != nil {
		return nil, err
	}
	perplexity := func(m *runs.StringsModel) (float64, error) {
		sc, err := runs.ScoreStrings(m, test.Seqs, sol, 1)
		if err != nil {
			return 0, err
		}
		return *sc.Perplexity, nil
	}
	score := func(s runs.StringsFitSpec, data *datasets.Symbols) (stringsFit, error) {
		s.Strings = data
		began := time.Now()
		m, sum, err := runs.FitStrings(s)
		if err != nil {
			return stringsFit{}, err
		}
		f := stringsFit{Seconds: time.Since(began).Seconds()}
		if f.Perplexity, err = perplexity(m); err != nil {
			return stringsFit{}, err
		}
		c := m.Fit.Candidates[m.Fit.Chosen]
		f.Family, f.States = c.Family, c.States
		if c.Method == runs.MethodMixture {
			f.Family = runs.MethodMixture
		}
		if len(sum.FamilyBest) > 1 {
			f.Families = map[string]float64{}
			for fam, fm := range sum.FamilyBest {
				if f.Families[fam], err = perplexity(fm); err != nil {
					return stringsFit{}, err
				}
			}
		}
		return f, nil
	}
	rs, ws := spec, spec
	rs.Start = runs.StartRandom
	ws.Families = []string{runs.FamilyWFA}
	r := &stringsResult{Problem: p}
	if r.Fit, err = score(spec, &train); err != nil {
		return nil, err
	}
	if r.Random, err = score(rs, &train); err != nil {
		return nil, err
	}
	if r.Spectral, err = score(ws, &train); err != nil {
		return nil, err
	}
	for _, n := range stringsSubsamples {
		if n >= len(train.Seqs) {
			continue
		}
		sub := datasets.Symbols{Alphabet: train.Alphabet, Seqs: train.Seqs[:n]}
		s := stringsSub{N: n}
		if s.Fit, err = score(spec, &sub); err != nil {
			return nil, err
		}
		if s.Spectral, err = score(ws, &sub); err != nil {
			return nil, err
		}
		r.Subs = append(r.Subs, s)
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
		gap := r.Fit.Perplexity - r.Optimum
		all = append(all, gap)
		byKind[r.Kind] = append(byKind[r.Kind], gap)
		full.add(r.Fit.Perplexity, r.Spectral.Perplexity)
		if r.Fit.Perplexity <= r.Random.Perplexity {
			randomWins++
		}
		win := "n/a"
		if w, ok := winnersScore[r.Problem]; ok {
			win = fmt.Sprintf("%.4g", w)
		}
		rows = append(rows, Row{Section: "strings", Metric: fmt.Sprintf("problem %d (%s) perplexity", r.Problem, r.Kind),
			Paper: fmt.Sprintf("optimum %.4f; winner %s", r.Optimum, win), Measured: r.Fit.Perplexity, Headline: true,
			Note: fmt.Sprintf("gap %.4f; %s %d states, %.0f s; best PFA %s, best HMM %s; random start %.4f (%d states, %.0f s); spectral WFA alone %.4f",
				gap, r.Fit.Family, r.Fit.States, r.Fit.Seconds, r.Fit.family(runs.FamilyPFA), r.Fit.family(runs.FamilyHMM),
				r.Random.Perplexity, r.Random.States, r.Random.Seconds, r.Spectral.Perplexity)})
		for _, sb := range r.Subs {
			if subs[sb.N] == nil {
				subs[sb.N] = &stringsTally{}
			}
			subs[sb.N].add(sb.Fit.Perplexity, sb.Spectral.Perplexity)
			rows = append(rows, Row{Section: "strings", Metric: fmt.Sprintf("problem %d, first %d strings, perplexity", r.Problem, sb.N),
				Paper: fmt.Sprintf("optimum %.4f", r.Optimum), Measured: sb.Fit.Perplexity,
				Note: fmt.Sprintf("spectral WFA alone %.4f; %s %d states, %.0f s", sb.Spectral.Perplexity, sb.Fit.Family, sb.Fit.States, sb.Fit.Seconds)})
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
		b.WriteString("| problem | type | optimum | winner | splearn | spectral WFA | random start | PFA | HMM | rtn strings fit | gap | model | seconds |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, r := range results {
			win := "n/a"
			if v, ok := winnersScore[r.Problem]; ok {
				win = fmt.Sprintf("%.4g", v)
			}
			fmt.Fprintf(&b, "| %d | %s | %.4f | %s | %.6g | %.4f | %.4f | %s | %s | %.4f | %.4f | %s %d | %.0f |\n",
				r.Problem, r.Kind, r.Optimum, win, refs[r.Problem].Splearn, r.Spectral.Perplexity, r.Random.Perplexity,
				r.Fit.family(runs.FamilyPFA), r.Fit.family(runs.FamilyHMM), r.Fit.Perplexity, r.Fit.Perplexity-r.Optimum, r.Fit.Family, r.Fit.States, r.Fit.Seconds)
		}
		b.WriteString("\n| problem | strings | optimum | spectral WFA | rtn strings fit | model | seconds |\n")
		b.WriteString("|---|---|---|---|---|---|---|\n")
		for _, r := range results {
			for _, sb := range r.Subs {
				fmt.Fprintf(&b, "| %d | %d | %.4f | %.4f | %.4f | %s %d | %.0f |\n",
					r.Problem, sb.N, r.Optimum, sb.Spectral.Perplexity, sb.Fit.Perplexity, sb.Fit.Family, sb.Fit.States, sb.Fit.Seconds)
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}
