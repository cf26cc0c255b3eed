package layers_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
)

// predictTol bounds the difference between LogProb and the log of
// Predict's probabilities, two computations of one sum; predictTol32 in a
// float32 step, whose Bernoulli read-out takes its exponentials to float32
// accuracy.
const (
	predictTol   = 1e-12
	predictTol32 = 1e-7
)

// modelCase is a model of the registry to test: a cell and a depth.
type modelCase struct {
	cell   string
	layers int
}

// modelCases is every registered cell with one layer, and two of them
// stacked.
func modelCases() []modelCase {
	var cases []modelCase
	for _, n := range layers.CellNames() {
		cases = append(cases, modelCase{n, 1})
	}
	return append(cases, modelCase{"lstm", 2}, modelCase{testCell, 2})
}

// newTestModel builds a registered model for a task with weights from
// seed.
func newTestModel(t *testing.T, c modelCase, task *datasets.Task, hidden int, seed uint64) *layers.Model {
	t.Helper()
	m, err := layers.NewModel(layers.ModelConfig{Cell: c.cell, Config: layers.CellConfig{In: task.In, Hidden: hidden},
		Layers: c.layers, Out: task.Out, Kind: task.Kind.String()}, rand.New(rand.NewPCG(seed, 3)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// executorConfigs are the executor choices LogProb is checked under.
func executorConfigs() []layers.ProblemConfig {
	return []layers.ProblemConfig{{}, {Executor: layers.ExecTape}, {Executor: layers.ExecGraph},
		{DType: graph.Float32}, {DType: graph.Float32, Executor: layers.ExecTape}}
}

// TestLogProbMatchesEvaluate checks, for every registered cell, target
// kind and executor, that -LogProb(ex)/T is Problem.Evaluate on ex alone
// bit for bit, and that LogProb is the sum of the step losses Predict's
// outputs give.
func TestLogProbMatchesEvaluate(t *testing.T) {
	const out, hidden = 3, 4
	for _, c := range modelCases() {
		for _, kind := range []datasets.TargetKind{datasets.Categorical, datasets.Binary, datasets.Real} {
			t.Run(fmt.Sprintf("%s-%d/%s", c.cell, c.layers, kind), func(t *testing.T) {
				task := fusedTask(kind, out+1, out, rand.New(rand.NewPCG(2, uint64(kind))))
				m := newTestModel(t, c, task, hidden, 5)
				for _, cfg := range executorConfigs() {
					prob, err := layers.NewProblem(m.Seq, task, cfg)
					if err != nil {
						t.Fatal(err)
					}
					pr, err := layers.NewPredictor(m.Seq, cfg)
					if err != nil {
						t.Fatal(err)
					}
					if cfg.Executor != "" && pr.Executor() != cfg.Executor {
						t.Errorf("%+v: runs on %s", cfg, pr.Executor())
					}
					for i, ex := range task.Train {
						lp, err := pr.LogProb(ex)
						if err != nil {
							t.Fatal(err)
						}
						want, err := prob.Evaluate(task.Train[i : i+1])
						if err != nil {
							t.Fatal(err)
						}
						if got := -lp / float64(ex.T); got != want {
							t.Errorf("%+v: example %d: -LogProb/T = %.17g, Evaluate %.17g", cfg, i, got, want)
						}
						y, err := pr.Predict(ex, nil)
						if err != nil {
							t.Fatal(err)
						}
						tol := predictTol
						if cfg.DType == graph.Float32 {
							tol = predictTol32
						}
						if ref := stepLosses(kind, y, ex, out); math.Abs(ref+lp) > tol*math.Abs(lp) {
							t.Errorf("%+v: example %d: LogProb %.17g, from Predict %.17g", cfg, i, lp, -ref)
						}
					}
				}
			})
		}
	}
}

// stepLosses sums the step losses of ex computed from the outputs y of
// Predict.
func stepLosses(kind datasets.TargetKind, y []float64, ex datasets.Example, out int) float64 {
	var sum float64
	for t := range ex.T {
		row := y[t*out : (t+1)*out]
		switch kind {
		case datasets.Categorical:
			sum -= math.Log(row[int(ex.Y[t])])
		case datasets.Binary:
			for j, p := range row {
				v := ex.Y[t*out+j]
				sum -= v*math.Log(p) + (1-v)*math.Log1p(-p)
			}
		default:
			var s float64
			for j, p := range row {
				d := p - ex.Y[t*out+j]
				s += d * d
			}
			sum += s / float64(out)
		}
	}
	return sum
}

// TestPredictorNoAllocations checks that Predict (into a buffer of the
// right size) and LogProb allocate nothing on a kernel or the tape, in
// float64 and float32, whatever the length.
func TestPredictorNoAllocations(t *testing.T) {
	const out, hidden = 3, 70 // 70 > 64: products are cut into tiles
	rng := rand.New(rand.NewPCG(9, 9))
	task := &datasets.Task{Name: "long", In: out + 1, Out: out, Kind: datasets.Categorical}
	ex := datasets.Example{T: 150, X: make([]float64, 150*(out+1)), Y: make([]float64, 150)}
	for i := range ex.X {
		ex.X[i] = rng.NormFloat64()
	}
	for i := range ex.Y {
		ex.Y[i] = float64(rng.IntN(out))
	}
	for _, c := range []modelCase{{"lstm", 1}, {testCell, 2}} {
		for _, cfg := range []layers.ProblemConfig{{}, {DType: graph.Float32}} {
			t.Run(fmt.Sprintf("%s-%d/%s", c.cell, c.layers, cfg.DType), func(t *testing.T) {
				pr, err := layers.NewPredictor(newTestModel(t, c, task, hidden, 1).Seq, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if pr.Executor() == layers.ExecGraph {
					t.Fatal("the model runs on the graphs")
				}
				dst := make([]float64, ex.T*out)
				n := testing.AllocsPerRun(3, func() {
					if _, err := pr.Predict(ex, dst); err != nil {
						t.Fatal(err)
					}
					if _, err := pr.LogProb(ex); err != nil {
						t.Fatal(err)
					}
				})
				if n != 0 {
					t.Errorf("%v allocations per Predict and LogProb of %d steps, want 0", n, ex.T)
				}
			})
		}
	}
}

// symbolTask is a next-symbol task over v symbols (In = v+1, the begin
// marker last).
func symbolTask(t *testing.T, v int, rng *rand.Rand) *datasets.Task {
	t.Helper()
	s := datasets.Symbols{Alphabet: []string{"a", "b", "c", "d", "e"}[:v]}
	for range 6 {
		seq := make([]int, 3+rng.IntN(5))
		for i := range seq {
			seq[i] = rng.IntN(v)
		}
		s.Seqs = append(s.Seqs, seq)
	}
	exs, err := datasets.SymbolExamples(s)
	if err != nil {
		t.Fatal(err)
	}
	return &datasets.Task{Name: "symbols", In: v + 1, Out: v, Kind: datasets.Categorical, Train: exs}
}

// TestSample checks sampling: the same seed gives the same samples, the
// prefix starts every sample, a stop symbol ends one, no sample passes
// the maximum length, and the first symbol's frequencies over many
// samples match Predict's probabilities at step 0.
func TestSample(t *testing.T) {
	const v, hidden = 4, 5
	rng := rand.New(rand.NewPCG(4, 4))
	task := symbolTask(t, v, rng)
	for _, c := range modelCases() {
		t.Run(fmt.Sprintf("%s-%d", c.cell, c.layers), func(t *testing.T) {
			pr, err := newTestModel(t, c, task, hidden, 2).NewPredictor()
			if err != nil {
				t.Fatal(err)
			}
			draw := func(seed uint64, cfg layers.SampleConfig) []int {
				s, err := pr.Sample(rand.New(rand.NewPCG(seed, 1)), cfg)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			cfg := layers.SampleConfig{Temperature: 1, MaxLen: 12}
			a, b := draw(3, cfg), draw(3, cfg)
			if !slices.Equal(a, b) || len(a) != cfg.MaxLen {
				t.Errorf("seed 3: %v then %v, want equal samples of %d symbols", a, b, cfg.MaxLen)
			}
			pre := layers.SampleConfig{Temperature: 0.7, MaxLen: 9, Prefix: []int{3, 0, 2}, Stop: []int{1}}
			for seed := range uint64(20) {
				s := draw(seed, pre)
				if len(s) > pre.MaxLen || !slices.Equal(s[:3], pre.Prefix) {
					t.Fatalf("sample %v: longer than %d or without the prefix %v", s, pre.MaxLen, pre.Prefix)
				}
				if i := slices.Index(s[3:], 1); i >= 0 && i+4 != len(s) {
					t.Fatalf("sample %v goes on after the stop symbol 1", s)
				}
			}
			checkFirstSymbol(t, pr, v)
		})
	}
}

// checkFirstSymbol compares the frequencies of the first symbol of n
// samples with the model's probabilities at step 0, within 5 standard
// deviations.
func checkFirstSymbol(t *testing.T, pr *layers.Predictor, v int) {
	t.Helper()
	const n = 4000
	bos := datasets.Example{T: 1, X: make([]float64, v+1)}
	bos.X[v] = 1
	p, err := pr.Predict(bos, nil)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]float64, v)
	rng := rand.New(rand.NewPCG(7, 7))
	for range n {
		s, err := pr.Sample(rng, layers.SampleConfig{Temperature: 1, MaxLen: 1})
		if err != nil {
			t.Fatal(err)
		}
		counts[s[0]]++
	}
	for j, q := range p {
		if sd := math.Sqrt(q * (1 - q) / n); math.Abs(counts[j]/n-q) > 5*sd+1e-9 {
			t.Errorf("symbol %d: frequency %.4f, probability %.4f", j, counts[j]/n, q)
		}
	}
}

func TestSampleErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	task := symbolTask(t, 3, rng)
	pr, err := newTestModel(t, modelCase{"rnn", 1}, task, 3, 1).NewPredictor()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  layers.SampleConfig
		want string
	}{
		{layers.SampleConfig{MaxLen: 5}, "temperature"},
		{layers.SampleConfig{Temperature: -1, MaxLen: 5}, "temperature"},
		{layers.SampleConfig{Temperature: math.NaN(), MaxLen: 5}, "temperature"},
		{layers.SampleConfig{Temperature: math.Inf(1), MaxLen: 5}, "temperature"},
		{layers.SampleConfig{Temperature: 1}, "maximum sample length"},
		{layers.SampleConfig{Temperature: 1, MaxLen: 2, Prefix: []int{0, 1, 2}}, "prefix"},
		{layers.SampleConfig{Temperature: 1, MaxLen: 2, Prefix: []int{3}}, "out of range"},
		{layers.SampleConfig{Temperature: 1, MaxLen: 2, Stop: []int{-1}}, "out of range"},
	} {
		if _, err := pr.Sample(rng, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.cfg, err, c.want)
		}
	}
	real := fusedTask(datasets.Real, 3, 2, rng)
	pr, err = newTestModel(t, modelCase{"rnn", 1}, real, 3, 1).NewPredictor()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.Sample(rng, layers.SampleConfig{Temperature: 1, MaxLen: 3}); err == nil || !strings.Contains(err.Error(), "next-symbol") {
		t.Errorf("sampling a real-valued model: %v", err)
	}
	if _, err := pr.LogProb(datasets.Example{T: 2, X: make([]float64, 5)}); err == nil {
		t.Error("LogProb of an example with 5 inputs for 2 steps of 3: no error")
	}
}
