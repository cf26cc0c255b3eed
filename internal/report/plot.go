package experiments

import (
	"encoding/json"
	"image/color"
	"io"
	"math"
	"strconv"

	"github.com/pkg/errors"
	"github.com/rtnlab/rtn/params"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
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

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
}

// LinePlot writes a PNG line plot of series with optional dashed
// reference lines, atomically.
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
			return errors.Wrapf(err, "plot %s", s.Name)
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
	wt, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, "png")
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

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
