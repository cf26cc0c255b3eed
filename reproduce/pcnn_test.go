package reproduce

import (
	"io"
	"strings"
	"testing"
)

// TestPCNNXORSuccess runs a tiny version of full mode's distant-XOR
// experiment: one row whose rate counts the runs under 1% error, and one
// CSV line per run.
func TestPCNNXORSuccess(t *testing.T) {
	var csv [][]string
	row, err := pcnnXORSuccess(&Context{Seed: 3, Log: io.Discard}, xorPlan{runs: 2, size: 20, units: 3, passes: 2}, &csv)
	if err != nil {
		t.Fatal(err)
	}
	if len(csv) != 2 || csv[0][0] != "xor" || csv[1][5] != "2" {
		t.Fatalf("csv %v: want two xor runs of 2 passes", csv)
	}
	if !(row.Measured == 0 || row.Measured == 0.5 || row.Measured == 1) || !strings.Contains(row.Note, "of 2 runs") {
		t.Fatalf("row %+v: want a rate in {0, 1/2, 1} over 2 runs", row)
	}
}
