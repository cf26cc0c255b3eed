package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/pkg/errors"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/rtnlab/rtn/params"
)

// FigureFormats are the files Figure.Save writes: a 200-dpi PNG for
// screens and SVG and PDF (fonts embedded) for print.
var FigureFormats = []string{"png", "svg", "pdf"}

// Mark is a point drawn as a cross in the colour of a series: a run that
// diverged, say. A mark with a NaN Y sits on the top edge of the plot.
type Mark struct {
	// Series is the index of the series (in Figure.Bands, then
	// Figure.Lines) whose colour the mark takes.
	Series int
	X, Y   float64
}

// Figure is a plot meant for a paper: lines with optional bands, crosses
// for marked points (clipped to the top edge when they have no value),
// dashed reference lines, a log y axis when the data span more than a
// decade, integer ticks for counts such as epochs. Non-finite points are
// left out.
type Figure struct {
	Title, XLabel, YLabel string
	// Bands are lines with a translucent band (mean ± sd); Lines are
	// lines drawn after them, with a dot at each point when Points is
	// set, as steps when Steps is set.
	Bands  []Band
	Lines  []Series
	Points bool
	Steps  bool
	// Marks are crosses; MarkLabel names them in the legend.
	Marks     []Mark
	MarkLabel string
	// Refs are dashed horizontal lines (an optimum, a trivial loss).
	Refs []HLine
	// LogX draws x on a log scale; IntegerX puts ticks on integers only.
	LogX, IntegerX bool
	// LinearY keeps y linear even when the values span more than a decade.
	LinearY bool
	// YMin and YMax fix the y range when YMax > YMin.
	YMin, YMax float64

	clip float64 // the top of a clipped linear y axis (0: none)
	logY bool    // y is drawn as log10(y) on a linear axis with LogTicks125's labels
}

// stepDashes are the dash patterns of step curves, by series.
var stepDashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
	{vg.Points(4), vg.Points(4)},
	{vg.Points(1), vg.Points(3)},
}

// Save writes the figure to base.png, base.svg and base.pdf, atomically.
// Nothing is written when there is no finite point.
func (f Figure) Save(base string) error {
	p, ok, err := f.plot()
	if err != nil || !ok {
		return err
	}
	for _, ext := range FigureFormats {
		if err := writeCanvas(p, f.legendNames(), base+"."+ext, ext); err != nil {
			return err
		}
	}
	return nil
}

// plot builds the gonum plot (and sets f.clip); ok is false when nothing
// finite is drawn.
func (f *Figure) plot() (*plot.Plot, bool, error) {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text, p.Y.Label.Text = f.XLabel, f.YLabel
	p.Add(plotter.NewGrid())
	ys, xs := f.values()
	if len(ys) == 0 {
		return nil, false, nil
	}
	ylo, yhi := span(ys)
	logY := !f.LinearY && ylo > 0 && yhi/ylo > 10
	if f.YMax > f.YMin {
		ylo, yhi = f.YMin, f.YMax
		logY = logY && ylo > 0
	} else if c := clipLevel(ys); !logY && !f.LinearY && c < yhi {
		yhi, f.clip = c, c
	}
	// A log y axis draws log10(y) on a linear axis: gonum's log scale
	// places the axis label's glyph box at the arithmetic middle of the
	// range, near the top, and shrinks the plot to fit it.
	f.logY = logY
	switch {
	case f.YMax > f.YMin:
		p.Y.Min, p.Y.Max = f.ty(f.YMin), f.ty(f.YMax)
	case logY:
		top := yhi * 1.3
		if len(f.Marks) > 0 {
			top = yhi * math.Pow(1.12, float64(2+f.markRows())) // a row of crosses per series
		}
		p.Y.Min, p.Y.Max = f.ty(ylo/1.3), f.ty(top)
	default:
		pad := 0.05 * (yhi - ylo)
		if pad == 0 {
			pad = 0.05*math.Abs(yhi) + 1e-12
		}
		p.Y.Min, p.Y.Max = ylo-pad, yhi+pad
		if len(f.Marks) > 0 {
			p.Y.Max += (0.06 + 0.05*float64(f.markRows())) * (yhi - ylo + 2*pad) // a row of crosses per series
		}
	}
	p.Y.Tick.Marker = NiceTicks{N: 6}
	if logY {
		p.Y.Tick.Marker = log10Ticks{}
	}
	xlo, xhi := span(xs)
	if f.LogX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, DecadeTicks{}
		p.X.Min, p.X.Max = xlo/1.5, xhi*1.5
	} else {
		p.X.Min, p.X.Max = xlo, xhi
		if xhi == xlo {
			p.X.Min, p.X.Max = xlo-1, xhi+1
		}
		p.X.Tick.Marker = NiceTicks{N: 7, Integer: f.IntegerX}
	}
	if err := f.addSeries(p); err != nil {
		return nil, false, err
	}
	f.addRefs(p)
	if err := f.addMarks(p, yhi); err != nil {
		return nil, false, err
	}
	return p, true, nil
}

