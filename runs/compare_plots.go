package runs

import (
	"math"
	"path/filepath"
	"slices"

	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/optim/compare"
)

// ComparePlots writes the figures of an optimizer comparison into dir,
// each as PNG, SVG and PDF (report.Figure), titled from the comparison's
// problem when title is empty:
//   - loss_vs_epoch and loss_vs_seconds: each setting at its tuned
//     learning rate, the mean over seeds of the validation loss (the
//     training loss without a validation set) with a band of ± one
//     standard deviation (seconds are the mean over seeds at each point),
//     integer epoch ticks;
//   - loss_vs_lr, when a setting tried more than one rate: the mean final
//     loss of each grid point over its OK seeds, with its band, on a log
//     rate axis; a point where a seed diverged is marked by a cross on the
//     top edge;
//
// with dashed lines at the problem's optimum and trivial loss when it
// knows them (compare.Config.References), and a log loss axis when the
// losses drawn span more than a decade.
func ComparePlots(dir string, s *compare.Summary, title string) error {
	var byEpoch, bySec []report.Band
	for _, r := range s.Rows {
		e, sec, ok := meanCurve(s.Runs, r.Setting, r.LR)
		if !ok {
			continue
		}
		name := r.Setting + " lr " + report.Ftoa(r.LR)
		if r.LR == 0 {
			name = r.Setting
		}
		e.Name, sec.Name = name, name
		byEpoch, bySec = append(byEpoch, e), append(bySec, sec)
	}
	refs := compareRefs(s)
	prefix := ""
	if title != "" {
		prefix = title + ": "
	}
	ylabel := "validation loss (mean ± sd over seeds)"
	figs := map[string]report.Figure{
		"loss_vs_epoch": {Title: prefix + "loss against epochs (tuned rates)", XLabel: "epoch", YLabel: ylabel, Bands: byEpoch,
			Refs: refs, IntegerX: true},
		"loss_vs_seconds": {Title: prefix + "loss against wall time (tuned rates)", XLabel: "seconds", YLabel: ylabel, Bands: bySec, Refs: refs},
	}
	if f, ok := lrFigure(s, prefix, refs); ok {
		figs["loss_vs_lr"] = f
	}
	for _, name := range []string{"loss_vs_epoch", "loss_vs_seconds", "loss_vs_lr"} {
		if f, ok := figs[name]; ok {
			if err := f.Save(filepath.Join(dir, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// compareRefs are the problem's reference losses as plot lines.
func compareRefs(s *compare.Summary) []report.HLine {
	var refs []report.HLine
	for _, r := range s.References {
		name := r.Kind + ": " + r.Label
		if r.Label == r.Kind {
			name = r.Label
		}
		refs = append(refs, report.HLine{Name: name, Y: r.Loss})
	}
	return refs
}

// lrFigure is the loss against the rate of every setting that tried more
// than one, sorted by rate; ok is false when none did.
func lrFigure(s *compare.Summary, prefix string, refs []report.HLine) (report.Figure, bool) {
	f := report.Figure{Title: prefix + "final loss against learning rate", XLabel: "learning rate",
		YLabel: "final validation loss (mean ± sd)", LogX: true, Points: true, Refs: refs,
		MarkLabel: "a seed diverged"}
	for _, r := range s.Rows {
		if r.Grid < 2 {
			continue
		}
		var pts []compare.GridPoint
		for _, g := range s.Grid {
			if g.Setting == r.Setting {
				pts = append(pts, g)
			}
		}
		slices.SortFunc(pts, func(a, b compare.GridPoint) int { return cmpFloat(a.LR, b.LR) })
		b := report.Band{Name: r.Setting}
		for _, g := range pts {
			y, sd := g.FinalMean, g.FinalSD
			if math.IsNaN(y) {
				y, sd = g.TrainMean, g.TrainSD
			}
			b.X, b.Y, b.Lo, b.Hi = append(b.X, g.LR), append(b.Y, y), append(b.Lo, y-sd), append(b.Hi, y+sd)
			if g.Diverged+g.Failed > 0 {
				f.Marks = append(f.Marks, report.Mark{Series: len(f.Bands), X: g.LR, Y: math.NaN()})
			}
		}
		f.Bands = append(f.Bands, b)
	}
	return f, len(f.Bands) > 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// meanCurve averages the curves of the OK runs of (setting, lr) point by
// point, up to the shortest, against epochs and against mean seconds.
func meanCurve(runs []*compare.Outcome, setting string, lr float64) (report.Band, report.Band, bool) {
	var curves [][]compare.Point
	n := math.MaxInt
	for _, o := range runs {
		if o.Setting == setting && o.LR == lr && o.Status == compare.OK {
			curves = append(curves, o.Curve)
			n = min(n, len(o.Curve))
		}
	}
	if len(curves) == 0 {
		return report.Band{}, report.Band{}, false
	}
	var e, sec report.Band
	for i := range n {
		var ys, ts []float64
		for _, c := range curves {
			y := c[i].ValidLoss
			if math.IsNaN(y) {
				y = c[i].TrainLoss
			}
			ys, ts = append(ys, y), append(ts, c[i].Seconds)
		}
		m, sd := compare.MeanSD(ys)
		t, _ := compare.MeanSD(ts)
		e.X, sec.X = append(e.X, curves[0][i].Epoch), append(sec.X, t)
		for _, b := range []*report.Band{&e, &sec} {
			b.Y, b.Lo, b.Hi = append(b.Y, m), append(b.Lo, m-sd), append(b.Hi, m+sd)
		}
	}
	return e, sec, true
}
