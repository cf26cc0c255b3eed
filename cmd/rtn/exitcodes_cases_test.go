package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/internal/memlimit"
)

// baseArgs is a valid, small command line of each command, to which a
// case adds one bad flag (a later flag overrides an earlier one).
func baseArgs(fx exitFixtures) map[string][]string {
	p := fx.path
	return map[string][]string{
		"bench":             {"-steps", "5", "-reps", "1", "-batch", "1", "-hidden", "2", "-in", "2", "-only", "lstm-step"},
		"compare":           {"-model", "2rnn", "-size", "20", "-epochs", "1", "-batch", "10", "-optimizers", "sgd", "-lr-grid", "0.1", "-seeds", "1", "-jobs", "1", "-quiet", "-out", "{out}/c"},
		"compare merge":     {"-out", "{out}/m", p("shard")},
		"eval":              {"-model", p("seq"), "-data", p("text.txt")},
		"pcnn":              {"-passes", "1", "-units", "2", "-degree", "full", "-size", "100", "-quiet", "-out", "{out}/p"},
		"predict":           {"-model", p("seq"), "-data", p("text.txt"), "-out", "{out}/p.csv"},
		"pretrain":          {"-epochs", "1", "-hidden", "2", "-quiet", "-out", "{out}/p"},
		"reproduce":         {"-only", "spectral", "-quiet", "-out", "{out}/r"},
		"sample":            {"-model", p("seq"), "-n", "2"},
		"spectral":          {"-n", "20", "-out", "{out}/m.npz"},
		"spectral predict":  {"-model", p("sm.npz"), "-data", p("d.csv"), "-out", "{out}/p.csv"},
		"spectral finetune": {"-model", p("sm.npz"), "-data", p("d.csv"), "-epochs", "1", "-quiet", "-out", "{out}/f"},
		"train":             {"-epochs", "1", "-hidden", "2", "-quiet", "-out", "{out}/t"},
		"umps train":        {"-epochs", "1", "-bond", "2", "-train", "20", "-valid", "10", "-balance", "0", "-quiet", "-out", "{out}/u"},
		"umps sample":       {"-model", p("umps"), "-regex", "0*1", "-n", "2"},
		"umps prob":         {"-model", p("umps"), "-string", "01"},
		"umps complete":     {"-model", p("umps"), "-prefix", "0", "-suffix", "1"},
		"umps eval":         {"-model", p("umps"), "-len", "4", "-samples", "10"},
		"umps score":        {"-model", p("umps"), "-test", p("t2.txt")},
		"wfa learn":         {"-train", p("s.txt"), "-rank", "2", "-out", "{out}/w.json"},
		"wfa sweep":         {"-train", p("s.txt"), "-test", p("t.txt"), "-solution", p("sol.txt"), "-ranks", "1,2"},
		"wfa finetune":      {"-model", p("w.json"), "-train", p("s.txt"), "-epochs", "1", "-quiet", "-out", "{out}/f.json"},
		"wfa score":         {"-model", p("w.json"), "-test", p("t.txt")},
		"wfa rank":          {"-model", p("w.json"), "-prefixes", p("p.txt")},
		"wfa sample":        {"-model", p("w.json"), "-n", "2"},
		"wfa minimize":      {"-model", p("w.json"), "-out", "{out}/m.json"},
		"wfa dot":           {"-model", p("w.json")},
		"version":           nil,
	}
}

