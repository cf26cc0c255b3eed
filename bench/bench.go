package experiments

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/datasets"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/optim"
)

// BenchConfig sets the sizes of rtn bench. The zero value is usable; each
// field's comment gives its default.
type BenchConfig struct {
	// Batch is the minibatch size. Default 32.
	Batch int
	// Hidden is the number of hidden units. Default 100.
	Hidden int
	// In is the input and output width. Default 88 (piano rolls).
	In int
	// Steps is the sequence length. Default 100.
	Steps int
	// Checkpoint, when positive, stores every Checkpoint-th state only and
	// recomputes the rest in the backward pass (for very long sequences).
	Checkpoint int
	// Reps is how many timed repetitions are averaged. Default 5.
	Reps int
}

func (c *BenchConfig) defaults() error {
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{{"batch", &c.Batch, 32}, {"hidden", &c.Hidden, 100}, {"in", &c.In, 88}, {"steps", &c.Steps, 100}, {"reps", &c.Reps, 5}} {
		if *f.v < 0 {
			return errors.Errorf("%s must be positive, got %d", f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	return nil
}

// BenchResult is one benchmark's timing.
type BenchResult struct {
	Name string `json:"name"`
	// Setup is the one-off cost (graph construction and compilation), in
	// seconds.
	Setup float64 `json:"setup_seconds"`
	// PerStep is the mean time of one training step (forward, backward
	// through time, optimizer update), in milliseconds.
	PerStep float64 `json:"ms_per_step"`
	// Note describes the sizes.
	Note string `json:"note"`
}

// Benchmark is one entry of rtn bench.
type Benchmark struct {
	Name string
	Run  func(cfg BenchConfig) (BenchResult, error)
}

var benchmarks []Benchmark

// RegisterBenchmark adds an entry to rtn bench; it panics on a duplicate
// name (a programming error).
func RegisterBenchmark(b Benchmark) {
	for _, o := range benchmarks {
		if o.Name == b.Name {
			panic("experiments: duplicate benchmark " + b.Name)
		}
	}
	benchmarks = append(benchmarks, b)
}

// Benchmarks lists the registered benchmarks' names in order.
func Benchmarks() []string {
	var n []string
	for _, b := range benchmarks {
		n = append(n, b.Name)
	}
	return n
}

// RunBenchmarks runs the named benchmarks (all when only is empty).
func RunBenchmarks(cfg BenchConfig, only []string) ([]BenchResult, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	var out []BenchResult
	for _, b := range benchmarks {
		if len(only) > 0 && !containsString(only, b.Name) {
			continue
		}
		r, err := b.Run(cfg)
		if err != nil {
			return nil, errors.Wrapf(err, "benchmark %s", b.Name)
		}
		out = append(out, r)
	}
	for _, n := range only {
		if !containsString(Benchmarks(), n) {
			return nil, errors.Errorf("unknown benchmark %q (known: %s)", n, strings.Join(Benchmarks(), ", "))
		}
	}
	return out, nil
}

// WriteBenchTable prints results as an aligned table.
func WriteBenchTable(w io.Writer, rs []BenchResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tsetup (s)\tms/step\tsizes")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%.2f\t%.1f\t%s\n", r.Name, r.Setup, r.PerStep, r.Note)
	}
	return tw.Flush()
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func init() {
	for _, model := range []string{"rnn", "lstm", "gru"} {
		RegisterBenchmark(Benchmark{Name: model + "-step", Run: func(cfg BenchConfig) (BenchResult, error) {
			return benchSequenceStep(model, cfg)
		}})
	}
}

// benchSequenceStep times one Adam training step of an Elman RNN, LSTM or
// GRU on random binary frames (the piano-roll shape).
func benchSequenceStep(model string, cfg BenchConfig) (BenchResult, error) {
	t0 := time.Now()
	step, err := SequenceStep(model, cfg)
	if err != nil {
		return BenchResult{}, err
	}
	setup := time.Since(t0)
	if err := step(); err != nil { // warm-up: first-run allocations
		return BenchResult{}, err
	}
	t1 := time.Now()
	for i := 0; i < cfg.Reps; i++ {
		if err := step(); err != nil {
			return BenchResult{}, err
		}
	}
	per := time.Since(t1) / time.Duration(cfg.Reps)
	return BenchResult{
		Name: model + "-step", Setup: setup.Seconds(), PerStep: float64(per.Microseconds()) / 1000,
		Note: fmt.Sprintf("batch %d, in/out %d, hidden %d, %d steps%s", cfg.Batch, cfg.In, cfg.Hidden, cfg.Steps, checkpointNote(cfg.Checkpoint)),
	}, nil
}

// SequenceStep builds what rtn bench times for model (rnn, lstm or gru):
// a batch of cfg.Batch random binary sequences of cfg.Steps frames of
// cfg.In notes, the model with cfg.Hidden units compiled for it (full
// BPTT), and returns one training step (forward, backward through time,
// Adam update). BenchmarkTrainStep runs the same step.
func SequenceStep(model string, cfg BenchConfig) (func() error, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	task := &datasets.Task{Name: "bench", In: cfg.In, Out: cfg.In, Kind: datasets.Binary}
	for i := 0; i < cfg.Batch; i++ {
		e := datasets.Example{T: cfg.Steps, X: make([]float64, cfg.Steps*cfg.In), Y: make([]float64, cfg.Steps*cfg.In)}
		for j := range e.X {
			e.X[j] = float64(rng.IntN(2))
			e.Y[j] = float64(rng.IntN(2))
		}
		task.Train = append(task.Train, e)
	}
	seq, err := NewModel(model, "tanh", cfg.Hidden, task, rng)
	if err != nil {
		return nil, err
	}
	prob, err := layers.NewProblem(seq, task, layers.ProblemConfig{Checkpoint: cfg.Checkpoint})
	if err != nil {
		return nil, err
	}
	if err := prob.Compile(cfg.Batch); err != nil {
		return nil, err
	}
	opt, err := optim.New("adam", optim.Config{})
	if err != nil {
		return nil, err
	}
	idx := make([]int, cfg.Batch)
	for i := range idx {
		idx[i] = i
	}
	g := seq.Params.Like()
	return func() error {
		if _, err := prob.LossGrad(idx, g); err != nil {
			return err
		}
		return opt.Step(seq.Params, g)
	}, nil
}

func checkpointNote(k int) string {
	if k <= 0 {
		return ""
	}
	return fmt.Sprintf(", states kept every %d", k)
}
