package compare

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSummaryExecutor checks that Config.Executor reaches the summary and
// summary.json, survives a Merge (it is in plan.json) and is part of the
// comparison's identity.
func TestSummaryExecutor(t *testing.T) {
	want := Executor{Kind: "graph", DType: "float64", Reason: "Builder.Do(\"tanh\") made node tanh"}
	dir := t.TempDir()
	c := smallConfig()
	c.Executor, c.Dir = want, dir
	s := mustRun(t, c).Summary()
	if s.Executor != want {
		t.Errorf("summary executor %+v, want %+v", s.Executor, want)
	}
	if err := s.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Executor Executor }
	if err := json.Unmarshal(b, &file); err != nil || file.Executor != want {
		t.Errorf("summary.json executor %+v (%v), want %+v", file.Executor, err, want)
	}
	m, err := Merge(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Summary().Executor; got != want {
		t.Errorf("merged summary executor %+v, want %+v", got, want)
	}
	c.Executor = Executor{Kind: "tape", DType: "float64"}
	if _, err := Run(c); err == nil || !strings.Contains(err.Error(), "another comparison") {
		t.Errorf("another executor in the same directory: error %v, want another comparison", err)
	}
	b, err = json.Marshal(mustRun(t, smallConfig()).Summary())
	if err != nil || strings.Contains(string(b), `"executor"`) {
		t.Errorf("summary without an executor: %.200s (%v)", b, err)
	}
}
