package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/layers/umps"
	"github.com/rtnlab/rtn/params"
	"github.com/rtnlab/rtn/spectral"
	"github.com/rtnlab/rtn/wfa"
)

// exitFixtures are the input files of TestExitCodes, good and malformed,
// in one directory: good files make the base command line of each
// command valid, so that each case has one thing wrong.
type exitFixtures struct {
	dir string
}

// path returns a fixture's path.
func (fx exitFixtures) path(name string) string { return filepath.Join(fx.dir, name) }

// pautomacSample writes n strings over v symbols in the PAutomaC layout,
// lengths 0 to 6, drawn from rng.
func pautomacSample(n, v int, rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(n) + " " + strconv.Itoa(v) + "\n")
	for range n {
		l := rng.IntN(7)
		b.WriteString(strconv.Itoa(l))
		for range l {
			b.WriteString(" " + strconv.Itoa(rng.IntN(v)))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// csvSample writes n sequences of d inputs and p outputs, lengths 1 to
// 5, in the CSV sequence-data layout.
func csvSample(n, d, p int, rng *rand.Rand) string {
	var cols []string
	for o := range p {
		cols = append(cols, "y"+strconv.Itoa(o+1))
	}
	for c := range d {
		cols = append(cols, "x"+strconv.Itoa(c+1))
	}
	lines := []string{strings.Join(cols, ",")}
	for range n {
		var f []string
		for range p + d*(1+rng.IntN(5)) {
			f = append(f, strconv.FormatFloat(rng.NormFloat64(), 'g', 4, 64))
		}
		lines = append(lines, strings.Join(f, ","))
	}
	return strings.Join(lines, "\n") + "\n"
}

func newExitFixtures(t *testing.T) exitFixtures {
	fx := exitFixtures{dir: t.TempDir()}
	rng := rand.New(rand.NewPCG(36, 1))
	write := func(name, text string) {
		t.Helper()
		path := fx.path(name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var sol strings.Builder
	sol.WriteString("20\n")
	for range 20 {
		sol.WriteString(strconv.FormatFloat(rng.Float64()/100, 'g', -1, 64) + "\n")
	}
	var text strings.Builder
	for range 40 {
		for range 1 + rng.IntN(8) {
			text.WriteByte("ab"[rng.IntN(2)])
		}
		text.WriteByte('\n')
	}
	garbage := string([]byte{0x50, 0x4b, 0x03, 0x04, 0xff, 0x00, 0x13, 0x37, 0x93, 'N', 'U', 'M', 'P', 'Y', 0, 0})
	for name, s := range map[string]string{
		"s.txt": pautomacSample(60, 3, rng), "t.txt": pautomacSample(20, 3, rng), "p.txt": pautomacSample(5, 3, rng),
		"t2.txt": pautomacSample(20, 2, rng), "sol.txt": sol.String(), "text.txt": text.String(),
		"lines.txt": "a b c\nc a\n\nb\n", "d.csv": csvSample(60, 3, 2, rng), "d1.csv": csvSample(150, 1, 1, rng),
		"targets.txt": "1.5 0 0.5 -1 0.25\n1 1 1\n1 2 1\n1 0 1\n1 -1 1\n",
		// Malformed string files.
		"empty.txt": "", "garbage.bin": garbage, "header.txt": "three strings\n1 0\n",
		"count.txt": "5 3\n1 0\n2 1 2\n", "more.txt": "1 3\n1 0\n1 1\n", "symbol.txt": "2 3\n1 0\n2 1 7\n",
		"length.txt": "2 3\n3 0 1\n0\n", "alpha24.txt": "3 16777216\n1 0\n0\n2 16777215 3\n",
		"alpha25.txt": "3 33554432\n1 0\n0\n2 1 1\n", "negative.txt": "-3 2\n", "utf8.txt": "a b\n\xff\xfe c\n",
		"nul.txt": "a\x00b\n", "badsol.txt": "20\n0.1\nNaN\n", "shortsol.txt": "20\n0.1\n", "badtargets.txt": "-1 0 0.5\n",
		// Malformed sequence-data files.
		"header.csv": "a,b,c\n1,2,3\n", "ragged.csv": "y1,x1,x2\n1,2,3,4\n", "nan.csv": "y1,x1\n1,NaN\n",
		"inf.csv": "y1,x1\n1e999,1\n", "only-header.csv": "y1,x1\n", "empty.csv": "", "split.csv": "split,y1,x1\nnone,1,2\n",
		"garbage.npz": garbage, "empty.npz": "", "data.mat": garbage,
		// A directory whose JSB data set is not a MAT file.
		"piano/JSB_Chorales.mat": garbage,
		// A run directory whose checkpoint is not an .npz file.
		"resume/checkpoint.npz": garbage,
		// A sweep whose CSV is not a sweep.
		"sweep/sweep.csv": "task,method\nrandom2rnn,ls\n",
		// A compare shard whose plan is not JSON.
		"shard/plan.json": "{", "readme.md": "no table here\n",
	} {
		write(name, s)
	}
	fx.sequenceModels(t, write)
	fx.umpsModels(t)
	fx.wfaModels(t, write)
	fx.spectralModels(t)
	return fx
}

// sequenceModels writes the model directories of eval, sample and
// predict: a good one over the symbols a and b, and malformed ones.
func (fx exitFixtures) sequenceModels(t *testing.T, write func(name, text string)) {
	cfg := layers.ModelConfig{Cell: "lstm", Config: layers.CellConfig{In: 3, Hidden: 2}, Out: 2, Kind: "categorical",
		Input: layers.InputNextSymbol, Symbols: []string{"a", "b"}}
	m, err := layers.NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"seq", "seq-nojson", "seq-badjson", "seq-big", "seq-shapes", "seq-garbage", "seq-cell", "seq-nosym"} {
		if err := m.Save(fx.path(d)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(fx.path("seq-nojson/model.json")); err != nil {
		t.Fatal(err)
	}
	write("seq-badjson/model.json", "{")
	write("seq-big/model.json", `{"format": "rtn-sequence-model/1", "cell": "lstm", "config": {"in": 5, "hidden": 4096}, "layers": 64, "out": 4, "kind": "categorical", "input": "next-symbol"}`)
	write("seq-shapes/model.json", `{"format": "rtn-sequence-model/1", "cell": "lstm", "config": {"in": 3, "hidden": 3}, "out": 2, "kind": "categorical", "input": "next-symbol", "symbols": ["a", "b"]}`)
	write("seq-garbage/model.npz", "not an archive")
	write("seq-cell/model.json", `{"format": "rtn-sequence-model/1", "cell": "transformer", "config": {"in": 3, "hidden": 2}, "out": 2, "kind": "categorical"}`)
	write("seq-nosym/model.json", `{"format": "rtn-sequence-model/1", "cell": "lstm", "config": {"in": 3, "hidden": 2}, "out": 2, "kind": "categorical"}`)
}

// umpsModels writes u-MPS model files over the symbols 0 and 1 (the
// Tomita languages'): a good one and malformed ones.
func (fx exitFixtures) umpsModels(t *testing.T) {
	good := umps.ModelMeta{Kind: "umps", Data: "tomita1", Alphabet: []string{"0", "1"}, Bond: 2, Norm: umps.AllLengths.String()}
	for name, edit := range map[string]func(*umps.ModelMeta, *params.Params){
		"umps":          func(*umps.ModelMeta, *params.Params) {},
		"umps-twice":    func(m *umps.ModelMeta, _ *params.Params) { m.Alphabet = []string{"0", "0"} },
		"umps-bond":     func(m *umps.ModelMeta, _ *params.Params) { m.Bond = 7 },
		"umps-kind":     func(m *umps.ModelMeta, _ *params.Params) { m.Kind = "rnn" },
		"umps-norm":     func(m *umps.ModelMeta, _ *params.Params) { m.Norm = "all" },
		"umps-data":     func(m *umps.ModelMeta, _ *params.Params) { m.Data = "tomita9" },
		"umps-alphabet": func(m *umps.ModelMeta, _ *params.Params) { m.Alphabet = []string{"0", "1", "2"} },
		"umps-nan":      func(_ *umps.ModelMeta, p *params.Params) { p.Data(umps.ParamA)[0] = nanValue() },
		"umps-lengths": func(m *umps.ModelMeta, _ *params.Params) {
			m.Lengths = &umps.LengthModel{Probs: []float64{0.5, 0.7}, Mix: 0.1, Ratio: 0.5}
		},
	} {
		meta := good
		p, err := umps.NewParams(2, 2, umps.NearIdentity, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.Data(umps.ParamA) {
			p.Data(umps.ParamA)[i] *= 0.5 // the transfer operator's spectral radius about 1/2: Z_* is finite
		}
		edit(&meta, p)
		if err := umps.SaveModel(fx.path(name+"/model.npz"), meta, p); err != nil {
			t.Fatal(err)
		}
	}
}

// nanValue is a NaN that the compiler does not fold.
func nanValue() float64 { z := 0.0; return z / z }

// wfaModels writes WFA model files over the symbols 0, 1 and 2: a good
// one and malformed ones.
func (fx exitFixtures) wfaModels(t *testing.T, write func(name, text string)) {
	model := func(alpha, omega []float64, trans [][]float64, names []string) string {
		m := &wfa.Model{WFA: spectral.WFA{States: 2, Out: 1, Alpha: alpha, Trans: trans, Omega: omega},
			Alphabet: names, Spec: wfa.Spec{Variant: spectral.Classic, Rows: 2, Cols: 2, Rank: 2}}
		var b bytes.Buffer
		if err := m.Write(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	small := [][]float64{{0.1, 0.2, 0, 0.3}, {0.2, 0, 0.1, 0.1}, {0, 0.1, 0.2, 0}}
	huge := [][]float64{{1e308, 1e308, 1e308, 1e308}, {1e308, -1e308, 1e308, 1e308}, {1, 1, 1, 1}}
	half := [][]float64{{0.5, 0.5, 0.5, 0.5}, {0.5, -0.5, 0.5, 0.5}, {0, 0, 0, 0}}
	good := model([]float64{0.6, 0.4}, []float64{0.3, 0.5}, small, []string{"0", "1", "2"})
	write("w.json", good)
	write("w-huge.json", model([]float64{1e308, 1e308}, []float64{1e308, 1e308}, huge, []string{"0", "1", "2"}))
	write("w-singular.json", model([]float64{0.5, 0.5}, []float64{0.5, 0.5}, half, []string{"0", "1", "2"}))
	write("w-twice.json", model([]float64{0.6, 0.4}, []float64{0.3, 0.5}, small, []string{"0", "1", "1"}))
	write("w-words.json", model([]float64{0.6, 0.4}, []float64{0.3, 0.5}, small, []string{"a", "b", "c"}))
	write("w-states.json", strings.Replace(good, `"states": 2`, `"states": 3`, 1))
	write("w-field.json", strings.Replace(good, `"format"`, `"colour": 1, "format"`, 1))
	write("w-format.json", strings.Replace(good, "rtn-wfa-1", "rtn-wfa-9", 1))
	write("w-nan.json", strings.Replace(good, "0.6", "NaN", 1))
	write("w-big.json", strings.Replace(good, `"states": 2`, `"states": 1000000000000`, 1))
	write("w-truncated.json", good[:len(good)/2])
	// A string of w-endless.json ends after each symbol with probability
	// 3e-8: wfa sample -max-len 10 is refused.
	const e = 0.33333332
	endless := [][]float64{{e, 0, 0, e}, {e, 0, 0, e}, {e, 0, 0, e}}
	write("w-endless.json", model([]float64{0.5, 0.5}, []float64{1e-9, 1e-9}, endless, []string{"0", "1", "2"}))
}

// spectralModels writes linear 2-RNN model files with d = 3 inputs and
// p = 2 outputs (those of d.csv): a good one and malformed ones.
func (fx exitFixtures) spectralModels(t *testing.T) {
	r, err := spectral.RandomTwoRNN(spectral.RandomTwoRNNConfig{States: 3}, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	if err := spectral.SaveModel(fx.path("sm.npz"), fx.path("sm.json"), r, spectral.ModelInfo{Method: "ls"}); err != nil {
		t.Fatal(err)
	}
	if err := params.WriteArrays(fx.path("sm-shapes.npz"), spectral.ModelInfo{Format: spectral.ModelFormat, States: 4, In: 3, Out: 2},
		[]params.Array{{Name: "alpha", Shape: []int{3}, Data: r.Alpha}}); err != nil {
		t.Fatal(err)
	}
	if err := params.WriteArrays(fx.path("sm-format.npz"), map[string]string{"format": "other"}, nil); err != nil {
		t.Fatal(err)
	}
}
