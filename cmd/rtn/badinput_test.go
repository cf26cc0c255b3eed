package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rtnlab/rtn/internal/memlimit"
)

// badCase is one bad command line: its exit status and a substring of
// its one-line message.
type badCase struct {
	args []string
	code int
	msg  string
}

// numericFlags are the numeric flags of every command: each refuses a
// value that is not a number with a usage error naming it.
var numericFlags = map[string][]string{
	"train":       {"hidden", "layers", "lr", "momentum", "clip", "weight-decay", "epochs", "batch", "chunk", "patience", "seed"},
	"sample":      {"n", "seed", "temperature", "max-len"},
	"pretrain":    {"hidden", "epochs", "lr", "momentum", "clip", "batch", "chunk", "seed"},
	"pcnn":        {"size", "units", "minutes", "passes", "restarts", "generate", "ctw-depth", "hmm-states", "hmm-iterations", "seed"},
	"spectral":    {"n", "noise", "L", "rank", "seed", "d", "p", "states", "epochs", "seeds"},
	"bench":       {"batch", "hidden", "in", "steps", "reps"},
	"reproduce":   {"seed", "jobs"},
	"umps train":  {"balance", "train", "valid", "epochs", "batch", "lr", "init-noise", "patience", "restarts", "seed"},
	"umps sample": {"n", "seed"},
	"umps eval":   {"len", "samples", "seed"},
}

