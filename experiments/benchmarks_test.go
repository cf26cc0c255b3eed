package experiments

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunBenchmarks(t *testing.T) {
	rs, err := RunBenchmarks(BenchConfig{Batch: 2, Hidden: 3, In: 2, Steps: 3, Reps: 1}, []string{"rnn-step", "lstm-step"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Name != "rnn-step" || !(rs[0].PerStep > 0) || !(rs[1].Setup >= 0) {
		t.Errorf("results %+v", rs)
	}
	var buf bytes.Buffer
	if err := WriteBenchTable(&buf, rs); err != nil || !strings.Contains(buf.String(), "lstm-step") {
		t.Errorf("table %q, %v", buf.String(), err)
	}
	if _, err := RunBenchmarks(BenchConfig{}, []string{"nope"}); err == nil {
		t.Error("unknown benchmark accepted")
	}
	if _, err := RunBenchmarks(BenchConfig{Reps: -1}, nil); err == nil {
		t.Error("negative reps accepted")
	}
}
