package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// trainModel runs rtn train -out on the built-in task with small sizes
// and returns the directory and the test loss it reported.
func trainModel(t *testing.T, extra ...string) (string, float64) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "model")
	args := append([]string{"train", "-hidden", "6", "-epochs", "1", "-quiet", "-json", "-out", dir}, extra...)
	stdout, stderr, code := invoke(args...)
	if code != 0 {
		t.Fatalf("rtn %s: %s", strings.Join(args, " "), stderr)
	}
	var rep struct {
		TestLoss float64 `json:"test_loss"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	return dir, rep.TestLoss
}

// TestEvalBitExact checks that rtn eval on a model directory, without
// data, prints the test loss rtn train reported, bit for bit, in JSON and
// in the table, for one cell of each kind, a stack, float32, an embedding
// and the tensor cells.
func TestEvalBitExact(t *testing.T) {
	for _, extra := range [][]string{{"-model", "lstm"}, {"-model", "2rnn"}, {"-model", "rnn", "-layers", "2"}, {"-model", "gru", "-dtype", "float32"},
		{"-model", "lstm", "-layers", "2", "-embed", "5"}, {"-model", "gru", "-layers", "2", "-dropout", "0.3"}, {"-model", "cp2rnn", "-rank", "3"}, {"-model", "hotrnn"}, {"-model", "mirnn"}, {"-model", "mpscell"}} {
		t.Run(strings.Join(extra, " "), func(t *testing.T) {
			dir, want := trainModel(t, extra...)
			stdout, stderr, code := invoke("eval", "-model", dir, "-json")
			if code != 0 {
				t.Fatal(stderr)
			}
			var rep struct {
				Loss      float64 `json:"loss"`
				Sequences int     `json:"sequences"`
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Loss != want || rep.Sequences != 128 {
				t.Errorf("eval loss %.17g over %d sequences, train's test loss %.17g", rep.Loss, rep.Sequences, want)
			}
			stdout, _, _ = invoke("eval", "-model", dir)
			if s := strconv.FormatFloat(want, 'g', -1, 64); !strings.Contains(stdout, "loss            "+s+" nats/symbol") {
				t.Errorf("the table does not print the loss %s:\n%s", s, stdout)
			}
		})
	}
}

// TestSampleRepeatable checks that rtn sample prints the same strings on
// every run, that -prefix, -max-len and -stop shape them, and that rtn
// eval and rtn predict read them back.
func TestSampleRepeatable(t *testing.T) {
	dir, _ := trainModel(t, "-model", "gru")
	first, stderr, code := invoke("sample", "-model", dir, "-n", "5", "-seed", "1")
	if code != 0 {
		t.Fatal(stderr)
	}
	again, _, _ := invoke("sample", "-model", dir, "-n", "5", "-seed", "1")
	other, _, _ := invoke("sample", "-model", dir, "-n", "5", "-seed", "2")
	lines := strings.Split(strings.TrimSpace(first), "\n")
	if first != again || first == other || len(lines) != 5 || len(lines[0]) != 100 {
		t.Errorf("seed 1 twice:\n%s\n%s\nseed 2:\n%s", first, again, other)
	}
	out, _, code := invoke("sample", "-model", dir, "-n", "20", "-prefix", "ab", "-stop", "c", "-max-len", "12", "-temperature", "0.5")
	for _, s := range strings.Fields(out) {
		if code != 0 || !strings.HasPrefix(s, "ab") || len(s) > 12 || strings.Contains(s[2:len(s)-1], "c") || !strings.HasSuffix(s[2:], "c") {
			t.Errorf("sample %q: want a prefix ab, at most 12 symbols, c after the prefix the last and only there", s)
		}
	}
	data := filepath.Join(t.TempDir(), "samples.txt")
	if err := os.WriteFile(data, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	if stdout, stderr, code := invoke("eval", "-model", dir, "-data", data, "-json"); code != 0 || !strings.Contains(stdout, `"steps":500`) {
		t.Errorf("eval of the samples: %s %s", stdout, stderr)
	}
	csvPath := filepath.Join(t.TempDir(), "p.csv")
	if _, stderr, code := invoke("predict", "-model", dir, "-data", data, "-out", csvPath); code != 0 {
		t.Fatal(stderr)
	}
	checkPredictCSV(t, csvPath, 500)
}

// checkPredictCSV checks rtn predict's file: a header naming the symbols,
// one row per step, each a distribution.
func checkPredictCSV(t *testing.T, path string, steps int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != steps+1 || strings.Join(rows[0], ",") != "sequence,step,symbol,a,b,c,d" {
		t.Fatalf("%d rows, header %v", len(rows), rows[0])
	}
	for _, r := range rows[1:] {
		var sum float64
		for _, v := range r[3:] {
			p, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			sum += p
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("row %v sums to %v", r, sum)
		}
	}
}

// TestUseBadInput runs eval, sample and predict on bad command lines and
// damaged model directories: the exit status of docs/robustness.md, one
// line on stderr naming the problem, nothing on stdout.
func TestUseBadInput(t *testing.T) {
	dir, _ := trainModel(t, "-model", "rnn")
	tmp := t.TempDir()
	damaged := func(name, config string) string {
		d := filepath.Join(tmp, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "model.npz"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "model.npz"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "model.json"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	good, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	corrupt := damaged("corrupt", string(good[:len(good)/2]))
	unknown := damaged("unknown", strings.Replace(string(good), `"cell": "rnn"`, `"cell": "mystery"`, 1))
	shape := damaged("shape", strings.Replace(string(good), `"hidden": 6`, `"hidden": 7`, 1))
	data := filepath.Join(tmp, "data.txt")
	if err := os.WriteFile(data, []byte("abcd\nabzd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(tmp, "none")
	for _, tc := range []badCase{
		{[]string{"eval"}, 2, "-model must be a model directory (required)"},
		{[]string{"eval", "-model", missing}, 1, "not a model directory"},
		{[]string{"eval", "-model", corrupt}, 1, "model.json: not a model config"},
		{[]string{"eval", "-model", unknown}, 1, `field "cell": unknown cell "mystery"`},
		{[]string{"eval", "-model", shape}, 1, `parameter "rnn/W" has shape`},
		{[]string{"eval", "-model", dir, "-format", "csv"}, 2, `-format: unknown data format "csv"`},
		{[]string{"eval", "-model", dir, "-data", data}, 1, "not in the alphabet"},
		{[]string{"eval", "-model", dir, "-data", missing}, 1, "none"},
		{[]string{"sample", "-model", dir, "-temperature", "0"}, 2, "-temperature must be a finite number > 0"},
		{[]string{"sample", "-model", dir, "-temperature", "-1"}, 2, "-temperature"},
		{[]string{"sample", "-model", dir, "-temperature", "NaN"}, 2, "-temperature"},
		{[]string{"sample", "-model", dir, "-n", "0"}, 2, "-n must be >= 1"},
		{[]string{"sample", "-model", dir, "-max-len", "0"}, 2, "-max-len must be >= 1"},
		{[]string{"sample", "-model", dir, "-seed", "0"}, 2, "-seed must be >= 1"},
		{[]string{"sample", "-model", dir, "-prefix", "abz"}, 2, "-prefix: symbol 'z'"},
		{[]string{"sample", "-model", dir, "-prefix", "abc", "-max-len", "2"}, 2, "-prefix must be at most -max-len 2 symbols"},
		{[]string{"sample", "-model", dir, "-stop", "q"}, 2, `-stop: symbol "q"`},
		{[]string{"sample", "-model", unknown}, 1, "mystery"},
		{[]string{"sample", "-model", missing}, 1, "not a model directory"},
		{[]string{"predict", "-model", dir, "-data", data}, 2, "-out"},
		{[]string{"predict", "-model", dir, "-out", filepath.Join(tmp, "p.csv")}, 2, "-data must be a file of sequences (required)"},
		{[]string{"predict", "-model", dir, "-data", data, "-out", tmp}, 1, "is a directory"},
		{[]string{"predict", "-model", dir, "-data", data, "-out", data}, 2, "would destroy it"},
		{[]string{"predict", "-model", corrupt, "-data", data, "-out", filepath.Join(tmp, "p.csv")}, 1, "not a model config"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := invoke(tc.args...)
			if code != tc.code {
				t.Errorf("exit status %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, tc.msg) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q: want one line containing %q", stderr, tc.msg)
			}
			if n := utf8.RuneCountInString(strings.TrimSpace(stderr)); n > maxMessage {
				t.Errorf("message of %d characters", n)
			}
		})
	}
}
