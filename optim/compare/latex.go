package compare

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteLaTeX writes the table of WriteTable as a LaTeX tabular with
// booktabs rules (\toprule, \midrule, \bottomrule; load the booktabs
// package): per setting the tuned rate (a dagger marks one at the edge
// of the grid), the seeds, the best validation loss and the test loss as
// mean ± sd over seeds, the steps to the target (with a Target) and the
// divergences over the grid. The lowest mean validation and test losses
// are set in bold. When a rate is at an edge, a LaTeX comment after the
// tabular gives the dagger's meaning, for the caption.
func (s *Summary) WriteLaTeX(w io.Writer) error {
	var b strings.Builder
	cols := "llrrcc"
	head := `Setting & Optimizer & $\eta$ & Seeds & Best valid. & Test`
	if s.Target > 0 {
		cols += "r"
		head += ` & Steps to ` + latexNum(s.Target)
	}
	cols += "r"
	head += ` & Diverged \\`
	bestValid, bestTest := math.Inf(1), math.Inf(1)
	for _, r := range s.Rows {
		if finite(r.ValidMean) {
			bestValid = min(bestValid, r.ValidMean)
		}
		if finite(r.TestMean) {
			bestTest = min(bestTest, r.TestMean)
		}
	}
	fmt.Fprintf(&b, "\\begin{tabular}{%s}\n\\toprule\n%s\n\\midrule\n", cols, head)
	edge := false
	for _, r := range s.Rows {
		lr := latexNum(r.LR)
		if r.LR == 0 {
			lr = "default"
		}
		if r.Edge != "" {
			lr += `$^\dagger$`
			edge = true
		}
		line := fmt.Sprintf("%s & %s & %s & %d & %s & %s", latexText(r.Setting), latexText(r.Optimizer), lr, r.Runs,
			latexPM(r.ValidMean, r.ValidSD, r.ValidMean == bestValid), latexPM(r.TestMean, r.TestSD, r.TestMean == bestTest))
		if s.Target > 0 {
			line += " & " + latexNum(r.StepsToTarget)
		}
		fmt.Fprintf(&b, "%s & %d/%d \\\\\n", line, r.GridDiverged, r.GridRuns)
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	if edge {
		b.WriteString("% $^\\dagger$ tuned at the edge of the learning-rate grid: the best rate may lie beyond it.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// latexPM is "$m \pm sd$" (bold when best), "--" for NaN.
func latexPM(m, sd float64, best bool) string {
	if math.IsNaN(m) {
		return "--"
	}
	v := latexMantissa(m, 4) + ` \pm ` + latexMantissa(sd, 2)
	if best {
		v = `\mathbf{` + v + `}`
	}
	return "$" + v + "$"
}

// latexNum is v in math mode with 4 significant digits, powers of ten
// written as \times 10^{k}; "--" for NaN.
func latexNum(v float64) string {
	if math.IsNaN(v) {
		return "--"
	}
	return "$" + latexMantissa(v, 4) + "$"
}

// latexMantissa is v with digits significant digits, a power of ten as
// \times 10^{k}.
func latexMantissa(v float64, digits int) string {
	s := strconv.FormatFloat(v, 'g', digits, 64)
	m, e, ok := strings.Cut(s, "e")
	if !ok {
		return s
	}
	k, _ := strconv.Atoi(e)
	if m == "1" {
		return fmt.Sprintf("10^{%d}", k)
	}
	return fmt.Sprintf(`%s \times 10^{%d}`, m, k)
}

// latexText escapes the characters of a setting name that LaTeX reads
// specially (names are letters, digits and -_.+).
func latexText(s string) string {
	return strings.NewReplacer("_", `\_`, "+", `{+}`).Replace(s)
}
