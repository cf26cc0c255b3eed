package reproduce

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/params"
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

// umpsPAutomaCResult is one problem of the umps-pautomac section.
type umpsPAutomaCResult struct {
	problem           int
	ref               PAutomaCReference
	umps              float64 // test perplexity
	validNLL          float64
	epochs, bestEpoch int
	seconds           float64
}

// runUMPSPAutomaC trains a u-MPS on each problem's training strings and
// scores it on the test strings against the solution, beside the
// README's optimum and scikit-splearn figure (the spectral WFA's are the
// wfa section's). Full mode: every problem with a training file,
// rtn umps train's default flags (DefaultUMPSFileSpec). Quick mode: two
// problems, the same defaults for 6 epochs. ctx.Jobs problems train at
// once; each uses its own seeded generators, so the numbers do not depend
// on it.
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
	spec := runs.DefaultUMPSFileSpec()
	spec.Seed = ctx.Seed
	if ctx.Quick {
		problems = umpsPAutomaCQuick
		spec.Epochs = 6
	}
	jobs := max(ctx.Jobs, 1)
	progress := ctx.Progress
	if jobs > 1 {
		progress = nil // one bar per run would garble the terminal
	}
	results := make([]*umpsPAutomaCResult, len(problems))
	errs := make([]error, len(problems))
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				run := spec
				run.Progress = progress
				r, err := umpsPAutomaCProblem(dir, problems[i], run, ctx.Dir)
				if err != nil {
					errs[i] = errors.Wrapf(err, "PAutomaC problem %d", problems[i])
					continue
				}
				r.ref = refs[r.problem]
				results[i] = r
				mu.Lock()
				fmt.Fprintf(ctx.Log, "umps-pautomac: problem %d: perplexity %.4f = %.4fx the optimum %.4f (splearn %.6g), %.0f s\n",
					r.problem, r.umps, r.umps/r.ref.Optimum, r.ref.Optimum, r.ref.Splearn, r.seconds)
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
		if err := writeUMPSPAutomaCTable(filepath.Join(ctx.Dir, "table.md"), results, spec); err != nil {
			return nil, err
		}
	}
	var rows []Row
	within, worst := 0, 0.0
	for _, r := range results {
		ratio := r.umps / r.ref.Optimum
		worst = max(worst, ratio)
		if ratio <= 1.05 {
			within++
		}
		rows = append(rows, Row{Section: "umps-pautomac", Metric: fmt.Sprintf("problem %d perplexity", r.problem),
			Paper:    fmt.Sprintf("optimum %.4f; splearn %.6g", r.ref.Optimum, r.ref.Splearn),
			Measured: r.umps, Headline: true,
			Note: fmt.Sprintf("%.4fx the optimum; D=%d, %d epochs (best %d), valid NLL %.4f nats/string, %.0f s",
				ratio, spec.Bond, r.epochs, r.bestEpoch, r.validNLL, r.seconds)})
	}
	rows = append(rows, Row{Section: "umps-pautomac", Metric: "problems within 1.05x the optimum",
		Paper: fmt.Sprintf("%d problems", len(results)), Measured: float64(within), Headline: true,
		Note: fmt.Sprintf("worst ratio %.4f", worst)})
	return rows, nil
}

// umpsPAutomaCProblem trains and scores the u-MPS of spec on problem p;
// outDir, if not empty, receives the u-MPS run.
func umpsPAutomaCProblem(dir string, p int, spec runs.UMPSSpec, outDir string) (*umpsPAutomaCResult, error) {
	format := datasets.PAutomaC
	base := filepath.Join(dir, fmt.Sprintf("%d.pautomac", p))
	solution := filepath.Join(dir, fmt.Sprintf("%d.pautomac_solution.txt", p))
	spec.Data, spec.Format = base+".train", &format
	tmp := ""
	if outDir != "" {
		spec.Out = filepath.Join(outDir, fmt.Sprintf("problem%d", p))
	} else {
		var err error
		if tmp, err = os.MkdirTemp("", "rtn-umps-pautomac"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		spec.Out = tmp
	}
	rep, err := runs.TrainUMPS(spec)
	if err != nil {
		return nil, err
	}
	m, meta, err := umps.LoadModel(spec.Out)
	if err != nil {
		return nil, err
	}
	sc, err := runs.ScoreUMPS(m, meta, base+".test", format, solution)
	if err != nil {
		return nil, err
	}
	r := &umpsPAutomaCResult{problem: p, umps: *sc.Perplexity, validNLL: rep.ValidNLLAll,
		epochs: rep.Epochs, bestEpoch: rep.BestEpoch, seconds: rep.Seconds}
	return r, nil
}

// writeUMPSPAutomaCTable writes the section's results as a Markdown table.
func writeUMPSPAutomaCTable(path string, results []*umpsPAutomaCResult, spec runs.UMPSSpec) error {
	return params.WriteFileAtomic(path, func(w io.Writer) error {
		var b strings.Builder
		fmt.Fprintf(&b, "u-MPS: D = %d, batch %d, norm %s, at most %d epochs, seed %d.\n\n", spec.Bond, spec.BatchSize, spec.Norm, spec.Epochs, spec.Seed)
		b.WriteString("| problem | optimum | u-MPS | ratio | splearn (README) | ratio | epochs (best) | seconds |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|\n")
		for _, r := range results {
			o := r.ref.Optimum
			fmt.Fprintf(&b, "| %d | %.4f | %.4f | %.4f | %.6g | %.4f | %d (%d) | %.0f |\n",
				r.problem, o, r.umps, r.umps/o, r.ref.Splearn, r.ref.Splearn/o, r.epochs, r.bestEpoch, r.seconds)
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}