// badCases lists the bad command lines; model is a small u-MPS run
// directory, file a regular file, dir a writable directory.
func badCases(model, file, dir string) []badCase {
	var cs []badCase
	for cmd, flags := range numericFlags {
		for _, f := range flags {
			args := append(strings.Fields(cmd), "-"+f, "abc")
			cs = append(cs, badCase{args, 2, "invalid value \"abc\" for flag -" + f})
		}
	}
	c := func(code int, msg string, args ...string) { cs = append(cs, badCase{args, code, msg}) }
	// Commands and flags.
	c(2, "no command given")
	c(2, `unknown command "fly"`, "fly")
	c(2, "flag provided but not defined: -hiden", "train", "-hiden", "3")
	c(2, `unexpected argument "extra"`, "train", "extra")
	c(2, "want a subcommand", "umps")
	c(2, `unknown subcommand "fit"`, "umps", "fit")
	c(2, "flag provided but not defined: -x", "umps", "prob", "-x")
	// train: values, names, ranges.
	c(2, "-model must be one of 2rnn, cp2rnn, gru, hotrnn, lstm, mirnn, mpscell, rnn", "train", "-model", "transformer")
	c(2, "-rank: layers: cell lstm has no rank to set", "train", "-model", "lstm", "-rank", "3")
	c(2, "-dropout runs between stacked cells: it needs layers >= 2, got 1", "train", "-dropout", "0.2")
	c(2, "-embed: applies to the registered cells only, not model umps", "compare", "-model", "umps", "-embed", "4")
	c(2, "-dropout runs between stacked cells: it needs layers >= 2, got 1", "compare", "-model", "lstm", "-dropout", "0.3")
	c(2, "-dtype must be float64 or float32, got \"half\"", "compare", "-model", "gru", "-dtype", "half")
	c(1, "-model cp2rnn -hidden 4096 -layers 1 (8.2e+11 parameters) needs about", "train", "-model", "cp2rnn", "-hidden", "4096", "-rank", "100000000")
	c(1, "-model hotrnn -hidden 1024 -layers 1 (1.03e+12 parameters) needs about", "train", "-model", "hotrnn", "-hidden", "1024", "-lags", "1000", "-rank", "1000")
	c(2, "-order: tensorcell: hotrnn order must be in [1, 4], got 40", "train", "-model", "hotrnn", "-order", "40")
	c(1, "-model cp2rnn -hidden 4096 -layers 1 (8.2e+11 parameters) needs about", "compare", "-model", "cp2rnn", "-hidden", "4096", "-rank", "100000000")
	c(1, "(lstm, 64 layers, 8.52e+09 parameters) needs about", "eval", "-model", filepath.Join(dir, "big"))
	c(1, "(lstm, 64 layers, 8.52e+09 parameters) needs about", "sample", "-model", filepath.Join(dir, "big"))
	c(1, "-model lstm -hidden 1024 -layers 2 (1.26e+07 parameters) needs about", "train", "-hidden", "1024", "-layers", "2")
	c(1, "-model mpscell -hidden 1024 -layers 1 (5.25e+06 parameters) needs about", "train", "-model", "mpscell", "-hidden", "1024")
	c(2, "-dropout must be a rate in [0, 1), got 1", "train", "-layers", "2", "-dropout", "1")
	c(2, "-embed must not be negative, got -1", "train", "-embed", "-1")
	c(2, "-order: ", "train", "-model", "hotrnn", "-order", "-1")
	c(2, "-lags: layers: cell cp2rnn has no lags to set", "train", "-model", "cp2rnn", "-lags", "2")
	c(2, `-activation: rnn: activation "relu": want tanh, symsigmoid or identity`, "train", "-model", "rnn", "-activation", "relu")
	c(2, "-activation: layers: cell lstm has no activation", "train", "-model", "lstm", "-activation", "tanh")
	c(2, "-layers must be >= 1, got 0", "train", "-layers", "0")
	c(2, "-layers must be in [1, 64], got 65", "train", "-layers", "65")
	c(2, "-embed must be in [0, 4096], got 5000", "train", "-embed", "5000")
	c(2, "-hidden must be in [1, 4096]", "train", "-hidden", "0")
	c(2, "-hidden must be in [1, 4096]", "train", "-hidden", "5000")
	c(2, "-epochs must be >= 1", "train", "-epochs", "0")
	c(2, "-batch must be >= 1", "train", "-batch", "-1")
	c(2, "-chunk must be >= 0", "train", "-chunk", "-1")
	c(2, "-patience must be >= 0", "train", "-patience", "-1")
	c(2, `-dtype must be float64 or float32, got "float16"`, "train", "-dtype", "float16")
	c(2, `-dtype: unknown dtype "half"`, "bench", "-dtype", "half")
	c(2, `-dtype must be float64 or float32, got "f32"`, "pretrain", "-dtype", "f32")
	c(2, "-executor graph runs float64 only", "bench", "-dtype", "float32", "-executor", "graph")
	c(2, "umps-d20-step runs float64 only", "bench", "-dtype", "float32", "-only", "umps-d20-step")
	c(2, "-lr must be a finite number", "train", "-lr", "NaN")
	c(2, "-lr must be a finite number", "train", "-lr", "-1")
	c(2, "-lr must be a finite number", "train", "-lr", "Inf")
	c(2, "-clip must be a finite number", "train", "-clip", "-1")
	c(2, "-weight-decay must be a finite number", "train", "-weight-decay", "NaN")
	c(2, "-momentum must be 0 with -optimizer adam (momentum applies to sgd and rmsprop), got 0.9", "train", "-momentum", "0.9")
	c(2, "-nesterov must be false with -optimizer adam", "train", "-nesterov")
	c(2, "-seed must be >= 1", "train", "-seed", "0")
	c(2, `-task must be pfa (or give -data FILE), got "foo"`, "train", "-task", "foo")
	c(2, `-optimizer: unknown optimizer "lbfgs"`, "train", "-optimizer", "lbfgs")
	c(2, "-schedule:", "train", "-schedule", "cosine")
	c(2, "-schedule:", "train", "-schedule", "step:x:0.5")
	c(1, "no-such-file.txt", "train", "-data", "no-such-file.txt")
	c(1, "is a directory", "train", "-data", dir)
	c(1, "is not a directory", "train", "-out", file)
	c(1, "is not a directory", "train", "-out", filepath.Join(file, "sub"))
	c(1, "-data "+file+" (", "train", "-data", file, "-quiet")
	// pretrain.
	c(2, "-data must be one of", "pretrain", "-data", "bach")
	c(2, "-data-dir must be the directory of the MAT-files of -data jsb", "pretrain", "-data", "jsb")
	c(2, "-hidden must be in [1, 4096]", "pretrain", "-hidden", "0")
	c(2, "-epochs must be >= 0", "pretrain", "-epochs", "-1")
	c(2, "-batch must be >= 1", "pretrain", "-batch", "0")
	c(2, "-chunk must be >= 1", "pretrain", "-chunk", "0")
	c(2, "-lr must be a finite number > 0", "pretrain", "-lr", "0")
	c(2, "-lr must be a finite number > 0", "pretrain", "-lr", "NaN")
	c(2, "-clip must be a finite number", "pretrain", "-clip", "Inf")
	c(2, "-momentum must be 0 with -optimizer adam", "pretrain", "-momentum", "0.9")
	c(2, "-seed must be >= 1", "pretrain", "-seed", "0")
	c(2, `-init must be autoenc, random or linear`, "pretrain", "-init", "autoenc,xavier")
	c(2, `-optimizer: unknown optimizer "newton"`, "pretrain", "-optimizer", "newton")
	c(2, "-schedule:", "pretrain", "-schedule", "warp:3")
	c(1, "is not a directory", "pretrain", "-out", file)
	// pcnn.
	c(2, "-task must be alphabet, music, xor or anbn", "pcnn", "-task", "dyck", "-passes", "1")
	c(2, "-model must be rnn, cnn or pcnn", "pcnn", "-model", "lstm", "-passes", "1")
	c(2, "-activation must be tanh or logistic", "pcnn", "-activation", "relu", "-passes", "1")
	c(2, "-writing must be qdh or dh", "pcnn", "-writing", "x", "-passes", "1")
	c(2, "-transition must be", "pcnn", "-transition", "x", "-passes", "1")
	c(2, "is not available for the rnn", "pcnn", "-model", "rnn", "-passes", "1")
	c(2, "-units must be in [1, 1024]", "pcnn", "-units", "0", "-passes", "1")
	c(2, "-units must be in [1, 1024]", "pcnn", "-units", "2000", "-passes", "1")
	c(2, "-degree must be full or in [1, -units 16], got 99", "pcnn", "-degree", "99", "-passes", "1")
	c(2, "-degree must be full or an integer", "pcnn", "-degree", "half", "-passes", "1")
	c(2, "-size must be >= 0", "pcnn", "-size", "-1", "-passes", "1")
	c(2, "-minutes must be a number of minutes in [0, 527040]", "pcnn", "-minutes", "NaN")
	c(2, "-passes must be >= 0", "pcnn", "-passes", "-1")
	c(2, "set -minutes or -passes", "pcnn")
	c(2, "-restarts must be >= 1, got -1", "pcnn", "-restarts", "-1", "-passes", "1")
	c(2, "-generate must be >= 0", "pcnn", "-generate", "-1", "-passes", "1")
	c(2, "-seed must be >= 1", "pcnn", "-seed", "0", "-passes", "1")
	c(2, "-baseline must be bzip2, ctw or hmm", "pcnn", "-baseline", "lz")
	c(2, "-hmm-states must be in", "pcnn", "-baseline", "hmm", "-hmm-states", "-1")
	c(2, "-hmm-iterations must be >= 1", "pcnn", "-baseline", "hmm", "-hmm-iterations", "-1")
	c(2, "-ctw-depth must be in [1, 64]", "pcnn", "-baseline", "ctw", "-ctw-depth", "65")
	c(2, "-task must be alphabet", "pcnn", "-baseline", "ctw", "-task", "x")
	c(1, "is not a directory", "pcnn", "-passes", "1", "-out", file)
	c(1, "-size 100000000 needs about", "pcnn", "-passes", "1", "-size", "100000000")
	c(1, "-generate 100000000 needs about", "pcnn", "-passes", "1", "-generate", "100000000")
	// spectral.
	c(2, "-task must be random2rnn or addition", "spectral", "-task", "sum")
	c(2, "-method must be one of", "spectral", "-method", "svd")
	c(2, "-n must be in [1, 1000000]", "spectral", "-n", "0")
	c(2, "-n must be in [1, 1000000]", "spectral", "-n", "2000000")
	c(2, "-noise must be a finite number", "spectral", "-noise", "-1")
	c(2, "-noise must be a finite number", "spectral", "-noise", "NaN")
	c(2, "-L must be in [1, 8]", "spectral", "-L", "9")
	c(2, "-rank must be >= 0, got -2", "spectral", "-rank", "-2")
	c(2, "-d must be >= 1, got 0", "spectral", "-d", "0")
	c(2, "-states must be >= 1, got 0", "spectral", "-states", "0")
	c(2, "-epochs must be >= 1, got 0", "spectral", "-method", "tiht+sgd", "-epochs", "0")
	c(2, "-epochs must be unset with -method tiht (only tiht+sgd and lstm train for epochs), got 3", "spectral", "-epochs", "3")
	c(2, "-seed must be >= 1", "spectral", "-seed", "0")
	c(2, "apply to -task random2rnn only", "spectral", "-task", "addition", "-d", "4")
	c(2, "-rank must be at most the Hankel matricisation's d^L = 9, got 10", "spectral", "-rank", "10")
	c(2, "design matrix, too large", "spectral", "-L", "5", "-n", "1000")
	c(1, "-states 3000 -p 2 -d 3 -n 1000 needs about", "spectral", "-states", "3000")
	c(1, "-states 5 -p 3000000 -d 3 -n 1000 needs about", "spectral", "-p", "3000000")
	c(2, "-seeds must be >= 1", "spectral", "-sweep", "-seeds", "0")
	c(2, `-ns: "x" is not a training size`, "spectral", "-sweep", "-ns", "x")
	c(2, `-ns must be in [1, 1000000], got 0`, "spectral", "-sweep", "-ns", "20,0")
	c(2, `-noises must be a finite number >= 0, got -1`, "spectral", "-sweep", "-noises", "-1")
	c(2, `-methods must be one of ls, nuclear, iht, tiht, tiht+sgd, lstm, tt-tiht, tt-als, got "svd"`, "spectral", "-sweep", "-methods", "ls,svd")
	c(2, `-ranks must be in [1, 9], got 10`, "spectral", "-sweep", "-ranks", "10")
	c(2, "-out must be a directory with -sweep", "spectral", "-sweep", "-out", "")
	c(1, "-out "+file+"/m.npz: "+file+" is not a directory", "spectral", "-out", file+"/m.npz")
	c(2, "-save-data must be a .npz or .csv file", "spectral", "-save-data", dir+"/")
	c(1, "-save-data "+file+"/d.csv: "+file+" is not a directory", "spectral", "-save-data", file+"/d.csv")
	c(1, "is not a directory", "spectral", "finetune", "-model", file, "-data", file, "-out", file)
	c(1, "is not a directory", "spectral", "predict", "-model", file, "-data", file, "-out", file+"/p.csv")
	c(1, "is not a directory", "reproduce", "-out", file)
	// bench.
	c(2, "-batch must be >= 1", "bench", "-batch", "0")
	c(2, "-hidden must be >= 1", "bench", "-hidden", "0")
	c(2, "-in must be >= 1", "bench", "-in", "-3")
	c(2, "-steps must be >= 1", "bench", "-steps", "0")
	c(2, "-reps must be >= 1", "bench", "-reps", "0")
	c(2, `-only: unknown benchmark "gpu"`, "bench", "-only", "gpu")
	c(1, "-in 1000000 -hidden 100 needs about", "bench", "-in", "1000000")
	c(1, "-steps 100000000 -in 88 -hidden 100 needs about", "bench", "-steps", "100000000")
	c(1, "-batch 100000000 -steps 1000 -in 88 -hidden 100 needs about", "bench", "-batch", "100000000")
	c(2, `invalid value "50,x" for flag -steps: "x" is not an integer`, "bench", "-steps", "50,x")
	c(2, "-steps must be >= 1, got 0", "bench", "-steps", "100,0")
	c(2, "-checkpoint must be >= 0", "bench", "-checkpoint", "-1")
	c(1, "-hidden 100000 needs about", "bench", "-hidden", "100000")
	// reproduce.
	c(2, `-only: unknown section "nope"`, "reproduce", "-only", "nope")
	c(2, "-seed must be >= 1", "reproduce", "-seed", "0")
	c(2, "-jobs must be in [1, 1024]", "reproduce", "-jobs", "0")
	c(2, "-resume must be given with an output directory -out", "reproduce", "-resume", "-out", "")
	// umps train.
	c(2, `-bond must be auto or in [1, 512], got 0`, "umps", "train", "-bond", "0")
	c(2, `-bond must be auto or in [1, 512], got 600`, "umps", "train", "-bond", "600")
	c(2, `-bond must be auto or an integer in [1, 512], got "abc"`, "umps", "train", "-bond", "abc")
	c(2, "-bond must be a number: auto needs a string file (-format)", "umps", "train", "-bond", "auto")
	c(2, `-grow-from must be auto, none or a bond dimension below -bond, got 20`, "umps", "train", "-bond", "20", "-grow-from", "20")
	c(2, `-grow-from must be auto, none or a bond dimension below -bond, got -3`, "umps", "train", "-grow-from", "-3")
	c(2, `-grow-from must be auto, 0 or an integer below -bond, got "x"`, "umps", "train", "-grow-from", "x")
	c(2, "-grow-lr must be a finite number >= 0, got -1", "umps", "train", "-grow-lr", "-1")
	c(2, "-train must be >= 1, got 0", "umps", "train", "-train", "0")
	c(2, "-valid must be >= 1, got -5", "umps", "train", "-valid", "-5")
	c(2, "-epochs must be >= 1", "umps", "train", "-epochs", "0")
	c(2, "-balance must be >= 0", "umps", "train", "-balance", "-1")
	c(2, "-batch must be >= 1", "umps", "train", "-batch", "0")
	c(2, "-lr must be a finite number >= 0", "umps", "train", "-lr", "-1")
	c(2, "-init-noise must be a finite number >= 0", "umps", "train", "-init-noise", "-0.5")
	c(2, "-patience must be >= 1", "umps", "train", "-patience", "0")
	c(2, "-restarts must be >= 1", "umps", "train", "-restarts", "0")
	c(2, "-seed must be >= 1", "umps", "train", "-seed", "0")
	c(2, `-norm must be n or star, got "all"`, "umps", "train", "-norm", "all")
	c(2, `-init must be identity or normal, got "zero"`, "umps", "train", "-init", "zero")
	c(1, "is not a directory", "umps", "train", "-out", file)
	c(1, "-data "+file+" (", "umps", "train", "-data", file, "-quiet")
	// umps sample, prob, complete, eval.
	c(2, "-model must be a model file or run directory (required)", "umps", "sample", "-regex", "0*")
	c(2, "-regex must be a regular expression over the model's alphabet (required)", "umps", "sample", "-model", model)
	c(2, "-n must be >= 1, got -1", "umps", "sample", "-model", model, "-regex", "0*", "-n", "-1")
	c(2, "-regex: umps: regex \"(\"", "umps", "sample", "-model", model, "-regex", "(")
	c(2, "-regex: umps: regex \"[\"", "umps", "sample", "-model", model, "-regex", "[")
	c(2, "-regex:", "umps", "sample", "-model", model, "-regex", "x+")
	c(2, "-regex:", "umps", "sample", "-model", model, "-regex", `\pL`)
	c(2, "-regex:", "umps", "sample", "-model", model, "-regex", "0{2,1}")
	c(1, "-n 100000000 needs about", "umps", "sample", "-model", model, "-regex", "0*", "-n", "100000000")
	c(1, "DFA states", "umps", "sample", "-model", model, "-regex", ".*1.{25}", "-exact")
	c(2, "-exact and -method alg1 disagree", "umps", "sample", "-model", model, "-regex", "0*", "-exact", "-method", "alg1")
	c(1, "no-such-model", "umps", "sample", "-model", "no-such-model", "-regex", "0*")
	c(2, "-regex, -string must be exactly one given", "umps", "prob", "-model", model)
	c(2, "-regex, -string must be exactly one given", "umps", "prob", "-model", model, "-regex", "0", "-string", "0")
	c(2, "-string: symbol '2'", "umps", "prob", "-model", model, "-string", "0120")
	c(2, "-string:", "umps", "prob", "-model", model, "-string", "a")
	c(2, "-regex: umps: regex \"(0\"", "umps", "prob", "-model", model, "-regex", "(0")
	c(2, "-regex:", "umps", "prob", "-model", model, "-regex", `\pL`)
	c(2, "-regex:", "umps", "prob", "-model", model, "-regex", "z")
	c(2, "-model must be a model file or run directory (required)", "umps", "prob", "-string", "01")
	c(2, "-prefix:", "umps", "complete", "-model", model, "-prefix", "0x")
	c(2, "-suffix:", "umps", "complete", "-model", model, "-suffix", "9")
	c(2, "-model must be a model file or run directory (required)", "umps", "complete")
	c(2, "-len must be >= 1, got -1", "umps", "eval", "-model", model, "-len", "-1")
	c(2, "-samples must be >= 1, got 0", "umps", "eval", "-model", model, "-samples", "0")
	c(2, "-task:", "umps", "eval", "-model", model, "-task", "tomita9")
	c(2, "-task:", "umps", "eval", "-model", model, "-task", "motzkin")
	c(1, "-len 1000000 -samples 1000 needs about", "umps", "eval", "-model", model, "-len", "1000000")
	c(1, "-len 16 -samples 100000000 needs about", "umps", "eval", "-model", model, "-samples", "100000000")
	return cs
}

