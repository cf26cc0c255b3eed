package reproduce

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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

// stringsQuick are the problems and settings of quick mode: two small
// deterministic targets, a grid of two sizes and EM only.
var stringsQuick = []int{24, 42}

// stringsResult is one problem's figures.
type stringsResult struct {
	problem                             int
	kind                                string
	optimum, spectral, random, fit      float64
	family                              string
	states                              int
	fitSeconds, randomSeconds, specSecs float64
}

// runStringsSection runs rtn strings fit (the default learner, from the
// spectral start), the same learner from random starts with the same
// grid and budget, and the spectral WFA alone, on every PAutomaC problem
// with training data (quick mode: stringsQuick with a small grid), and
// reports the gaps to the optimum beside the 2012 winners'.
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
		spec.States, spec.Method, spec.EMIterations = []int{4, 8}, runs.MethodEM, 30
	} else {
		problems = nil
		for p := 1; p <= 48; p++ {
			if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("%d.pautomac.train", p))); err == nil {
				problems = append(problems, p)
			}
		}
	}
	results := make([]*stringsResult, len(problems))
	errs := make([]error, len(problems))
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < max(ctx.Jobs, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := stringsProblem(dir, problems[i], spec)
				if err != nil {
					errs[i] = errors.Wrapf(err, "PAutomaC problem %d", problems[i])
					continue
				}
				r.optimum, r.kind = refs[r.problem].Optimum, kinds[r.problem]
				results[i] = r
				mu.Lock()
				fmt.Fprintf(ctx.Log, "strings: problem %d (%s): fit %.4f (%s, %d states, %.0f s), random start %.4f, spectral %.4f, optimum %.4f\n",
					r.problem, r.kind, r.fit, r.family, r.states, r.fitSeconds, r.random, r.spectral, r.optimum)
				mu.Unlock()
			}
		}()
	}
	for i := range problems {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if ctx.Dir != "" {
		if err := writeStringsTable(filepath.Join(ctx.Dir, "table.md"), results, refs); err != nil {
			return nil, err
		}
	}
	return stringsRows(results), nil
}

// stringsProblem fits problem p three ways and scores each on its test
// strings.
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
	r := &stringsResult{problem: p}
	score := func(s runs.StringsFitSpec) (float64, *runs.StringsModel, float64, error) {
		s.Strings = &train
		began := time.Now()
		m, _, err := runs.FitStrings(s)
		if err != nil {
			return 0, nil, 0, err
		}
		secs := time.Since(began).Seconds()
		test, err := m.Read(base+".pautomac.test", datasets.PAutomaC)
		if err != nil {
			return 0, nil, 0, err
		}
		sc, err := runs.ScoreStrings(m, test.Seqs, sol, 1)
		if err != nil {
			return 0, nil, 0, err
		}
		return *sc.Perplexity, m, secs, nil
	}
	var m *runs.StringsModel
	if r.fit, m, r.fitSeconds, err = score(spec); err != nil {
		return nil, err
	}
	c := m.Fit.Candidates[m.Fit.Chosen]
	r.family, r.states = c.Family, c.States
	rs := spec
	rs.Start = runs.StartRandom
	if r.random, _, r.randomSeconds, err = score(rs); err != nil {
		return nil, err
	}
	ws := spec
	ws.Families = []string{runs.FamilyWFA}
	if r.spectral, _, r.specSecs, err = score(ws); err != nil {
		return nil, err
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

// stringsRows summarises the results: per problem, then the gaps of the
// default learner (all problems and per type) beside the winners'.
func stringsRows(results []*stringsResult) []Row {
	var rows []Row
	byKind := map[string][]float64{}
	var all []float64
	spectralWins, randomWins := 0, 0
	for _, r := range results {
		gap := r.fit - r.optimum
		all = append(all, gap)
		byKind[r.kind] = append(byKind[r.kind], gap)
		if r.fit < r.spectral {
			spectralWins++
		}
		if r.fit <= r.random {
			randomWins++
		}
		win := "n/a"
		if w, ok := winnersScore[r.problem]; ok {
			win = fmt.Sprintf("%.4g", w)
		}
		rows = append(rows, Row{Section: "strings", Metric: fmt.Sprintf("problem %d (%s) perplexity", r.problem, r.kind),
			Paper: fmt.Sprintf("optimum %.4f; winner %s", r.optimum, win), Measured: r.fit, Headline: true,
			Note: fmt.Sprintf("gap %.4f; %s %d states, %.0f s; random start %.4f; spectral WFA alone %.4f", gap, r.family, r.states, r.fitSeconds, r.random, r.spectral)})
	}
	mean, mx, geo := gapStats(all)
	rows = append(rows,
		Row{Section: "strings", Metric: "mean gap to the optimum", Paper: fmt.Sprintf("winners %.3f", winnersMeanGap), Measured: mean, Headline: true,
			Note: fmt.Sprintf("over %d problems; max %.4f (winners %.3f), geometric mean %.4f (winners %.4f)", len(all), mx, winnersMaxGap, geo, winnersGeoGap)},
		Row{Section: "strings", Metric: "problems where the fit beats the spectral WFA alone", Paper: fmt.Sprintf("%d problems", len(results)), Measured: float64(spectralWins)},
		Row{Section: "strings", Metric: "problems where the spectral start is at least as good as a random one", Paper: fmt.Sprintf("%d problems", len(results)), Measured: float64(randomWins)})
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

// writeStringsTable writes the per-problem table as Markdown.
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
				r.problem, r.kind, r.optimum, win, refs[r.problem].Splearn, r.spectral, r.random, r.fit, r.fit-r.optimum, r.family, r.states, r.fitSeconds)
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}
