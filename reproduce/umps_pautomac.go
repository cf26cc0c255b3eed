package reproduce

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/runs"
	"github.com/rtnlab/rtn/wfa"
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
		return nil, errors.Wrap(err, "reproduce")
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

// umpsPAutomaCResult is one problem of the umps-pautomac section.
type umpsPAutomaCResult struct {
	problem           int
	ref               PAutomaCReference
	umps              float64 // test perplexity
	validNLL          float64
	epochs, bestEpoch int
	seconds           float64
	// bond is the bond dimension trained, rank the spectral rank that
	// chose it (0 for a fixed bond), bondSeconds the time that took.
	bond, rank  int
	bondSeconds float64
	// grownFrom is the bond dimension the u-MPS was grown from (0: none);
	// epochs and bestEpoch count the grown model's training, seconds
	// both models'.
	grownFrom int
	// wfa is the test perplexity of the spectral automaton the bond rule
	// fitted (rtn wfa learn -mixture 1's), 0 for a fixed bond.
	wfa float64
}

// runUMPSPAutomaC trains a u-MPS on each problem's training strings and
// scores it on the test strings against the solution, beside the
// README's optimum and scikit-splearn figure and the spectral WFA that
// chose the bond dimension (rtn wfa learn -mixture 1). Full mode:
// every problem with a training file, rtn umps train's default flags
// (DefaultUMPSFileSpec, the bond dimension
// chosen per problem by BondRule). Quick mode: two problems, the same
// defaults for 6 epochs. ctx.Jobs problems train at
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
	err = forEachProblem(problems, jobs, func(i int, log func(format string, args ...any)) error {
		run := spec
		run.Progress = progress
		r, err := umpsPAutomaCProblem(dir, problems[i], run, ctx.Dir)
		if err != nil {
			return err
		}
		r.ref = refs[r.problem]
		results[i] = r
		log("umps-pautomac: problem %d: D = %s, perplexity %.4f = %.4fx the optimum %.4f (spectral WFA %.6g, splearn %.6g), %.0f s\n",
			r.problem, r.bondText(), r.umps, r.umps/r.ref.Optimum, r.ref.Optimum, r.wfa, r.ref.Splearn, r.seconds)
		return nil
	}, ctx.Log)
	if err != nil {
		return nil, err
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
			Note: fmt.Sprintf("%.4fx the optimum; spectral WFA %.6g; D=%s (spectral rank %d), %d epochs (best %d), valid NLL %.4f nats/string, %.0f s",
				ratio, r.wfa, r.bondText(), r.rank, r.epochs, r.bestEpoch, r.validNLL, r.seconds)})
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
		epochs: rep.Epochs, bestEpoch: rep.BestEpoch, seconds: rep.Seconds,
		bond: rep.Bond, rank: rep.SpectralRank, bondSeconds: rep.BondSeconds}
	if rep.Grown != nil {
		r.grownFrom = rep.Grown.Bond
		r.seconds += rep.Grown.Seconds
	}
	if rep.Spectral != nil {
		test, err := datasets.ReadStringsFile(base+".test", format, meta.Alphabet)
		if err != nil {
			return nil, err
		}
		sol, err := datasets.ReadSolutionFile(solution)
		if err != nil {
			return nil, err
		}
		if r.wfa, err = wfa.Score(rep.Spectral, test.Seqs, sol); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// bondText is the bond dimension, with the one it was grown from.
func (r *umpsPAutomaCResult) bondText() string {
	if r.grownFrom > 0 {
		return fmt.Sprintf("%d (grown from %d)", r.bond, r.grownFrom)
	}
	return strconv.Itoa(r.bond)
}

// writeUMPSPAutomaCTable writes the section's results as a Markdown table.
func writeUMPSPAutomaCTable(path string, results []*umpsPAutomaCResult, spec runs.UMPSSpec) error {
	return params.WriteFileAtomic(path, func(w io.Writer) error {
		var b strings.Builder
		fmt.Fprintf(&b, "u-MPS: batch %d, norm %s, at most %d epochs, seed %d; D chosen per problem (spectral rank in brackets, s the time that took; a D grown from a trained smaller one says from which, its epochs are the grown model's and its seconds both models').\n\n", spec.BatchSize, *spec.Norm, spec.Epochs, spec.Seed)
		b.WriteString("| problem | optimum | D (rank, s) | u-MPS | ratio | spectral WFA | ratio | splearn (README) | ratio | epochs (best) | seconds |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, r := range results {
			o := r.ref.Optimum
			fmt.Fprintf(&b, "| %d | %.4f | %s (%d, %.0f) | %.4f | %.4f | %.4f | %.4f | %.6g | %.4f | %d (%d) | %.0f |\n",
				r.problem, o, r.bondText(), r.rank, r.bondSeconds, r.umps, r.umps/o, r.wfa, r.wfa/o, r.ref.Splearn, r.ref.Splearn/o, r.epochs, r.bestEpoch, r.seconds)
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}
