package experiments

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
)

// PAutomaCReference is what the data folder's README gives for a problem:
// the optimal score (the perplexity of the true model) and scikit-splearn's
// validation-selected spectral automaton refitted on all training strings.
// The splearn fields are NaN or empty when the README has none.
type PAutomaCReference struct {
	Optimum, Splearn float64
	// SplearnConfig is the configuration of Splearn ("factor, 5, 40":
	// version, lrows, rank), SplearnOracle the best score over splearn's
	// grid (it looks at the test set), SplearnSeconds splearn's fit time.
	SplearnConfig                 string
	SplearnOracle, SplearnSeconds float64
	// DivergentConfig and DivergentScore are splearn's own validation pick
	// and its refit score when the README says that pick diverges; Splearn
	// and SplearnConfig are then the README's non-divergent pick.
	DivergentConfig string
	DivergentScore  float64
}

// nonDivergentPick matches the README's sentence giving splearn's
// non-divergent pick of a problem: "(factor, 5, 26) on problem 5, scoring
// 33.2878 fitted on 90 % and 33.3924 refitted ...".
var nonDivergentPick = regexp.MustCompile(`\((\w+, \d+, \d+)\) on problem (\d+), scoring ([0-9]+\.[0-9]+)(?: fitted on 90 %)? and ([0-9]+\.[0-9]+)`)

// ReadPAutomaCReferences parses the README's two tables (problem, type,
// states, alphabet, train, optimal score; and problem, optimal score,
// splearn configuration, its score fitted on 90 %, refitted on 100 %,
// oracle-best score (config), fit time) and the sentence naming splearn's
// non-divergent pick where its validation pick diverges.
func ReadPAutomaCReferences(readme string) (map[int]PAutomaCReference, error) {
	text, err := os.ReadFile(readme)
	if err != nil {
		return nil, errors.Wrap(err, "experiments")
	}
	refs := map[int]PAutomaCReference{}
	num := func(line int, what, cell string) (float64, error) {
		f := strings.Fields(cell)
		if len(f) == 0 {
			return 0, errors.Errorf("%s:%d: empty %s", readme, line, what)
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return 0, errors.Errorf("%s:%d: %s %q", readme, line, what, cell)
		}
		return v, nil
	}
	for i, row := range strings.Split(string(text), "\n") {
		line := i + 1
		cells := strings.Split(strings.Trim(strings.TrimSpace(row), "|"), "|")
		if len(cells) < 6 {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		p, err := strconv.Atoi(cells[0])
		if err != nil {
			continue // a header or separator row
		}
		r, seen := refs[p]
		if !seen {
			r = PAutomaCReference{Splearn: math.NaN(), SplearnOracle: math.NaN(), SplearnSeconds: math.NaN(), DivergentScore: math.NaN()}
		}
		switch len(cells) {
		case 6: // problem table: the optimum is the last cell
			if r.Optimum, err = num(line, "optimal score", cells[5]); err != nil {
				return nil, err
			}
		case 7: // splearn table
			r.SplearnConfig = cells[2]
			if r.Splearn, err = num(line, "splearn score", cells[4]); err != nil {
				return nil, err
			}
			if r.SplearnOracle, err = num(line, "splearn oracle score", cells[5]); err != nil {
				return nil, err
			}
			if r.SplearnSeconds, err = num(line, "splearn fit time", cells[6]); err != nil {
				return nil, err
			}
		default:
			return nil, errors.Errorf("%s:%d: %d cells, want 6 or 7", readme, line, len(cells))
		}
		refs[p] = r
	}
	for _, m := range nonDivergentPick.FindAllStringSubmatch(strings.Join(strings.Fields(string(text)), " "), -1) {
		p, _ := strconv.Atoi(m[2])
		r, ok := refs[p]
		score, err := strconv.ParseFloat(m[4], 64)
		if !ok || err != nil || r.SplearnConfig == "" {
			return nil, errors.Errorf("%s: non-divergent pick of problem %s (%s) has no splearn row", readme, m[2], m[4])
		}
		r.DivergentConfig, r.DivergentScore = r.SplearnConfig, r.Splearn
		r.SplearnConfig, r.Splearn = m[1], score
		refs[p] = r
	}
	return refs, nil
}

// umpsPAutomaCQuick are the problems of the quick run: small alphabets.
var umpsPAutomaCQuick = []int{24, 42}

// runUMPSPAutomaC trains a u-MPS on each problem's training strings and
// scores it on the test strings against the solution. Full mode: every
// problem with a training file, rtn umps train's default flags. Quick
// mode: two problems, D = 4, 2 epochs, no balanced start.
func runUMPSPAutomaC(ctx *Context) ([]Row, error) {
	dir := PAutomaCDir()
	if dir == "" {
		fmt.Fprintln(ctx.Log, "umps-pautomac: no PAutomaC data (shared/data/pautomac or $RTN_PAUTOMAC_DIR); skipped")
		return nil, nil
	}
	refs, err := ReadPAutomaCReferences(filepath.Join(dir, "README.md"))
	if err != nil {
		return nil, err
	}
	var problems []int
	for p := 1; p <= 48; p++ {
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("%d.pautomac.train", p))); err == nil {
			problems = append(problems, p)
		}
	}
	spec := UMPSSpec{Bond: 20, Epochs: 300, BalanceEpochs: 5}
	if ctx.Quick {
		problems, spec = umpsPAutomaCQuick, UMPSSpec{Bond: 4, Epochs: 2}
	}
	format := datasets.PAutomaC
	var rows []Row
	for _, p := range problems {
		run := spec
		run.Data = filepath.Join(dir, fmt.Sprintf("%d.pautomac.train", p))
		run.Format, run.Seed, run.Progress = &format, ctx.Seed, ctx.Progress
		run.Out = filepath.Join(ctx.Dir, fmt.Sprintf("problem%d", p))
		rep, err := TrainUMPS(run)
		if err != nil {
			return nil, errors.Wrapf(err, "PAutomaC problem %d", p)
		}
		m, meta, err := LoadUMPS(run.Out)
		if err != nil {
			return nil, err
		}
		sc, err := ScoreUMPS(m, meta, filepath.Join(dir, fmt.Sprintf("%d.pautomac.test", p)), format,
			filepath.Join(dir, fmt.Sprintf("%d.pautomac_solution.txt", p)))
		if err != nil {
			return nil, errors.Wrapf(err, "PAutomaC problem %d", p)
		}
		ref := refs[p]
		fmt.Fprintf(ctx.Log, "umps-pautomac: problem %d: perplexity %.4f (optimum %.4f, splearn %.6g), %.0f s\n",
			p, *sc.Perplexity, ref.Optimum, ref.Splearn, rep.Seconds)
		rows = append(rows, Row{Section: "umps-pautomac", Metric: fmt.Sprintf("problem %d perplexity", p),
			Paper:    fmt.Sprintf("optimum %.4f; splearn %.6g", ref.Optimum, ref.Splearn),
			Measured: *sc.Perplexity, Headline: true,
			Note: fmt.Sprintf("%.3fx the optimum; D=%d, valid NLL %.4f nats/string", *sc.Perplexity/ref.Optimum, run.Bond, rep.ValidNLLAll)})
	}
	return rows, nil
}
