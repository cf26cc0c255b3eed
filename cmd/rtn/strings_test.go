package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stringsFitArgs is a small fit: two sizes, a few iterations.
func stringsFitArgs(train, out string, extra ...string) []string {
	return append([]string{"strings", "fit", "-train", train, "-out", out, "-states", "2,3", "-em-iters", "10", "-epochs", "3"}, extra...)
}

func TestStringsFitScoreSampleRank(t *testing.T) {
	dir := t.TempDir()
	train := writeSample(t, dir, "train.txt", 400, 1)
	test := writeSample(t, dir, "test.txt", 50, 2)
	model := filepath.Join(dir, "m.json")
	var out, errb bytes.Buffer
	if err := run(stringsFitArgs(train, model), &out, &errb); err != nil {
		t.Fatalf("fit: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "chosen") {
		t.Fatalf("fit printed no chosen candidate:\n%s", out.String())
	}
	// A solution: any positive values; the perplexity against it is at
	// least its optimum (Gibbs' inequality).
	sol := filepath.Join(dir, "sol.txt")
	var b strings.Builder
	b.WriteString("50\n")
	for i := range 50 {
		b.WriteString([]string{"0.01\n", "0.03\n"}[i%2])
	}
	if err := os.WriteFile(sol, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run([]string{"strings", "score", "-model", model, "-test", test, "-solution", sol, "-json"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Perplexity, Optimum, Ratio float64
		LogLoss                    float64 `json:"log_loss_nats_per_symbol"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if !(res.Perplexity >= res.Optimum && res.Optimum > 1) || math.Abs(res.Ratio-res.Perplexity/res.Optimum) > 1e-12 || !(res.LogLoss > 0) {
		t.Fatalf("score %+v: want perplexity >= optimum > 1, ratio their quotient and a positive log-loss", res)
	}
	out.Reset()
	if err := run([]string{"strings", "sample", "-model", model, "-n", "5", "-format", "lines"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 5 {
		t.Fatalf("sample wrote %d lines, want 5", n)
	}
	// -max-len 1: every string ends within one symbol (longer draws are
	// redrawn, not cut).
	out.Reset()
	if err := run([]string{"strings", "sample", "-model", model, "-n", "20", "-max-len", "1", "-format", "lines"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if len(strings.Fields(l)) > 1 {
			t.Fatalf("sample -max-len 1 wrote %q", l)
		}
	}
	out.Reset()
	if err := run([]string{"strings", "rank", "-model", model, "-prefixes", test, "-k", "2"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 50 || len(strings.Fields(lines[0])) != 2 {
		t.Fatalf("rank wrote %d lines (first %q), want 50 of 2 symbols", len(lines), lines[0])
	}
}

func TestStringsFitSameFileForAnyJobs(t *testing.T) {
	dir := t.TempDir()
	train := writeSample(t, dir, "train.txt", 300, 3)
	for _, extra := range [][]string{nil, {"-grid-strings", "100"}} {
		var files [][]byte
		for _, jobs := range []string{"1", "2"} {
			model := filepath.Join(dir, "m"+jobs+".json")
			var out, errb bytes.Buffer
			if err := run(stringsFitArgs(train, model, append([]string{"-jobs", jobs, "-method", "em+gradient"}, extra...)...), &out, &errb); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(model)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, b)
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Fatalf("%v: the model files of -jobs 1 and -jobs 2 differ", extra)
		}
	}
}

// TestStringsFitGrowsStates: with the default families, the candidates
// take the families in turn, and each family's sizes grow by the factor
// until a size does not improve on the family's best.
func TestStringsFitGrowsStates(t *testing.T) {
	dir := t.TempDir()
	train := writeSample(t, dir, "train.txt", 400, 5)
	model := filepath.Join(dir, "m.json")
	var out, errb bytes.Buffer
	args := []string{"strings", "fit", "-train", train, "-out", model, "-states-from", "2", "-states-growth", "1.5", "-states-max", "6",
		"-states-patience", "1", "-em-iters", "10", "-epochs", "2", "-single", "-json"}
	if err := run(args, &out, &errb); err != nil {
		t.Fatalf("fit: %v\n%s", err, errb.String())
	}
	var sum struct {
		Candidates []struct {
			Family string
			States int
			Valid  float64
		}
		Chosen int
	}
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatal(err)
	}
	grid := []int{2, 3, 5}
	seen := map[string][]float64{}
	best := math.Inf(1)
	for i, c := range sum.Candidates {
		if i < 2 && c.Family != []string{"pfa", "hmm"}[i] {
			t.Fatalf("candidate %d is of family %s: want pfa, then hmm", i, c.Family)
		}
		if i >= 2 && c.Family == sum.Candidates[i-1].Family && len(seen[otherFamily(c.Family)]) == len(seen[c.Family]) {
			t.Fatalf("candidate %d (%s) follows one of its own family while the other family has as many", i, c.Family)
		}
		k := len(seen[c.Family])
		if k >= len(grid) || c.States != grid[k] {
			t.Fatalf("candidate %d is the %s family's size %d with %d states, want the grid %v (from 2 by 1.5, rounded up)", i, c.Family, k, c.States, grid)
		}
		seen[c.Family] = append(seen[c.Family], c.Valid)
		best = min(best, c.Valid)
	}
	for fam, v := range seen {
		famBest := math.Inf(1)
		for i, x := range v {
			last := i == len(v)-1
			if !last && !(x < famBest) {
				t.Fatalf("%s size %d (valid %g) did not improve on %g but the grid went on", fam, i, x, famBest)
			}
			if last && len(v) < len(grid) && x < famBest {
				t.Fatalf("%s size %d improved (valid %g < %g) but the grid stopped", fam, i, x, famBest)
			}
			famBest = min(famBest, x)
		}
	}
	if len(seen) != 2 {
		t.Fatalf("families tried: %v, want pfa and hmm", seen)
	}
	if sum.Candidates[sum.Chosen].Valid != best {
		t.Fatalf("chose candidate %d (valid %g), the best is %g", sum.Chosen, sum.Candidates[sum.Chosen].Valid, best)
	}
}

func otherFamily(f string) string {
	if f == "pfa" {
		return "hmm"
	}
	return "pfa"
}

func TestStringsBadInput(t *testing.T) {
	dir := t.TempDir()
	train := writeSample(t, dir, "train.txt", 50, 4)
	model := filepath.Join(dir, "m.json")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format":"rtn-strings-model","family":"pfa","alphabet":["0"],"pfa":{"kind":"pfa","states":2,"symbols":1,"init":[0]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no train", []string{"strings", "fit", "-out", model}, 2, "-train must be a string file (required)"},
		{"em-tol", []string{"strings", "fit", "-train", train, "-out", model, "-em-tol", "2"}, 2, "-em-tol must be in [0, 1), got 2"},
		{"em-iters", []string{"strings", "fit", "-train", train, "-out", model, "-em-iters", "-1"}, 2, "-em-iters must be >= 1, got -1"},
		{"em-accel", []string{"strings", "fit", "-train", train, "-out", model, "-em-accel", "fast"}, 2, "-em-accel must be plain or squarem, got \"fast\""},
		{"mixed wfa", []string{"strings", "fit", "-train", train, "-out", model, "-family", "pfa,wfa"}, 2, "wfa"},
		{"bad states", []string{"strings", "fit", "-train", train, "-out", model, "-states", "0"}, 2, "states"},
		{"bad growth", []string{"strings", "fit", "-train", train, "-out", model, "-states-growth", "1"}, 2, "growth"},
		{"from above max", []string{"strings", "fit", "-train", train, "-out", model, "-states-from", "9", "-states-max", "4"}, 2, "-states-from must be at most -states-max 4, got 9"},
		{"bad method", []string{"strings", "fit", "-train", train, "-out", model, "-method", "sgd"}, 2, "method"},
		{"no model", []string{"strings", "score", "-test", train}, 2, "-model"},
		{"bad model", []string{"strings", "score", "-model", bad, "-test", train}, 1, "init"},
		{"unknown", []string{"strings", "learn"}, 2, "unknown subcommand"},
		{"score no test", []string{"strings", "score", "-model", bad}, 2, "-test must be a string file (required)"},
		{"score jobs", []string{"strings", "score", "-model", bad, "-test", train, "-jobs", "-1"}, 2, "-jobs must be in [1, 1024], got -1"},
		{"sample n", []string{"strings", "sample", "-model", bad, "-n", "-1"}, 2, "-n must be >= 1, got -1"},
		{"sample max-len", []string{"strings", "sample", "-model", bad, "-max-len", "-1"}, 2, "-max-len must be >= 1, got -1"},
		{"sample no model", []string{"strings", "sample"}, 2, "-model must be a model file (required)"},
		{"rank k", []string{"strings", "rank", "-model", bad, "-prefixes", train, "-k", "0"}, 2, "-k must be >= 1, got 0"},
		{"rank no prefixes", []string{"strings", "rank", "-model", bad}, 2, "-prefixes must be a prefix file (required)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(tc.args, &out, &errb)
			if exitCode(err) != tc.code || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v (exit %d), want exit %d naming %q", err, exitCode(err), tc.code, tc.want)
			}
		})
	}
}

// TestStringsFitWithoutOut checks that strings fit without -out runs the
// selection as runs.FitStrings does with an empty Out: the table, the
// chosen candidate, and no file.
func TestStringsFitWithoutOut(t *testing.T) {
	dir := t.TempDir()
	train := writeSample(t, dir, "train.txt", 200, 1)
	args := []string{"strings", "fit", "-train", train, "-states", "2", "-em-iters", "5", "-epochs", "2"}
	var out, errb bytes.Buffer
	if err := run(args, &out, &errb); err != nil {
		t.Fatalf("fit: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "chosen (not written: no -out)") {
		t.Fatalf("fit without -out printed:\n%s", out.String())
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 1 {
		t.Fatalf("files in the directory: %v (%v), want the training file only", entries, err)
	}
}

// TestStringsFitGridStrings: with -grid-strings below the training split,
// the grid first scans sizes with candidates trained on that many strings,
// then each family trains its best of the scan on the whole split and
// grows from its size.
func TestStringsFitGridStrings(t *testing.T) {
	dir := t.TempDir()
	train := writeSample(t, dir, "train.txt", 400, 6)
	var out, errb bytes.Buffer
	args := []string{"strings", "fit", "-train", train, "-out", filepath.Join(dir, "m.json"), "-states-from", "2", "-states-max", "7",
		"-em-iters", "10", "-epochs", "3", "-grid-strings", "100", "-single", "-json"}
	if err := run(args, &out, &errb); err != nil {
		t.Fatalf("fit: %v\n%s", err, errb.String())
	}
	var sum struct {
		Candidates []struct {
			Family, Start string
			States        int
			TrainStrings  int `json:"train_strings"`
			Valid         float64
			StartValid    float64 `json:"start_valid"`
		}
	}
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatal(err)
	}
	scanBest := map[string]int{}
	grown := map[string]int{}
	for i, c := range sum.Candidates {
		switch {
		case c.TrainStrings == 100:
			if len(grown) > 0 || c.Start != "spectral" {
				t.Fatalf("candidate %d (%+v) trained on 100 strings after the scan or not from the spectral start", i, c)
			}
			if b, ok := scanBest[c.Family]; !ok || c.Valid < sum.Candidates[b].Valid {
				scanBest[c.Family] = i
			}
		case c.TrainStrings == 360:
			b, ok := scanBest[c.Family]
			if !ok {
				t.Fatalf("candidate %d (%+v) on the whole split for a family the scan did not train", i, c)
			}
			if _, again := grown[c.Family]; !again {
				sb := sum.Candidates[b]
				if c.Start != "grid-best" || c.States != sb.States || c.StartValid != sb.Valid || c.Valid > c.StartValid {
					t.Fatalf("candidate %d (%+v): want the scan's best %s (%+v) trained on the 360 strings, from its loss, without loss", i, c, c.Family, sb)
				}
			} else if c.Start != "spectral" || c.States <= sum.Candidates[grown[c.Family]].States {
				t.Fatalf("candidate %d (%+v): want a larger %s automaton from the spectral start", i, c, c.Family)
			}
			grown[c.Family] = i
		default:
			t.Fatalf("candidate %d (%+v) trained on %d strings, want 100 or 360", i, c, c.TrainStrings)
		}
	}
	if len(grown) != 2 || len(scanBest) != 2 {
		t.Fatalf("scan %v, grown %v: want both families in both passes", scanBest, grown)
	}
}
