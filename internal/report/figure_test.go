package report

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFigureSave writes a figure with a band, a diverged mark and a
// clipped point in the three formats, and checks each file's kind and the
// PNG's size.
func TestFigureSave(t *testing.T) {
	base := filepath.Join(t.TempDir(), "fig")
	f := Figure{Title: "t", XLabel: "lr", YLabel: "loss", LogX: true, Points: true, MarkLabel: "diverged",
		Bands: []Band{{Name: "a", X: []float64{1e-3, 1e-2, 1e-1, 1}, Y: []float64{1.3, 1.1, 0.9, 3}, Lo: []float64{1.2, 1, 0.8, 2.5},
			Hi: []float64{1.4, 1.2, 1, 3.5}}},
		Marks: []Mark{{Series: 0, X: 10, Y: math.NaN()}}, Refs: []HLine{{"optimum", 0.86}}}
	if err := f.Save(base); err != nil {
		t.Fatal(err)
	}
	for ext, magic := range map[string]string{"png": "\x89PNG", "svg": "<?xml", "pdf": "%PDF"} {
		b, err := os.ReadFile(base + "." + ext)
		if err != nil || !bytes.HasPrefix(b, []byte(magic)) {
			t.Errorf("%s: %v, starts %q", ext, err, b[:min(len(b), 8)])
		}
	}
	r, err := os.Open(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img, err := png.Decode(r)
	if err != nil || img.Bounds().Dx() <= 1200 || img.Bounds().Dy() != 800 {
		t.Errorf("PNG %v, %v; want 800 high and wider than 1200 (6 x 4 in at 200 dpi, and the legend)", img.Bounds(), err)
	}
	svg, _ := os.ReadFile(base + ".svg")
	if !strings.Contains(string(svg), "above the axis (clipped)") || !strings.Contains(string(svg), "diverged") {
		t.Error("the SVG lacks the clipped or diverged legend entries")
	}
}

// TestFigureAxes checks the choice of the y axis: log over more than a
// decade, clipped above the bulk otherwise, plain when flat.
func TestFigureAxes(t *testing.T) {
	for _, c := range []struct {
		name         string
		y            []float64
		log, clipped bool
	}{
		{"decades", []float64{0.01, 0.1, 1, 5}, true, false},
		{"outlier", []float64{1.0, 1.1, 1.2, 1.3, 4}, false, true},
		{"flat", []float64{1, 1.1, 1.2}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := make([]float64, len(c.y))
			for i := range x {
				x[i] = float64(i)
			}
			f := Figure{Lines: []Series{{Name: "s", X: x, Y: c.y}}}
			p, ok, err := f.plot()
			if err != nil || !ok {
				t.Fatal(ok, err)
			}
			if f.logY != c.log {
				t.Errorf("log axis %v, want %v", f.logY, c.log)
			}
			if clipped := !f.logY && p.Y.Max < slices.Max(c.y); clipped != c.clipped {
				t.Errorf("clipped %v (y max %v), want %v", clipped, p.Y.Max, c.clipped)
			}
		})
	}
	// The median plus 1.5 times its distance to the lowest value.
	if got, want := clipLevel([]float64{1.0, 1.1, 1.2, 1.3, 4}), 1.2+1.5*0.2; math.Abs(got-want) > 1e-12 {
		t.Errorf("clip level %v, want %v", got, want)
	}
}

func TestNiceTicksInteger(t *testing.T) {
	for _, tk := range (NiceTicks{N: 7, Integer: true}).Ticks(0, 3) {
		if tk.Value != math.Round(tk.Value) {
			t.Errorf("tick %v is not an integer", tk.Value)
		}
	}
	if n := len((NiceTicks{N: 6}).Ticks(0.8, 1.4)); n < 4 {
		t.Errorf("%d ticks over [0.8, 1.4], want at least 4", n)
	}
}
