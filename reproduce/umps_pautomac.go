package reproduce

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/runs"
)

// PAutomaCReference is what the data folder's README gives for a problem:
// the optimal score (the perplexity of the true model) and scikit-splearn's
// validation-selected spectral automaton refitted on all training strings
// (NaN when the README has none).
type PAutomaCReference struct {
	Optimum, Splearn float64
}

// ReadPAutomaCReferences parses the two tables of the README: problem,
// type, states, alphabet, train, optimal score; and problem, optimal
// score, splearn configuration, its score fitted on 90%, refitted on 100%,
// ...
func ReadPAutomaCReferences(readme string) (map[int]PAutomaCReference, error) {
	f, err := os.Open(readme)
	if err != nil {
		return nil, errors.Wrap(err, "reproduce")
	}
	defer f.Close()
	refs := map[int]PAutomaCReference{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		cells := strings.Split(strings.Trim(strings.TrimSpace(sc.Text()), "|"), "|")
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
			r.Splearn = math.NaN()
		}
		if len(cells) == 6 { // problem table: the optimum is the last cell
			if r.Optimum, err = strconv.ParseFloat(cells[5], 64); err != nil {
				return nil, errors.Errorf("%s:%d: optimal score %q", readme, line, cells[5])
			}
		} else if r.Splearn, err = strconv.ParseFloat(cells[4], 64); err != nil {
			return nil, errors.Errorf("%s:%d: splearn score %q", readme, line, cells[4])
		}
		refs[p] = r
	}
	return refs, errors.Wrap(sc.Err(), "reproduce")
}

// umpsPAutomaCQuick are the problems of the quick run: small alphabets.
var umpsPAutomaCQuick = []int{24, 42}

// runUMPSPAutomaC trains a u-MPS on each problem's training strings and
// scores it on the test strings against the solution. Full mode: every
// problem with a training file, rtn umps train's default flags. Quick
// mode: two problems, D = 4, 2 epochs, no balanced start.
func runUMPSPAutomaC(ctx *Context) ([]Row, error) {
	dir := datasets.PAutomaCDir()
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
	spec := runs.UMPSSpec{Bond: 20, Epochs: 300, BalanceEpochs: 5}
	if ctx.Quick {
		problems, spec = umpsPAutomaCQuick, runs.UMPSSpec{Bond: 4, Epochs: 2}
	}
	format := datasets.PAutomaC
	var rows []Row
	for _, p := range problems {
		run := spec
		run.Data = filepath.Join(dir, fmt.Sprintf("%d.pautomac.train", p))
		run.Format, run.Seed, run.Progress = &format, ctx.Seed, ctx.Progress
		run.Out = filepath.Join(ctx.Dir, fmt.Sprintf("problem%d", p))
		rep, err := runs.TrainUMPS(run)
		if err != nil {
			return nil, errors.Wrapf(err, "PAutomaC problem %d", p)
		}
		m, meta, err := umps.LoadModel(run.Out)
		if err != nil {
			return nil, err
		}
		sc, err := runs.ScoreUMPS(m, meta, filepath.Join(dir, fmt.Sprintf("%d.pautomac.test", p)), format,
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