// clipLevel is the top of a linear y axis that keeps the bulk of ys
// readable: the median plus 1.5 times its distance to the smallest value
// (+Inf when that would not cut anything or the values are flat). Values
// above it are drawn at the axis's top as triangles.
func clipLevel(ys []float64) float64 {
	v := slices.Clone(ys)
	slices.Sort(v)
	lo, med := v[0], v[len(v)/2]
	if !(med > lo) {
		return math.Inf(1)
	}
	return med + 1.5*(med-lo)
}

// values returns the finite y values (lines, bands, references) and x
// values of the figure, the axes' data.
func (f Figure) values() (ys, xs []float64) {
	ok := func(x, y float64) bool { return finite(x) && finite(y) && (!f.LogX || x > 0) }
	for _, b := range f.Bands {
		for j := range b.X {
			if ok(b.X[j], b.Y[j]) {
				ys, xs = append(ys, b.Y[j]), append(xs, b.X[j])
			}
		}
	}
	for _, s := range f.Lines {
		for j := range s.X {
			if ok(s.X[j], s.Y[j]) {
				ys, xs = append(ys, s.Y[j]), append(xs, s.X[j])
			}
		}
	}
	for _, m := range f.Marks {
		if finite(m.X) && (!f.LogX || m.X > 0) {
			xs = append(xs, m.X)
		}
		if finite(m.Y) {
			ys = append(ys, m.Y)
		}
	}
	if len(ys) > 0 {
		for _, r := range f.Refs {
			if finite(r.Y) {
				ys = append(ys, r.Y)
			}
		}
	}
	return ys, xs
}

func span(v []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// addSeries draws the bands and the lines in the palette's colours.
func (f Figure) addSeries(p *plot.Plot) error {
	for i, s := range f.Bands {
		c := palette[i%len(palette)]
		var line, poly plotter.XYs
		for j := range s.X {
			if finite(s.X[j]) && finite(s.Y[j]) && f.inY(p, s.Y[j]) {
				line = append(line, plotter.XY{X: s.X[j], Y: f.ty(f.clipped(s.Y[j]))})
			}
		}
		for j := range s.X {
			if finite(s.X[j]) && finite(s.Lo[j]) {
				poly = append(poly, plotter.XY{X: s.X[j], Y: f.clampY(p, s.Lo[j])})
			}
		}
		for j := len(s.X) - 1; j >= 0; j-- {
			if finite(s.X[j]) && finite(s.Hi[j]) {
				poly = append(poly, plotter.XY{X: s.X[j], Y: f.clampY(p, s.Hi[j])})
			}
		}
		if len(poly) >= 3 {
			band, err := plotter.NewPolygon(poly)
			if err != nil {
				return errors.Wrapf(err, "report: plot %s", s.Name)
			}
			r, g, b, _ := c.RGBA()
			band.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x40}
			band.LineStyle.Width = 0
			p.Add(band)
		}
		if err := f.addLine(p, i, s.Name, line, f.Points); err != nil {
			return err
		}
	}
	for k, s := range f.Lines {
		var pts plotter.XYs
		for j := range s.X {
			if finite(s.X[j]) && finite(s.Y[j]) && (!f.LogX || s.X[j] > 0) && f.inY(p, s.Y[j]) {
				pts = append(pts, plotter.XY{X: s.X[j], Y: f.ty(f.clipped(s.Y[j]))})
			}
		}
		if err := f.addLine(p, len(f.Bands)+k, s.Name, pts, f.Points); err != nil {
			return err
		}
	}
	return nil
}

