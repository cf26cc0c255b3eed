package runs

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/internal/report"
)

// A sweep CSV with a NaN is refused with its line and column, so that a
// resumed sweep never plots a run that failed.
func TestReadSweepRefusesNaN(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.csv")
	good := SpectralReport{Task: "addition", Method: "tiht", N: 20, Rank: 2, Seed: 1, TrainMSE: 0.5, TestMSE: 0.25, TestOutputVar: 1, Seconds: 0.1}
	bad := good
	bad.TestMSE = report.Float(math.NaN())
	if err := WriteSweepCSV(path, []SpectralReport{good, bad}); err != nil {
		t.Fatal(err)
	}
	_, err := ReadSweep(path)
	if err == nil || !strings.Contains(err.Error(), "sweep.csv:3: column test_mse is NaN") {
		t.Fatalf("got %v", err)
	}
	if err := WriteSweepCSV(path, []SpectralReport{good}); err != nil {
		t.Fatal(err)
	}
	if reps, err := ReadSweep(path); err != nil || len(reps) != 1 {
		t.Fatalf("good file: %v, %d rows", err, len(reps))
	}
}
