package runs

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/params"
)

// userCell is the name this test registers a user's cell under: a
// diagonal recurrence h_t = tanh(x_t W + h_{t-1} * d), trained, saved and
// evaluated by name like a built-in cell.
const userCell = "runs-test-diag"

type diagCell struct {
	p          *params.Params
	in, hidden int
	w, d       string
}

func (c *diagCell) InputSize() int    { return c.in }
func (c *diagCell) StateSizes() []int { return []int{c.hidden} }
func (c *diagCell) InitialState(b *graph.Builder, batch int) []*G.Node {
	return []*G.Node{b.ZeroState(batch, c.hidden)}
}
func (c *diagCell) Step(b *graph.Builder, x *G.Node, h []*G.Node) []*G.Node {
	return []*G.Node{b.Tanh(b.Add(b.Mul(x, b.Param(c.p, c.w)), b.MulRow(h[0], b.Param(c.p, c.d))))}
}

func init() {
	layers.RegisterCell(userCell, func(p *params.Params, name string, cfg layers.CellConfig, rng *rand.Rand) (graph.Cell, error) {
		c := &diagCell{p: p, in: cfg.In, hidden: cfg.Hidden, w: name + "/W", d: name + "/d"}
		if _, err := p.Add(c.w, cfg.In, cfg.Hidden); err != nil {
			return nil, err
		}
		if _, err := p.Add(c.d, cfg.Hidden); err != nil {
			return nil, err
		}
		if err := p.InitNormal(c.w, rng, 0.5); err != nil {
			return nil, err
		}
		return c, p.InitUniform(c.d, rng, 0.9)
	})
}

// smallTrain is a quick training run on the built-in task.
func smallTrain(t *testing.T, spec TrainSpec) (*TrainReport, string) {
	t.Helper()
	spec.Hidden, spec.Epochs, spec.Out = 4, 1, t.TempDir()
	rep, err := Train(spec)
	if err != nil {
		t.Fatal(err)
	}
	return rep, spec.Out
}

// TestEvalMatchesTrain checks that Eval of a trained model directory,
// without data, gives the test loss Train reported bit for bit, for
// built-in and user cells, stacks and float32.
func TestEvalMatchesTrain(t *testing.T) {
	for _, spec := range []TrainSpec{
		{Model: "rnn"}, {Model: "2rnn"}, {Model: userCell}, {Model: "lstm", Layers: 2}, {Model: "gru", DType: "float32"},
	} {
		t.Run(fmt.Sprintf("%s-%d-%s", spec.Model, spec.Layers, spec.DType), func(t *testing.T) {
			rep, dir := smallTrain(t, spec)
			ev, err := Eval(EvalSpec{Model: dir})
			if err != nil {
				t.Fatal(err)
			}
			if ev.Loss != rep.TestLoss {
				t.Errorf("eval loss %.17g, train's test loss %.17g", ev.Loss, rep.TestLoss)
			}
			if ev.Sequences != 128 || ev.Cell != spec.Model {
				t.Errorf("report %+v: want 128 sequences of cell %s", ev, spec.Model)
			}
		})
	}
}

// TestSampleAndPredict checks that Sample gives the same strings on every
// run and honours the prefix, that the samples read back as data, and that
// Predict's rows are distributions, one per step.
func TestSampleAndPredict(t *testing.T) {
	_, dir := smallTrain(t, TrainSpec{Model: "lstm"})
	spec := SampleSpec{Model: dir, N: 6, Seed: 3, Temperature: 1, MaxLen: 15, Prefix: "ab"}
	a, err := Sample(spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Sample(spec)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i, s := range a.Samples {
		if s != b.Samples[i] {
			t.Errorf("sample %d: %+v, then %+v", i, s, b.Samples[i])
		}
		if !strings.HasPrefix(s.Text, "ab") || s.Length != 15 || !(s.LogProb < 0) {
			t.Errorf("sample %+v: want 15 symbols starting ab, a negative log-probability", s)
		}
		lines = append(lines, s.Text)
	}
	data := filepath.Join(t.TempDir(), "samples.txt")
	if err := os.WriteFile(data, []byte(strings.Join(lines, "\n")+"\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ev, err := Eval(EvalSpec{Model: dir, DataFile: data})
	if err != nil {
		t.Fatal(err)
	}
	var ll float64
	for _, s := range a.Samples {
		ll += s.LogProb
	}
	if ev.Sequences != 6 || ev.Steps != 90 || math.Abs(float64(ev.LogLikelihood)-ll) > 1e-9*math.Abs(ll) {
		t.Errorf("eval of the samples %+v, want 6 sequences, 90 steps, log-likelihood %g", ev, ll)
	}
	out := filepath.Join(t.TempDir(), "p.csv")
	if _, err := Predict(PredictSpec{Model: dir, DataFile: data, Out: out}); err != nil {
		t.Fatal(err)
	}
	checkPredictions(t, out, 90)
}

// checkPredictions reads Predict's CSV: a header of sequence, step,
// symbol and the four symbols, then steps rows of probabilities summing
// to 1.
func checkPredictions(t *testing.T, path string, steps int) {
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
		var s float64
		for _, v := range r[3:] {
			p, err := strconv.ParseFloat(v, 64)
			if err != nil || p < 0 {
				t.Fatalf("row %v: %v", r, err)
			}
			s += p
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("row %v sums to %v", r, s)
		}
	}
}

func TestUseSpecErrors(t *testing.T) {
	_, dir := smallTrain(t, TrainSpec{Model: "rnn"})
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"eval no model", func() error { _, err := Eval(EvalSpec{}); return err }, "Model"},
		{"eval format", func() error { _, err := Eval(EvalSpec{Model: dir, Format: "csv"}); return err }, "csv"},
		{"sample temperature", func() error { _, err := Sample(SampleSpec{Model: dir, Temperature: -1}); return err }, "Temperature"},
		{"sample n", func() error { _, err := Sample(SampleSpec{Model: dir, N: -1, Temperature: 1}); return err }, "N must be >= 1"},
		{"predict out", func() error { _, err := Predict(PredictSpec{Model: dir, DataFile: "x"}); return err }, "Out"},
		{"missing model", func() error { _, err := Eval(EvalSpec{Model: filepath.Join(dir, "none")}); return err }, "not a model directory"},
	} {
		if err := c.run(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
	for _, spec := range []SampleSpec{{Prefix: "abz"}, {Stop: "q"}, {Prefix: "abc", MaxLen: 2}} {
		spec.Model, spec.Temperature = dir, 1
		var fe *FieldError
		if _, err := Sample(spec); !errors.As(err, &fe) || (fe.Field != "Prefix" && fe.Field != "Stop") {
			t.Errorf("%+v: error %v, want a *FieldError of Prefix or Stop", spec, err)
		}
	}
}