// numericExpect gives, for each numeric flag of each command, the status
// of each value of its kind (intValues, uintValues or floatValues, in
// order): 2 or 1 where the value is wrong, 0 where the flag accepts it
// (then it is not a bad input and not run).
var numericExpect = map[string]map[string][]int{
	"bench": {
		"batch":      {2, 2, 2},
		"checkpoint": {0, 2, 2},
		"hidden":     {2, 2, 2},
		"in":         {2, 2, 2},
		"reps":       {2, 2, 2},
	},
	"compare": {
		"batch":       {0, 2, 2},
		"chunk":       {0, 2, 2},
		"data-seed":   {0},
		"diverge":     {0, 0, 2, 2, 0},
		"dropout":     {0, 2, 2, 2, 2},
		"embed":       {0, 2, 2},
		"epochs":      {0, 2, 2},
		"extend-grid": {0, 2, 2},
		"eval-every":  {0, 2, 2},
		"hidden":      {0, 2, 2},
		"jobs":        {0, 2, 2},
		"lags":        {0, 2, 2},
		"layers":      {0, 2, 2},
		"noise":       {0, 2, 2, 2, 1},
		"order":       {0, 2, 2},
		"rank":        {0, 2, 2},
		"rerun":       {0, 2, 2},
		"seconds":     {0, 2, 2, 2, 0},
		"size":        {0, 2, 2},
		"steps":       {0, 2, 2},
		"target":      {0, 2, 2, 2, 0},
	},
	"pcnn": {
		"ctw-depth":      {0, 2, 2},
		"generate":       {0, 2, 2},
		"hmm-iterations": {0, 2, 2},
		"hmm-states":     {0, 2, 2},
		"minutes":        {0, 2, 2, 2, 2},
		"passes":         {2, 2, 2},
		"restarts":       {0, 2, 2},
		"seed":           {2},
		"size":           {0, 2, 2},
		"units":          {2, 2, 2},
	},
	"pretrain": {
		"batch":    {2, 2, 2},
		"chunk":    {2, 2, 2},
		"clip":     {0, 2, 2, 2, 0},
		"epochs":   {0, 2, 2},
		"hidden":   {2, 2, 2},
		"lr":       {2, 2, 2, 2, 1},
		"momentum": {0, 2, 2, 2, 2},
		"seed":     {2},
	},
	"reproduce": {
		"jobs": {2, 2, 2},
		"seed": {2},
	},
	"sample": {
		"max-len":     {2, 2, 2},
		"n":           {2, 2, 2},
		"seed":        {2},
		"temperature": {2, 2, 2, 2, 0},
	},
	"spectral": {
		"L":          {2, 2, 2},
		"d":          {2, 2, 2},
		"epochs":     {0, 2, 2}, // 0 is unset: tiht trains for no epochs
		"n":          {2, 2, 2},
		"noise":      {0, 2, 2, 2, 1},
		"p":          {2, 2, 2},
		"rank":       {0, 2, 2},
		"seed":       {2},
		"seeds":      {2, 2, 2},
		"states":     {2, 2, 2},
		"test-frac":  {2, 2, 2, 2, 2},
		"valid-frac": {2, 2, 2, 2, 2},
	},
	"spectral finetune": {
		"batch":        {2, 2, 2},
		"clip":         {0, 2, 2, 2, 0},
		"epochs":       {2, 2, 2},
		"lr":           {0, 2, 2, 2, 1},
		"momentum":     {0, 2, 2, 2, 2},
		"patience":     {0, 2, 2},
		"seed":         {2},
		"test-frac":    {0, 2, 2, 2, 2},
		"valid-frac":   {0, 2, 2, 2, 2},
		"weight-decay": {0, 2, 2, 2, 1},
	},
	"train": {
		"batch":        {2, 2, 2},
		"chunk":        {0, 2, 2},
		"clip":         {0, 2, 2, 2, 0},
		"dropout":      {0, 2, 2, 2, 2},
		"embed":        {0, 2, 2},
		"epochs":       {2, 2, 2},
		"hidden":       {2, 2, 2},
		"lags":         {0, 2, 2},
		"layers":       {2, 2, 2},
		"lr":           {0, 2, 2, 2, 1},
		"momentum":     {0, 2, 2, 2, 2},
		"order":        {0, 2, 2},
		"patience":     {0, 2, 2},
		"rank":         {0, 2, 2},
		"seed":         {2},
		"weight-decay": {0, 2, 2, 2, 0},
	},
	"umps eval": {
		"len":     {0, 2, 2},
		"samples": {2, 2, 2},
		"seed":    {0},
	},
	"umps prob": {
		"string": {2},
	},
	"umps sample": {
		"n":    {0, 2, 2},
		"seed": {0},
	},
	"umps train": {
		"balance":    {0, 2, 2},
		"batch":      {2, 2, 2},
		"clip":       {0, 2, 2, 2, 0},
		"epochs":     {2, 2, 2},
		"grow-lr":    {0, 2, 2, 2, 2},
		"init-noise": {0, 2, 2, 2, 1},
		"lr":         {0, 2, 2, 2, 1},
		"patience":   {2, 2, 2},
		"restarts":   {2, 2, 2},
		"seed":       {2},
		"train":      {2, 2, 2},
		"valid":      {2, 2, 2},
		"valid-frac": {0, 2, 2, 2, 2},
	},
	"wfa dot": {
		"min-weight": {0, 2, 2, 2, 0},
	},
	"wfa finetune": {
		"batch":    {2, 2, 2},
		"check-se": {0, 0, 2, 2, 0},
		"clip":     {0, 2, 2, 2, 0},
		"epochs":   {2, 2, 2},
		"lr":       {2, 2, 2, 2, 1},
		"patience": {2, 2, 2},
		"seed":     {2},
		"valid":    {2, 2, 2, 2, 2},
	},
	"wfa learn": {
		"folds":      {0, 2, 2},
		"lcolumns":   {0, 2, 2},
		"lrows":      {0, 2, 2},
		"mixture":    {0, 2, 2},
		"mixture-se": {2, 2, 2, 2, 2},
		"rank":       {0, 2, 2},
		"seed":       {2},
		"valid":      {0, 2, 2, 2, 2},
	},
	"wfa minimize": {
		"tol": {2, 2, 2, 2, 2},
	},
	"wfa rank": {
		"k": {2, 2, 2},
	},
	"wfa sample": {
		"max-len": {0, 2, 2},
		"n":       {2, 2, 2},
		"seed":    {0},
	},
	"wfa sweep": {
		"folds":         {0, 2, 2},
		"lrows":         {0, 2, 2},
		"max-ruled-out": {0, 2, 2, 2, 2},
		"seed":          {2},
		"valid":         {0, 2, 2, 2, 2},
	},
}

