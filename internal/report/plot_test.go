package report

import (
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLinePlotPNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.png")
	err := LinePlot(path, "t", "x", "y",
		[]Series{{Name: "a", X: []float64{1, 2, 3}, Y: []float64{3, math.NaN(), 1}}}, []HLine{{"ref", 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("image is %v", b)
	}
}

func TestFloatJSON(t *testing.T) {
	b, err := json.Marshal([]Float{1.5, Float(math.NaN()), Float(math.Inf(1))})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "[1.5,null,null]" {
		t.Errorf("got %s", b)
	}
}

// DecadeTicks labels powers of ten only, thinned over a wide range.
func TestDecadeTicks(t *testing.T) {
	var labels []string
	for _, tk := range (DecadeTicks{}).Ticks(1e-30, 5e3) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "1e-30 1e-25 1e-20 1e-15 1e-10 1e-5 1e0" {
		t.Errorf("labels over 34 decades: %s", got)
	}
	if n := len((DecadeTicks{}).Ticks(0.02, 300)); n != 4 {
		t.Errorf("%d ticks in [0.02, 300], want 4 (0.1, 1, 10, 100)", n)
	}
}
