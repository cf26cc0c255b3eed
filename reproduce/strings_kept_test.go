package reproduce

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestStringsKept: a kept problem is read back as it was written, only
// when resuming and only under the same settings and learner; a file that is not a
// kept result is refused.
func TestStringsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "problems", "24.json")
	r := &stringsResult{Problem: 24, Kind: "DPFA", Optimum: 38.7288, Fit: stringsFit{Perplexity: 38.7397, Seconds: 2, Family: "pfa", States: 8},
		Subs: []stringsSub{{N: 1000, Fit: stringsFit{Perplexity: 38.9}, Spectral: stringsFit{Perplexity: 39.4}}}}
	k := stringsKept{Quick: false, Seed: 3, Learner: `{"Families":["pfa","hmm"]}`}
	if err := k.save(path, r); err != nil {
		t.Fatal(err)
	}
	got, err := k.load(path, true)
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("load: %+v, %v; want %+v", got, err, r)
	}
	if got, err := k.load(path, false); got != nil || err != nil {
		t.Errorf("load without resume: %+v, %v; want nothing", got, err)
	}
	if got, err := k.load(filepath.Join(filepath.Dir(path), "25.json"), true); got != nil || err != nil {
		t.Errorf("load of a problem not kept: %+v, %v; want nothing", got, err)
	}
	for name, other := range map[string]stringsKept{"seed": {Seed: 4, Learner: k.Learner}, "quick": {Quick: true, Seed: 3, Learner: k.Learner}, "learner": {Seed: 3, Learner: `{"Families":["pfa"]}`}} {
		if _, err := other.load(path, true); err == nil {
			t.Errorf("load under another %s: no error", name)
		}
	}
	if err := os.WriteFile(path, []byte(`{"quick": false, "seed": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := k.load(path, true); err == nil {
		t.Error("load of a file without a result: no error")
	}
}
