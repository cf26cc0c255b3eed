package optim

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainerExecutorLabel checks that TrainConfig.Executor is in every
// metrics line and starts every progress line, and that neither shows one
// without it.
func TestTrainerExecutorLabel(t *testing.T) {
	for _, label := range []string{"tape/float64", ""} {
		t.Run("label="+label, func(t *testing.T) {
			metrics := filepath.Join(t.TempDir(), "m.jsonl")
			var progress bytes.Buffer
			cfg := TrainConfig{Epochs: 2, BatchSize: 8, MetricsPath: metrics, Progress: &progress, Executor: label}
			if _, err := mustTrainer(t, newTrProblem(t, 16, 6), &testSGD{lr: 0.1}, cfg).Run(); err != nil {
				t.Fatal(err)
			}
			lines := readJSONL(t, metrics)
			if len(lines) != 2 {
				t.Fatalf("%d metrics lines, want 2", len(lines))
			}
			for i, l := range lines {
				got, ok := l["executor"]
				if label == "" && ok || label != "" && got != label {
					t.Errorf("metrics line %d: executor %v (present %v), want %q", i+1, got, ok, label)
				}
			}
			prefix := "epoch "
			if label != "" {
				prefix = label + " epoch "
			}
			redraws := strings.Split(strings.TrimSuffix(progress.String(), "\n"), "\r")[1:]
			if len(redraws) == 0 {
				t.Fatalf("no progress line: %q", progress.String())
			}
			for _, line := range redraws {
				if !strings.HasPrefix(line, prefix) {
					t.Errorf("progress line %q does not start with %q", line, prefix)
				}
			}
		})
	}
}
