package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainBatchAboveData checks that a -batch above the number of
// training sequences is said, not clamped in silence: a note on stderr
// and the batch used in the JSON (every step takes the whole set).
func TestTrainBatchAboveData(t *testing.T) {
	const lines = 50 // 40 training sequences after the 80/10/10 split
	var text strings.Builder
	for i := range lines {
		fmt.Fprintf(&text, "abcab%d\n", i%7)
	}
	data := filepath.Join(t.TempDir(), "d.txt")
	if err := os.WriteFile(data, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		batch, want int
		note        bool
	}{{64, 40, true}, {41, 40, true}, {40, 40, false}, {8, 8, false}} {
		t.Run(fmt.Sprint(tc.batch), func(t *testing.T) {
			var out, errb bytes.Buffer
			args := []string{"train", "-data", data, "-batch", fmt.Sprint(tc.batch), "-epochs", "1", "-hidden", "2", "-quiet", "-json"}
			if err := run(args, &out, &errb); err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Batch          int `json:"batch"`
				TrainSequences int `json:"train_sequences"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Batch != tc.want || rep.TrainSequences != 40 {
				t.Errorf("batch %d of %d training sequences, want %d of 40", rep.Batch, rep.TrainSequences, tc.want)
			}
			if note := strings.Contains(errb.String(), "full batch"); note != tc.note {
				t.Errorf("stderr %q: note %v, want %v", errb.String(), note, tc.note)
			}
		})
	}
}
