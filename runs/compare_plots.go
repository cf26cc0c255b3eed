package runs

import (
	"math"
	"path/filepath"

	"github.com/rtnlab/rtn/internal/report"
	"github.com/rtnlab/rtn/optim/compare"
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
	ylabel := "validation loss (mean ± sd over seeds)"
	if err := report.BandPlot(filepath.Join(dir, "loss_vs_epoch.png"), "loss against epochs", "epoch", ylabel, byEpoch); err != nil {
		return err
	}
	if err := report.BandPlot(filepath.Join(dir, "loss_vs_seconds.png"), "loss against wall time", "seconds", ylabel, bySec); err != nil {
		return err
	}
	var lr []report.Series
	for _, r := range s.Rows {
		if r.Grid < 2 {
			continue
		}
		var ser report.Series
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
	return report.LogXPlot(filepath.Join(dir, "loss_vs_lr.png"), "final loss against learning rate (diverged points left out)",
		"learning rate", "final validation loss (mean over seeds)", lr)
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
