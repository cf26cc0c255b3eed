package experiments

import (
	"image/color"
	"io"
	"math"
	"path/filepath"

	"github.com/pkg/errors"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rtnlab/rtn/optim/compare"
	"github.com/rtnlab/rtn/params"
)

// ComparePlots writes the PNG plots of an optimizer comparison into dir:
// loss_vs_epoch.png and loss_vs_seconds.png (each setting at its tuned
// learning rate: the mean over seeds of the validation loss, or of the
// training loss without a validation set, with a band of ± one standard
// deviation; seconds are the mean over seeds at each point) and, when a
// setting tried more than one rate and some point did not diverge,
// loss_vs_lr.png (the mean final validation loss of each grid point on a
// log rate axis; points where a seed diverged are left out).
func ComparePlots(dir string, s *compare.Summary) error {
	var byEpoch, bySec []bandSeries
	for _, r := range s.Rows {
		e, sec, ok := meanCurve(s.Runs, r.Setting, r.LR)
		if !ok {
			continue
		}
		name := r.Setting + " lr " + ftoa(r.LR)
		if r.LR == 0 {
			name = r.Setting
		}
		e.name, sec.name = name, name
		byEpoch, bySec = append(byEpoch, e), append(bySec, sec)
	}
	ylabel := "validation loss (mean ± sd over seeds)"
	if err := bandPlot(filepath.Join(dir, "loss_vs_epoch.png"), "loss against epochs", "epoch", ylabel, byEpoch); err != nil {
		return err
	}
	if err := bandPlot(filepath.Join(dir, "loss_vs_seconds.png"), "loss against wall time", "seconds", ylabel, bySec); err != nil {
		return err
	}
	var lr []Series
	for _, r := range s.Rows {
		if r.Grid < 2 {
			continue
		}
		var ser Series
		ser.Name = r.Setting
		for _, g := range s.Grid {
			if g.Setting == r.Setting {
				y := g.FinalMean
				if math.IsNaN(y) {
					y = g.TrainMean
				}
				if g.Diverged > 0 {
					y = math.NaN()
				}
				ser.X, ser.Y = append(ser.X, g.LR), append(ser.Y, y)
			}
		}
		lr = append(lr, ser)
	}
	if len(lr) == 0 {
		return nil
	}
	return lrPlot(filepath.Join(dir, "loss_vs_lr.png"), lr)
}

// bandSeries is a mean curve with a band around it.
type bandSeries struct {
	name         string
	x, y, lo, hi []float64
}

// meanCurve averages the curves of the OK runs of (setting, lr) point by
// point, up to the shortest, against epochs and against mean seconds.
func meanCurve(runs []*compare.Outcome, setting string, lr float64) (bandSeries, bandSeries, bool) {
	var curves [][]compare.Point
	n := math.MaxInt
	for _, o := range runs {
		if o.Setting == setting && o.LR == lr && o.Status == compare.OK {
			curves = append(curves, o.Curve)
			n = min(n, len(o.Curve))
		}
	}
	if len(curves) == 0 {
		return bandSeries{}, bandSeries{}, false
	}
	var e, sec bandSeries
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
		e.x, sec.x = append(e.x, curves[0][i].Epoch), append(sec.x, t)
		for _, b := range []*bandSeries{&e, &sec} {
			b.y, b.lo, b.hi = append(b.y, m), append(b.lo, m-sd), append(b.hi, m+sd)
		}
	}
	return e, sec, true
}

// bandPlot writes a PNG of mean lines with translucent bands, atomically.
func bandPlot(path, title, xLabel, yLabel string, series []bandSeries) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	for i, s := range series {
		var line, poly plotter.XYs
		for j := range s.x {
			if finite(s.y[j]) && finite(s.x[j]) {
				line = append(line, plotter.XY{X: s.x[j], Y: s.y[j]})
			}
		}
		for j := range s.x {
			if finite(s.lo[j]) && finite(s.x[j]) {
				poly = append(poly, plotter.XY{X: s.x[j], Y: s.lo[j]})
			}
		}
		for j := len(s.x) - 1; j >= 0; j-- {
			if finite(s.hi[j]) && finite(s.x[j]) {
				poly = append(poly, plotter.XY{X: s.x[j], Y: s.hi[j]})
			}
		}
		if len(line) == 0 {
			continue
		}
		c := palette[i%len(palette)]
		if len(poly) >= 3 {
			band, err := plotter.NewPolygon(poly)
			if err != nil {
				return errors.Wrapf(err, "plot %s", s.name)
			}
			r, g, b, _ := c.RGBA()
			band.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x40}
			band.LineStyle.Width = 0
			p.Add(band)
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return errors.Wrapf(err, "plot %s", s.name)
		}
		l.Color = c
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	return savePlot(p, path)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// lrPlot writes final loss against the learning rate on a log axis.
func lrPlot(path string, series []Series) error {
	p := plot.New()
	p.Title.Text = "final loss against learning rate (diverged points left out)"
	p.X.Label.Text = "learning rate"
	p.Y.Label.Text = "final validation loss (mean over seeds)"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, decadeTicks{}
	p.Legend.Top = true
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for i, s := range series {
		var pts plotter.XYs
		for j := range s.X {
			if finite(s.Y[j]) && s.X[j] > 0 {
				pts = append(pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
				xmin, xmax = math.Min(xmin, s.X[j]), math.Max(xmax, s.X[j])
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return errors.Wrapf(err, "plot %s", s.Name)
		}
		l.Color, sc.Color = palette[i%len(palette)], palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		p.Add(l, sc)
		p.Legend.Add(s.Name, l, sc)
	}
	if math.IsInf(xmin, 0) {
		return nil // every point diverged: nothing to draw
	}
	p.X.Min, p.X.Max = xmin/1.5, xmax*1.5
	return savePlot(p, path)
}

// savePlot leaves headroom above the lines for the legend (or sets unit
// ranges when nothing was drawn, which gonum's tickers cannot handle) and
// writes the PNG atomically.
func savePlot(p *plot.Plot, path string) error {
	if !finite(p.X.Min) || !finite(p.X.Max) || !finite(p.Y.Min) || !finite(p.Y.Max) {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	}
	p.Y.Max += 0.25 * (p.Y.Max - p.Y.Min)
	wt, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, "png")
	if err != nil {
		return err
	}
	return params.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}
