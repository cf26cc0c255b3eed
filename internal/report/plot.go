package report

import (
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"github.com/pkg/errors"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rtnlab/rtn/params"
)

// Series is one line of a plot.
type Series struct {
	Name string
	X, Y []float64
}

// HLine is a horizontal reference line of a plot.
type HLine struct {
	Name string
	Y    float64
}

// Band is a line with a band around it (a mean and mean ± one standard
// deviation, say): Lo and Hi have the length of X and Y.
type Band struct {
	Name         string
	X, Y, Lo, Hi []float64
}

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
}

// LinePlot writes a PNG line plot of series with optional dashed
// reference lines, atomically. Non-finite points are left out.
func LinePlot(path, title, xLabel, yLabel string, series []Series, refs []HLine) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for i, s := range series {
		pts := make(plotter.XYs, 0, len(s.X))
		for j := range s.X {
			if !math.IsNaN(s.Y[j]) && !math.IsInf(s.Y[j], 0) {
				pts = append(pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
				xmin, xmax = math.Min(xmin, s.X[j]), math.Max(xmax, s.X[j])
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return errors.Wrapf(err, "report: plot %s", s.Name)
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.Name, l)
	}
	for i, r := range refs {
		if math.IsInf(xmin, 0) {
			break
		}
		l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: r.Y}, {X: xmax, Y: r.Y}})
		if err != nil {
			return err
		}
		l.Color = palette[(len(series)+i)%len(palette)]
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(r.Name, l)
	}
	// Headroom above the lines for the legend.
	p.Y.Max += 0.25 * (p.Y.Max - p.Y.Min)
	return writePNG(p, path, 4*vg.Inch)
}

// addLinePoints adds series i, named name, to p as a line with points in
// the i-th colour of the palette.
func addLinePoints(p *plot.Plot, i int, name string, pts plotter.XYs) error {
	l, sc, err := plotter.NewLinePoints(pts)
	if err != nil {
		return errors.Wrapf(err, "report: plot %s", name)
	}
	l.Color, sc.Color = palette[i%len(palette)], palette[i%len(palette)]
	l.Width = vg.Points(1.5)
	p.Add(l, sc)
	p.Legend.Add(name, l, sc)
	return nil
}

// LogLogPlot writes a PNG of lines with points on log-log axes,
// atomically. Points with x <= 0 or a non-finite y are left out, and
// non-positive values of y are clamped to 1e-30 so that exact results
// (zero error) show.
func LogLogPlot(path, title, xLabel, yLabel string, series []Series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, DecadeTicks{}
	p.Legend.Top = true
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i, s := range series {
		pts := make(plotter.XYs, 0, len(s.X))
		for j := range s.X {
			if math.IsNaN(s.Y[j]) || math.IsInf(s.Y[j], 0) || !(s.X[j] > 0) {
				continue
			}
			y := math.Max(s.Y[j], 1e-30)
			pts = append(pts, plotter.XY{X: s.X[j], Y: y})
			xmin, xmax = math.Min(xmin, s.X[j]), math.Max(xmax, s.X[j])
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
		}
		if len(pts) == 0 {
			continue
		}
		if err := addLinePoints(p, i, s.Name, pts); err != nil {
			return err
		}
	}
	if !math.IsInf(xmin, 0) {
		// Explicit positive ranges: gonum widens a degenerate range
		// linearly, which can cross zero on a log axis. The top decade
		// leaves room for the legend.
		p.X.Min, p.X.Max = xmin/1.5, xmax*1.5
		p.Y.Min, p.Y.Max = ymin/2, ymax*1000
	}
	return writePNG(p, path, 4.5*vg.Inch)
}

// DecadeTicks labels the powers of ten of a log axis as 1e<k>, every
// decade when the range spans at most 8 and every few decades beyond
// (gonum's LogTicks prints float artefacts such as 1.0000000000000004e-05
// and crowds a range of 30 decades).
type DecadeTicks struct{}

// Ticks implements plot.Ticker.
func (DecadeTicks) Ticks(lo, hi float64) []plot.Tick {
	kl, kh := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	step := max(1, (kh-kl+7)/8)
	var ticks []plot.Tick
	for k := kl; k <= kh; k++ {
		v := math.Pow(10, float64(k))
		if v < lo*(1-1e-9) || v > hi*(1+1e-9) { // Pow(10, k) may round below 10^k
			continue
		}
		t := plot.Tick{Value: v}
		if k%step == 0 {
			t.Label = fmt.Sprintf("1e%d", k)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// writePNG renders p 6 inches wide and height high and writes it to path
// atomically.
func writePNG(p *plot.Plot, path string, height vg.Length) error {
	wt, err := p.WriterTo(6*vg.Inch, height, "png")
	if err != nil {
		return err
	}
	return params.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}

// Float is a float64 that JSON encodes as null when it is NaN or infinite
// (a loss on an empty split), since JSON has no such numbers.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// Ftoa formats v as the CSV files write numbers: %g with 6 significant
// digits.
func Ftoa(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