// clipped is y, or the clip level when y is above it.
func (f Figure) clipped(y float64) float64 {
	if f.clip > 0 && y > f.clip {
		return f.clip
	}
	return y
}

// inY reports whether y can be drawn on p's y axis (positive on a log
// axis).
func (f Figure) inY(_ *plot.Plot, y float64) bool { return !f.logY || y > 0 }

// ty is y on the drawn axis: log10(y) on a log axis.
func (f Figure) ty(y float64) float64 {
	if f.logY {
		return math.Log10(y)
	}
	return y
}

// clampY keeps a band's edge inside p's y range (a band below zero on a
// log axis is cut at the axis).
func (f Figure) clampY(p *plot.Plot, y float64) float64 {
	top := p.Y.Max
	if f.clip > 0 {
		top = f.clip
	}
	if f.logY && !(y > 0) {
		return p.Y.Min
	}
	return math.Min(math.Max(f.ty(y), p.Y.Min), top)
}

func (f Figure) addLine(p *plot.Plot, i int, name string, pts plotter.XYs, points bool) error {
	if len(pts) == 0 {
		return nil
	}
	c := palette[i%len(palette)]
	l, err := plotter.NewLine(pts)
	if err != nil {
		return errors.Wrapf(err, "report: plot %s", name)
	}
	l.Color, l.Width = c, vg.Points(1.5)
	if f.Steps {
		// Step curves often run on top of each other: a dash pattern per
		// series keeps each visible.
		l.StepStyle = plotter.PostStep
		l.Dashes = stepDashes[i%len(stepDashes)]
	}
	if !points {
		p.Add(l)
		p.Legend.Add(name, l)
		return nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return errors.Wrapf(err, "report: plot %s", name)
	}
	sc.Color, sc.Radius, sc.Shape = c, vg.Points(2.5), draw.CircleGlyph{}
	p.Add(l, sc)
	p.Legend.Add(name, l, sc)
	return nil
}

func (f Figure) addRefs(p *plot.Plot) {
	for i, r := range f.Refs {
		if !finite(r.Y) || !f.inY(p, r.Y) {
			continue
		}
		y := f.ty(r.Y)
		l := plotter.NewFunction(func(float64) float64 { return y })
		l.Color = color.Gray{Y: uint8(0x30 + 0x30*(i%3))}
		l.Width = vg.Points(1)
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(r.Name, l)
	}
}

// addMarks draws the crosses, those without a value in a row per series
// just above the data (yhi), and a triangle at the clip level for each
// point clipped.
func (f Figure) addMarks(p *plot.Plot, yhi float64) error {
	rowY := func(series int) float64 {
		k := float64(1 + series%markRowsMax)
		if f.logY {
			return f.ty(yhi * math.Pow(1.12, k))
		}
		return yhi + (0.05*k)*(yhi-p.Y.Min)
	}
	add := func(x, y float64, series int, shape draw.GlyphDrawer, label string, first bool) error {
		sc, err := plotter.NewScatter(plotter.XYs{{X: x, Y: y}})
		if err != nil {
			return err
		}
		sc.Color, sc.Radius, sc.Shape = palette[series%len(palette)], vg.Points(4), shape
		p.Add(sc)
		if first && label != "" {
			leg := *sc
			leg.Color = color.Black
			p.Legend.Add(label, &leg)
		}
		return nil
	}
	for k, m := range f.Marks {
		y := f.ty(m.Y)
		if !finite(y) {
			y = rowY(m.Series)
		}
		if err := add(m.X, y, m.Series, draw.CrossGlyph{}, f.MarkLabel, k == 0); err != nil {
			return err
		}
	}
	if f.clip == 0 {
		return nil
	}
	first := true
	for i, s := range f.allSeries() {
		for j := range s.X {
			if finite(s.X[j]) && finite(s.Y[j]) && s.Y[j] > f.clip {
				if err := add(s.X[j], f.clip, i, draw.TriangleGlyph{}, "above the axis (clipped)", first); err != nil {
					return err
				}
				first = false
			}
		}
	}
	return nil
}

// markRowsMax bounds the rows of crosses above the data.
const markRowsMax = 6

// markRows is the number of rows of crosses: one per series that has a
// cross without a value.
func (f Figure) markRows() int {
	n := 0
	for _, m := range f.Marks {
		if !finite(m.Y) {
			n = max(n, 1+m.Series%markRowsMax)
		}
	}
	return n
}

