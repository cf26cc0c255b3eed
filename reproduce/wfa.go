package reproduce

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/runs"
	"github.com/rtnlab/rtn/wfa"
)

// wfaQuickProblems are the problems of the quick run: small alphabets and
// short strings, a few seconds each.
var wfaQuickProblems = []int{7, 24}

// runWFASection learns every PAutomaC problem with a training file (quick:
// wfaQuickProblems) and compares with scikit-splearn.
func runWFASection(ctx *Context) ([]Row, error) {
	dir := datasets.PAutomaCDir()
	if dir == "" {
		fmt.Fprintln(ctx.Log, "wfa: no PAutomaC data directory found (set RTN_PAUTOMAC_DIR); section skipped")
		return nil, nil
	}
	problems := wfaQuickProblems
	if !ctx.Quick {
		problems = nil
		for p := 1; p <= 48; p++ {
			if _, err := os.Stat(filepath.Join(dir, strconv.Itoa(p)+".pautomac.train")); err == nil {
				problems = append(problems, p)
			}
		}
	}
	mode := "full run, every problem with a training file"
	if ctx.Quick {
		mode = fmt.Sprintf("quick run: problems %v only (rtn reproduce -quick=false -only wfa runs all)", problems)
	}
	refs, err := ReadPAutomaCReferences(filepath.Join(dir, "README.md"))
	if err != nil {
		return nil, err
	}
	var rows []Row
	var results []*runs.WFAPAutomaCResult
	for _, p := range problems {
		res, err := runs.RunWFAPAutomaC(runs.WFAPAutomaCSpec{Dir: dir, Problem: p, Seed: ctx.Seed})
		if err != nil {
			return nil, errors.Wrapf(err, "wfa: problem %d", p)
		}
		results = append(results, res)
		ref := refs[p]
		paper, paperSec := "n/a", "n/a"
		if ref.SplearnConfig != "" {
			paper, paperSec = strconv.FormatFloat(ref.Splearn, 'f', 4, 64), strconv.FormatFloat(ref.SplearnSeconds, 'f', 2, 64)
		}
		if res.FinetuneDiverged {
			fmt.Fprintf(ctx.Log, "wfa: problem %d: fine-tuning diverged before any epoch improved; the start is scored\n", p)
		}
		if res.FinetuneError != "" {
			fmt.Fprintf(ctx.Log, "wfa: problem %d: fine-tuning failed: %s\n", p, res.FinetuneError)
		}
		fmt.Fprintf(ctx.Log, "wfa: problem %d: optimum %.4f, learn %.4f (%v, select %.1fs, fit %.2fs), finetune %.4f (%.1fs), splearn %s\n",
			p, res.Optimum, res.Learn, res.Chosen, res.SelectSeconds, res.FitSeconds, res.Finetune, res.FinetuneSeconds, paper)
		note := fmt.Sprintf("optimum %.4f; ours %v%s; %s", res.Optimum, res.Chosen, mixtureNote(res.Components), mode)
		if ref.DivergentConfig != "" {
			note += fmt.Sprintf("; splearn validation pick (%s) diverges: %.3g; non-divergent pick quoted", ref.DivergentConfig, ref.DivergentScore)
		}
		rows = append(rows,
			Row{Metric: fmt.Sprintf("PAutomaC %d wfa learn perplexity", p), Paper: paper, Measured: res.Learn, Note: note},
			Row{Metric: fmt.Sprintf("PAutomaC %d wfa finetune perplexity", p), Paper: paper, Measured: res.Finetune, Note: "splearn validation-selected refit in the paper column"},
			Row{Metric: fmt.Sprintf("PAutomaC %d final fit seconds (1 thread)", p), Paper: paperSec, Measured: res.FitSeconds,
				Note: fmt.Sprintf("CPU %.2fs; selection %.1fs wall", res.FitCPU, res.SelectSeconds)})
	}
	rows = append(rows, wfaMeanRows(results, refs, mode)...)
	if ctx.Dir != "" {
		if err := writeWFATable(filepath.Join(ctx.Dir, "wfa_pautomac.md"), results, refs); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// mixtureNote is ", mixture of k" for a mixture of k components, else "".
func mixtureNote(c []wfa.Component) string {
	if len(c) == 0 {
		return ""
	}
	return fmt.Sprintf(", mixture of %d", len(c))
}

// wfaMeanRows are the mean ratios to the optimum.
func wfaMeanRows(results []*runs.WFAPAutomaCResult, refs map[int]PAutomaCReference, mode string) []Row {
	var learn, ft, sl, or float64
	n := float64(len(results))
	for _, r := range results {
		ref := refs[r.Problem]
		learn += r.Learn / r.Optimum / n
		ft += r.Finetune / r.Optimum / n
		sl += ref.Splearn / r.Optimum / n
		or += ref.SplearnOracle / r.Optimum / n
	}
	return []Row{
		{Metric: "PAutomaC mean ratio to optimum, wfa learn", Paper: strconv.FormatFloat(sl, 'f', 5, 64), Measured: learn,
			Headline: true,
			Note:     fmt.Sprintf("paper column: splearn validation-selected refit over the same problems; oracle-best %.5f; %s", or, mode)},
		{Metric: "PAutomaC mean ratio to optimum, wfa finetune", Paper: strconv.FormatFloat(sl, 'f', 5, 64), Measured: ft, Note: mode, Headline: true},
	}
}

// writeWFATable writes the per-problem table in Markdown.
func writeWFATable(path string, results []*runs.WFAPAutomaCResult, refs map[int]PAutomaCReference) error {
	return params.WriteFileAtomic(path, func(w io.Writer) error {
		var b strings.Builder
		b.WriteString("| problem | optimum | splearn val.-selected refit (config) | splearn oracle | wfa learn (config) | wfa finetune | learn / splearn | fit s (CPU s) | splearn fit s | selection s | finetune s |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, r := range results {
			ref := refs[r.Problem]
			fmt.Fprintf(&b, "| %d | %.4f | %.4f (%s) | %.4f | %.4f (%v, %d, %d%s) | %.4f | %.4f | %.2f (%.2f) | %.2f | %.1f | %.1f |\n",
				r.Problem, r.Optimum, ref.Splearn, ref.SplearnConfig, ref.SplearnOracle, r.Learn, r.Chosen.Variant, r.Chosen.Rows, r.Chosen.Rank, mixtureNote(r.Components),
				r.Finetune, r.Learn/ref.Splearn, r.FitSeconds, r.FitCPU, ref.SplearnSeconds, r.SelectSeconds, r.FinetuneSeconds)
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}