// TestBadInput runs every bad command line through run and checks the
// exit status, the message and the one-line rule (at most maxMessage
// characters, nothing on stdout). The memory limit is set low (64 MiB)
// so that the estimates trip without allocating anything.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model")
	if _, stderr, code := invoke("umps", "train", "-bond", "2", "-epochs", "1", "-train", "20", "-valid", "10",
		"-balance", "0", "-quiet", "-out", model); code != 0 {
		t.Fatalf("training the test model: %s", stderr)
	}
	file := filepath.Join(dir, "data.txt")
	if err := os.WriteFile(file, []byte(strings.Repeat("abcabd\n", 2000000)), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.MkdirAll(big, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(big, "model.json"), []byte(`{"format": "rtn-sequence-model/1", "cell": "lstm",
		"config": {"in": 5, "hidden": 4096}, "layers": 64, "out": 4, "kind": "categorical"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(memlimit.Env, "64M")
	cases := badCases(model, file, dir)
	if len(cases) < 150 {
		t.Errorf("%d cases, want at least 150", len(cases))
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := invoke(tc.args...)
			if code != tc.code {
				t.Errorf("exit status %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			last := lines[len(lines)-1]
			if !strings.Contains(last, tc.msg) {
				t.Errorf("message %q lacks %q", last, tc.msg)
			}
			if n := utf8.RuneCountInString(last); n > maxMessage {
				t.Errorf("message of %d characters: %q", n, last)
			}
		})
	}
}

// TestMemoryLimitEnv checks the override's syntax and that a bad value
// is a usage error naming the variable.
func TestMemoryLimitEnv(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want float64
	}{{"1024", 1024}, {"2K", 2048}, {"1.5G", 1.5 * (1 << 30)}, {"3t", 3 * (1 << 40)}} {
		t.Setenv(memlimit.Env, tc.v)
		got, src, err := memlimit.Limit()
		if err != nil || got != tc.want || src != memlimit.Env {
			t.Errorf("%s=%s: %v %q %v, want %v", memlimit.Env, tc.v, got, src, err, tc.want)
		}
	}
	for _, v := range []string{"lots", "-5G", "0", "NaN"} {
		t.Setenv(memlimit.Env, v)
		_, _, code := invoke("spectral", "-states", "3")
		if code != 2 {
			t.Errorf("%s=%s: exit status %d, want 2", memlimit.Env, v, code)
		}
	}
	t.Setenv(memlimit.Env, "off")
	if got, _, err := memlimit.Limit(); err != nil || got <= 1e300 {
		t.Errorf("off: %v %v", got, err)
	}
}

func TestOneLine(t *testing.T) {
	long := strings.Repeat("é", 500)
	if got := oneLine("a\n\tb  c\n"); got != "a b c" {
		t.Errorf("oneLine folded to %q", got)
	}
	if got := oneLine(long); utf8.RuneCountInString(got) != maxMessage || !strings.HasSuffix(got, "...") {
		t.Errorf("oneLine kept %d characters", utf8.RuneCountInString(got))
	}
}