// allSeries lists the bands' lines then the lines, in palette order.
func (f Figure) allSeries() []Series {
	var out []Series
	for _, b := range f.Bands {
		out = append(out, Series{Name: b.Name, X: b.X, Y: b.Y})
	}
	return append(out, f.Lines...)
}

// writeCanvas renders p in format ext (png at 200 dpi, svg, pdf), its
// legend in a column to the right of the plot so that it hides no data:
// 6 x 4 inches plus the legend's width. It writes path atomically.
func writeCanvas(p *plot.Plot, names []string, path, ext string) error {
	leg := p.Legend
	lw := legendWidth(leg, names)
	w, h := 6*vg.Inch+lw, 4*vg.Inch
	var (
		c  vg.CanvasWriterTo
		dc draw.Canvas
	)
	switch ext {
	case "png":
		img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(200))
		c, dc = vgimg.PngCanvas{Canvas: img}, draw.New(img)
	case "svg":
		s := vgsvg.New(w, h)
		c, dc = s, draw.New(s)
	case "pdf":
		s := vgpdf.New(w, h)
		c, dc = s, draw.New(s)
	default:
		return errors.Errorf("report: unknown figure format %q", ext)
	}
	p.Legend = plot.NewLegend()
	p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
	p.Legend = leg
	leg.Top, leg.Left = true, true
	leg.YOffs = -p.Title.TextStyle.Height(p.Title.Text) - p.Title.Padding
	leg.Draw(draw.Crop(dc, w-lw, 0, 0, 0))
	return params.WriteFileAtomic(path, func(out io.Writer) error {
		_, err := c.WriteTo(out)
		return err
	})
}

// legendWidth is the width of the legend's column: its longest entry
// (names), the thumbnail and padding (0 without entries).
func legendWidth(l plot.Legend, names []string) vg.Length {
	if len(names) == 0 {
		return 0
	}
	var tw vg.Length
	for _, n := range names {
		tw = max(tw, l.TextStyle.Width(n))
	}
	return tw + l.ThumbnailWidth + vg.Points(18)
}

// legendNames are the texts of the legend's entries.
func (f Figure) legendNames() []string {
	var n []string
	for _, s := range f.allSeries() {
		n = append(n, s.Name)
	}
	for _, r := range f.Refs {
		n = append(n, r.Name)
	}
	if len(f.Marks) > 0 {
		n = append(n, f.MarkLabel)
	}
	if f.clip > 0 {
		n = append(n, "above the axis (clipped)")
	}
	return n
}

// NiceTicks puts about N ticks at round values (1, 2 or 5 times a power
// of ten apart), on integers only when Integer is set.
type NiceTicks struct {
	N       int
	Integer bool
}

// Ticks implements plot.Ticker.
func (t NiceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	n := max(t.N, 2)
	raw := (hi - lo) / float64(n-1)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if t.Integer {
		step = math.Max(1, math.Round(step))
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9*step; v += step {
		if math.Abs(v) < 1e-12*step {
			v = 0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 6, 64)})
	}
	return ticks
}

// log10Ticks labels an axis of log10(y) with LogTicks125's ticks of y.
type log10Ticks struct{}

// Ticks implements plot.Ticker.
func (log10Ticks) Ticks(lo, hi float64) []plot.Tick {
	ticks := LogTicks125{}.Ticks(math.Pow(10, lo), math.Pow(10, hi))
	for i := range ticks {
		ticks[i].Value = math.Log10(ticks[i].Value)
	}
	return ticks
}

// LogTicks125 labels a log axis at 1, 2 and 5 times the powers of ten when
// it spans at most two decades, at the powers of ten (DecadeTicks)
// otherwise, with unlabelled minor ticks at the other integers times a
// power of ten.
type LogTicks125 struct{}

// Ticks implements plot.Ticker.
func (LogTicks125) Ticks(lo, hi float64) []plot.Tick {
	if math.Log10(hi/lo) > 2 {
		return DecadeTicks{}.Ticks(lo, hi)
	}
	var ticks []plot.Tick
	for k := int(math.Floor(math.Log10(lo))); k <= int(math.Ceil(math.Log10(hi))); k++ {
		for m := 1; m <= 9; m++ {
			v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, k), 64)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', 6, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