// withFlag returns base with flag set to value, the flag given last.
func withFlag(cmd string, base []string, flag, value string) []string {
	return append(append(strings.Fields(cmd), base...), "-"+flag, value)
}

// exitCases generates the cases of TestExitCodes.
func exitCases(t *testing.T, fx exitFixtures) []exitCase {
	base := baseArgs(fx)
	var cs []exitCase
	var missing []string
	for _, cmd := range exitCommands {
		b, ok := base[cmd]
		if !ok {
			t.Fatalf("no base command line for %q", cmd)
		}
		kinds := flagKinds(t, cmd)
		names := make([]string, 0, len(kinds))
		for f := range kinds {
			names = append(names, f)
		}
		slices.Sort(names)
		for _, f := range names {
			values := map[string][]string{"int": intValues, "uint": uintValues, "float": floatValues}[kinds[f]]
			want, ok := numericExpect[cmd][f]
			if !ok || len(want) != len(values) {
				missing = append(missing, cmd+" -"+f)
				want = make([]int, len(values))
				for i := range want {
					want[i] = -1
				}
			}
			for i, v := range values {
				if want[i] != 0 {
					cs = append(cs, exitCase{args: withFlag(cmd, b, f, v), code: want[i]})
				}
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("numeric flags without expectations in numericExpect: %s", strings.Join(missing, ", "))
	}
	cs = append(cs, fileCases(fx, base)...)
	cs = append(cs, conflictCases(fx, base)...)
	return cs
}

// fileCases are malformed input files of every format, each given to
// every command that reads it.
func fileCases(fx exitFixtures, base map[string][]string) []exitCase {
	p := fx.path
	var cs []exitCase
	add := func(code int, msg, cmd string, args ...string) {
		cs = append(cs, exitCase{args: append(append(strings.Fields(cmd), base[cmd]...), args...), code: code, msg: msg})
	}
	stringFiles := []string{"empty.txt", "garbage.bin", "header.txt", "count.txt", "more.txt", "symbol.txt", "length.txt",
		"alpha24.txt", "alpha25.txt", "negative.txt", "missing.txt"}
	for _, f := range stringFiles {
		add(1, "", "wfa learn", "-train", p(f))
		add(1, "", "wfa sweep", "-train", p(f))
		add(1, "", "wfa sweep", "-test", p(f))
		add(1, "", "wfa score", "-test", p(f))
		add(1, "", "wfa rank", "-prefixes", p(f))
		add(1, "", "wfa finetune", "-train", p(f))
		add(1, "", "umps score", "-test", p(f))
		if f != "alpha24.txt" { // see TestExitCodes: trains for minutes over 2^24 symbols
			add(1, "", "umps train", "-data", p(f), "-format", "pautomac")
		}
	}
	for _, f := range []string{"utf8.txt", "empty.txt", "nul.txt"} {
		if f != "nul.txt" { // a NUL is a token of the lines format
			add(1, "", "wfa learn", "-train", p(f), "-format", "lines")
			add(1, "", "umps train", "-data", p(f), "-format", "lines")
		}
		add(1, "", "train", "-data", p(f))
		add(1, "", "eval", "-data", p(f))
		add(1, "", "predict", "-data", p(f))
	}
	for _, f := range []string{"badsol.txt", "shortsol.txt", "empty.txt", "missing.txt"} {
		add(1, "", "wfa sweep", "-solution", p(f))
		add(1, "", "wfa score", "-solution", p(f))
		add(1, "", "umps score", "-solution", p(f))
	}
	for _, f := range []string{"badtargets.txt", "empty.txt", "garbage.bin"} {
		add(1, "", "wfa rank", "-targets", p(f))
	}
	for _, f := range []string{"header.csv", "ragged.csv", "nan.csv", "inf.csv", "only-header.csv", "empty.csv", "split.csv",
		"garbage.npz", "empty.npz", "data.mat", "missing.csv"} {
		cs = append(cs, exitCase{args: []string{"spectral", "-data", p(f), "-out", "{out}/m.npz"}, code: 1})
		add(1, "", "spectral predict", "-data", p(f))
		add(1, "", "spectral finetune", "-data", p(f))
	}
	for _, f := range []string{"garbage.npz", "empty.npz", "sm-shapes.npz", "sm-format.npz", "missing.npz"} {
		add(1, "", "spectral predict", "-model", p(f))
		add(1, "", "spectral finetune", "-model", p(f))
	}
	for _, d := range []string{"seq-nojson", "seq-badjson", "seq-big", "seq-shapes", "seq-garbage", "seq-cell", "seq-nosym", "missing", "text.txt"} {
		add(1, "", "eval", "-model", p(d))
		add(1, "", "sample", "-model", p(d))
		add(1, "", "predict", "-model", p(d))
	}
	for _, d := range []string{"umps-twice", "umps-bond", "umps-kind", "umps-norm", "umps-alphabet", "umps-nan", "umps-lengths", "garbage.npz", "missing"} {
		for _, cmd := range []string{"umps sample", "umps prob", "umps complete", "umps eval", "umps score"} {
			add(1, "", cmd, "-model", p(d))
		}
	}
	add(1, "", "umps eval", "-model", p("umps-data"))
	for _, f := range []string{"w-huge.json", "w-twice.json", "w-states.json", "w-field.json", "w-format.json", "w-nan.json",
		"w-big.json", "w-truncated.json", "garbage.bin", "empty.txt", "missing.json"} {
		for _, cmd := range []string{"wfa score", "wfa rank", "wfa sample", "wfa minimize", "wfa dot", "wfa finetune"} {
			add(1, "", cmd, "-model", p(f))
		}
	}
	add(1, "", "wfa sample", "-model", p("w-singular.json"))
	add(1, "raise -max-len", "wfa sample", "-model", p("w-endless.json"), "-max-len", "10")
	add(1, "", "wfa rank", "-model", p("w-singular.json"))
	add(2, "-format: pautomac writes symbols as numbers", "wfa sample", "-model", p("w-words.json"))
	add(1, "", "pretrain", "-data", "jsb", "-data-dir", p("piano"))
	add(1, "", "pretrain", "-data", "jsb", "-data-dir", p("missing"))
	add(1, "", "train", "-resume", p("resume"))
	add(1, "", "train", "-resume", p("missing"))
	cs = append(cs, exitCase{args: []string{"spectral", "-sweep", "-resume", "-out", p("sweep")}, code: 1})
	add(1, "", "compare merge")
	add(1, "", "reproduce", "-readme", p("readme.md"))
	return cs
}

// conflictCases are flags that conflict or have no effect together, and
// bad RTN_MEMORY_LIMIT values.
func conflictCases(fx exitFixtures, base map[string][]string) []exitCase {
	var cs []exitCase
	add := func(code int, msg, cmd string, args ...string) {
		cs = append(cs, exitCase{args: append(append(strings.Fields(cmd), base[cmd]...), args...), code: code, msg: msg})
	}
	add(2, "beta1 must be in [0, 1)", "compare", "-optimizers", "adam:beta1=2")
	add(2, "-jobs must be in [1, 1024]", "compare", "-jobs", "100000")
	add(2, "-batch must be >= 1, or FullBatch (full batch), got -5", "compare", "-batch", "-5")
	add(2, "-out must be a directory with -shard", "compare", "-shard", "1/2", "-out", "")
	add(2, "-jobs must be in [1, 1024]", "reproduce", "-jobs", "-1")
	add(2, `-only: unknown section "nope"`, "reproduce", "-only", "spectral,nope")
	add(2, "-data: datasets: Tomita grammar 9 does not exist", "umps train", "-data", "tomita9")
	add(2, "-valid-frac must be unset without -format", "umps train", "-valid-frac", "1")
	add(2, "-patience must be >= 1, got 0", "umps train", "-data", fx.path("s.txt"), "-format", "pautomac", "-patience", "0")
	add(2, "-epochs must be >= 1, got 0", "umps train", "-data", fx.path("s.txt"), "-format", "pautomac", "-epochs", "0")
	add(2, "-data must be a string file (required with -format)", "umps train", "-format", "lines")
	add(1, "needs about", "train", "-batch", "100000000")
	add(2, "design matrix, too large", "spectral", "-method", "ls", "-L", "5", "-n", "1000")
	add(2, "unexpected argument", "version", "extra")
	add(2, "-regex, -string must be exactly one given", "umps prob", "-regex", "0", "-string", "0")
	add(2, "-valid must be unset with -folds 2", "wfa learn", "-rank", "0", "-folds", "2", "-valid", "0.3")
	add(2, "-folds must be unset with -rank", "wfa learn", "-folds", "2")
	add(2, "-v must be unset with -rank", "wfa learn", "-v")
	add(2, "-mixture must be unset with -select nll", "wfa learn", "-rank", "0", "-select", "nll", "-mixture", "2")
	add(2, "-mixture-se must be unset with -select loo", "wfa learn", "-rank", "0", "-select", "loo", "-mixture-se", "0")
	add(2, "-valid must be unset with -folds 3", "wfa sweep", "-folds", "3", "-valid", "0.3")
	add(2, "-seconds must be alone, without -epochs or -steps", "compare", "-steps", "5", "-seconds", "1")
	add(2, "-seconds must be alone, without -epochs or -steps", "compare", "-epochs", "1", "-seconds", "1")
	add(2, "-schedule must be complete, step:N:G", "train", "-schedule", "step:5")
	add(2, "-schedule must be complete, exp:G", "train", "-schedule", "exp")
	add(2, "schedule must be complete, plateau:P:F", "compare", "-optimizers", "sgd:schedule=plateau:3")
	add(2, "-ctw-depth must be unset without -baseline ctw", "pcnn", "-ctw-depth", "3")
	add(2, "-hmm-states must be unset without -baseline hmm", "pcnn", "-hmm-states", "4")
	add(2, "-hmm-iterations must be unset without -baseline hmm", "pcnn", "-baseline", "ctw", "-hmm-iterations", "4")
	add(2, "-grow-lr must be unset without -grow-from", "umps train", "-grow-lr", "0.1")
	add(2, "-units must be unset with -baseline ctw", "pcnn", "-baseline", "ctw")
	cs = append(cs, exitCase{args: []string{"pcnn", "-baseline", "bzip2", "-out", "{out}/p"}, code: 2, msg: "-out must be unset with -baseline bzip2"})
	cs = append(cs, exitCase{args: []string{"compare", "-suite", "small", "-data-seed", "3", "-out", "{out}/c"}, code: 2, msg: "-data-seed: cannot be set with a suite"})
	add(2, "this output is a file", "wfa learn", "-out", "-")
	add(2, "writing it would destroy it", "wfa learn", "-train", fx.path("s.txt"), "-out", fx.path("s.txt"))
	add(2, "-test, -solution must be given together", "wfa sweep", "-solution", "")
	add(2, "2 appears twice", "wfa sweep", "-ranks", "2,2")
	add(2, "-check-se must be unset with -check none", "wfa finetune", "-check", "none", "-check-se", "2")
	add(2, "it needs -targets", "wfa rank", "-json")
	add(2, "-methods must be unset with a single built-in run: it applies to -sweep only", "spectral", "-n", "100", "-methods", "ls")
	add(2, "-epochs must be >= 1, got 0", "spectral", "-method", "tiht+sgd", "-epochs", "0")
	add(2, "-out must be empty with -method lstm", "spectral", "-method", "lstm")
	add(2, "-epochs must be unset with -method ls", "spectral", "-method", "ls", "-epochs", "5")
	cs = append(cs, exitCase{args: []string{"spectral", "-sweep", "-data", fx.path("d.csv")}, code: 2, msg: "-sweep must be unset with -data"},
		exitCase{args: []string{"spectral", "-sweep", "-ns", "20", "-out", ""}, code: 2, msg: "-out must be a directory with -sweep"})
	add(2, "-n must be unset with -data: the data file replaces the built-in task", "spectral", "-data", fx.path("d.csv"), "-n", "5")
	add(2, "writing it would destroy it", "spectral predict", "-out", fx.path("d.csv"))
	cs = append(cs, exitCase{args: []string{"spectral", "predict", "-data", fx.path("d.csv")}, code: 2, msg: "-model must be a model file written by rtn spectral -out (required)"})
	add(2, "-out must be a .npz or .csv file", "spectral predict", "-out", "{out}/p.txt")
	add(2, "not in the alphabet", "umps sample", "-regex", "2")
	add(2, "-suffix: symbol", "umps complete", "-suffix", "x")
	for _, v := range []string{"99999999999999999999T", "12Q", "5GB", "-5G", "1e9", "0", "lots"} {
		for _, cmd := range []string{"train", "spectral", "wfa learn", "umps sample", "bench"} {
			c := exitCase{args: append(strings.Fields(cmd), base[cmd]...), env: []string{memlimit.Env + "=" + v}, code: 2, msg: memlimit.Env}
			cs = append(cs, c)
		}
	}
	return cs
}
