package bench

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pkg/errors"

	"github.com/rtnlab/rtn/graph"
)

// Config sets the sizes of a benchmark. The zero value is usable; each
// field's comment gives its default.
type Config struct {
	// Batch is the minibatch size (sequences or strings). Default 32.
	Batch int
	// Hidden is the number of hidden units of rnn, lstm, gru, ugru,
	// cp2rnn (whose CP rank it is too), hotrnn, hotrnn3 and mirnn. Default
	// 100.
	Hidden int
	// In is the input and output width of the same models. Default 88
	// (piano rolls).
	In int
	// Steps is the sequence length T. Default 100.
	Steps int
	// Checkpoint, when positive, stores every Checkpoint-th state only and
	// recomputes the rest in the backward pass (for very long sequences).
	// The u-MPS benchmarks store no per-step state and ignore it.
	Checkpoint int
	// Executor is how the recurrent cells run: ExecFused (the default)
	// runs each cell's hand-written kernel (graph.FusedRecurrence) where it
	// has one and its recorded step compiled by the tape
	// (graph.CompileTape) otherwise; ExecTape runs every cell on the tape,
	// as a cell a user writes would run; ExecGraph runs them as gorgonia
	// graphs (graph.Recurrence).
	Executor string
	// DType is the float type of the recurrent models' steps:
	// graph.Float64 (the default) or graph.Float32 (states, caches,
	// activations and matrix products in float32, parameters, gradients
	// and Adam in float64; see layers.ProblemConfig.DType). The u-MPS
	// benchmarks and the graph executor run float64 only.
	DType string
	// Reps is how many timed repetitions are averaged. Default 5.
	Reps int
}

// defaults fills in the defaults of c and checks it (Validate).
func (c *Config) defaults() error {
	*c = c.WithDefaults()
	return c.Validate()
}

// Executors of Config.Executor.
const (
	ExecFused = "fused"
	ExecTape  = "tape"
	ExecGraph = "graph"
)

// Executors lists the values of Config.Executor.
func Executors() []string { return []string{ExecFused, ExecTape, ExecGraph} }

// Result is one benchmark's timing at one sequence length.
type Result struct {
	// Name is the benchmark (rnn-step, lstm-step, ...).
	Name string `json:"name"`
	// Model is the model it trains (rnn, lstm, gru, ugru, 2rnn, cp2rnn,
	// hotrnn, hotrnn3, mirnn, mpscell, umps-d20, umps-d50, wfa-n50,
	// wfa-n150).
	Model string `json:"model"`
	// Steps is the sequence length T and Batch the batch size.
	Steps int `json:"steps"`
	Batch int `json:"batch"`
	// Hidden is Config.Hidden, for the benchmarks it sizes (0 for the
	// others: mpscell, the u-MPS and WFA steps).
	Hidden int `json:"hidden"`
	// Setup is the one-off cost (model construction and compilation), in
	// seconds.
	Setup float64 `json:"setup_seconds"`
	// PerStep is the mean time of one training step (forward, backward
	// through time, optimizer update), in milliseconds.
	PerStep float64 `json:"ms_per_step"`
	// PerTimeStep is PerStep / Steps, in milliseconds.
	PerTimeStep float64 `json:"ms_per_time_step"`
	// CPUPerStep is the process's CPU time (user and system) per training
	// step, in milliseconds: on a machine shared with other work it is
	// steadier than the wall-clock PerStep (0 where the platform does not
	// report it).
	CPUPerStep float64 `json:"cpu_ms_per_step"`
	// Allocs and Bytes are the heap allocations and allocated bytes of one
	// training step (as testing's -benchmem reports them).
	Allocs int64 `json:"allocs_per_step"`
	Bytes  int64 `json:"bytes_per_step"`
	// Reps is the number of timed steps averaged.
	Reps int `json:"reps"`
	// Backend is the BLAS the dense kernels ran on and DType the element
	// type.
	Backend string `json:"backend"`
	DType   string `json:"dtype"`
	// Note describes the sizes.
	Note string `json:"note"`
}

// Report is what `rtn bench -json` prints; DType lists the results'
// dtypes, comma-separated.
type Report struct {
	Results    []Result `json:"results"`
	Backend    string   `json:"backend"`
	DType      string   `json:"dtype"`
	GOMAXPROCS int      `json:"gomaxprocs"`
}

// NewReport wraps results with the backend, their dtypes and the
// GOMAXPROCS of this process.
func NewReport(rs []Result) Report {
	var dt []string
	for _, r := range rs {
		if !slices.Contains(dt, r.DType) {
			dt = append(dt, r.DType)
		}
	}
	return Report{Results: rs, Backend: graph.BLASBackend(), DType: strings.Join(dt, ","), GOMAXPROCS: runtime.GOMAXPROCS(0)}
}

// Prepared is a compiled training step, ready to time.
type Prepared struct {
	// Step runs one training step.
	Step func() error
	// Setup is the time taken to build and compile the model (not to
	// generate its data).
	Setup time.Duration
	// Model names the model and Note its sizes.
	Model, Note string
	close       func() error
}

// Close releases the step's compiled machines.
func (p *Prepared) Close() error {
	if p.close == nil {
		return nil
	}
	return p.close()
}

// benchmark is one entry of rtn bench.
type benchmark struct {
	name   string
	setup  func(cfg Config) (*Prepared, error)
	f64    bool // runs float64 only
	hidden bool // sized by Config.Hidden
}

// benchmarks lists rtn bench's benchmarks in the order Run runs them:
// one per sequence model (seqModels), then the u-MPS and WFA steps.
var benchmarks = func() []benchmark {
	var bs []benchmark
	for _, m := range seqModels {
		bs = append(bs, benchmark{m.name + "-step", func(c Config) (*Prepared, error) { return sequenceStep(m, c) }, false, m.name != "mpscell"})
	}
	for _, d := range []int{20, 50} {
		bs = append(bs, benchmark{fmt.Sprintf("umps-d%d-step", d), func(c Config) (*Prepared, error) { return umpsStep(d, c) }, true, false})
	}
	for _, n := range []int{50, 150} {
		bs = append(bs, benchmark{fmt.Sprintf("wfa-n%d-step", n), func(c Config) (*Prepared, error) { return wfaStep(n, c) }, true, false})
	}
	return bs
}()

// Float64Only lists the benchmarks that run in float64 only.
func Float64Only() []string {
	var n []string
	for _, b := range benchmarks {
		if b.f64 {
			n = append(n, b.name)
		}
	}
	return n
}

// Names lists the benchmarks in the order Run runs them.
func Names() []string {
	var n []string
	for _, b := range benchmarks {
		n = append(n, b.name)
	}
	return n
}

// Setup builds the named benchmark's data and model and compiles its
// training step for cfg (defaults filled in), in cfg.DType. `rtn bench`
// (through Run) and BenchmarkStep time the Step it returns.
func Setup(name string, cfg Config) (*Prepared, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	for _, b := range benchmarks {
		if b.name == name {
			if b.f64 && cfg.DType != graph.Float64 {
				return nil, errors.Errorf("bench: %s runs float64 only, not dtype %s", name, cfg.DType)
			}
			return b.setup(cfg)
		}
	}
	return nil, errors.Errorf("bench: unknown benchmark %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Run runs the named benchmarks (all when only is empty, but for those
// that do not run in cfg.DType) at each sequence length of steps
// (cfg.Steps when steps is empty), benchmark by benchmark, and returns one
// Result per benchmark and length.
func Run(cfg Config, only []string, steps []int) ([]Result, error) {
	return RunSizes(cfg, only, steps, nil, nil)
}

// RunSizes is Run at each batch size of batches and, within it, each
// hidden size of hiddens (cfg's when a list is empty); a benchmark that
// Config.Hidden does not size runs once per batch size.
func RunSizes(cfg Config, only []string, steps, hiddens, batches []int) ([]Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if err := CheckSizes(cfg, only, steps, hiddens, batches); err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		steps = []int{cfg.Steps}
	}
	if len(hiddens) == 0 {
		hiddens = []int{cfg.Hidden}
	}
	if len(batches) == 0 {
		batches = []int{cfg.Batch}
	}
	var out []Result
	for _, batch := range batches {
		for i, hidden := range hiddens {
			for _, b := range benchmarks {
				if len(only) > 0 && !slices.Contains(only, b.name) || len(only) == 0 && b.f64 && cfg.DType != graph.Float64 || i > 0 && !b.hidden {
					continue
				}
				for _, t := range steps {
					c := cfg
					c.Steps, c.Hidden, c.Batch = t, hidden, batch
					r, err := runOne(b, c)
					if err != nil {
						return nil, errors.Wrapf(err, "benchmark %s, %d steps, batch %d, hidden %d", b.name, t, batch, hidden)
					}
					out = append(out, r)
				}
			}
		}
	}
	return out, nil
}

func runOne(b benchmark, cfg Config) (Result, error) {
	p, err := Setup(b.name, cfg)
	if err != nil {
		return Result{}, err
	}
	tm, err := Measure(p.Step, cfg.Reps)
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Result{}, err
	}
	ms := float64(tm.PerStep.Nanoseconds()) / 1e6
	return Result{
		Name: b.name, Model: p.Model, Steps: cfg.Steps, Batch: cfg.Batch, Hidden: hiddenOf(b, cfg),
		Setup: p.Setup.Seconds(), PerStep: ms, PerTimeStep: ms / float64(cfg.Steps),
		CPUPerStep: float64(tm.CPUPerStep.Nanoseconds()) / 1e6,
		Allocs:     tm.Allocs, Bytes: tm.Bytes, Reps: cfg.Reps,
		Backend: graph.BLASBackend(), DType: cfg.DType, Note: p.Note,
	}, nil
}

// hiddenOf is Result.Hidden: cfg.Hidden when it sizes b, else 0.
func hiddenOf(b benchmark, cfg Config) int {
	if b.hidden {
		return cfg.Hidden
	}
	return 0
}

// Timing is the mean cost of one run of a step.
type Timing struct {
	// PerStep is the wall-clock time and CPUPerStep the process's CPU time
	// (0 where the platform does not report it).
	PerStep, CPUPerStep time.Duration
	// Allocs and Bytes are the heap allocations and allocated bytes.
	Allocs, Bytes int64
}

// Warm runs step once (its first-run allocations) and collects garbage,
// so that timing starts from the same heap in Measure and BenchmarkStep.
func Warm(step func() error) error {
	if err := step(); err != nil {
		return err
	}
	runtime.GC()
	return nil
}

// Measure warms step (Warm), then times reps runs and returns the mean
// cost of one run, measured as testing.B does with ReportAllocs.
func Measure(step func() error, reps int) (Timing, error) {
	if reps < 1 {
		return Timing{}, errors.Errorf("bench: %d repetitions, want >= 1", reps)
	}
	if err := Warm(step); err != nil {
		return Timing{}, err
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0, t0 := cpuTime(), time.Now()
	for range reps {
		if err := step(); err != nil {
			return Timing{}, err
		}
	}
	el, cpu := time.Since(t0), cpuTime()-c0
	runtime.ReadMemStats(&m1)
	n := int64(reps)
	return Timing{
		PerStep: el / time.Duration(n), CPUPerStep: cpu / time.Duration(n),
		Allocs: int64(m1.Mallocs-m0.Mallocs) / n, Bytes: int64(m1.TotalAlloc-m0.TotalAlloc) / n,
	}, nil
}

// ParseSteps parses a comma-separated list of sequence lengths
// ("50,100,1000"); each must be an integer (range checks are the
// caller's, so that they can name the flag).
func ParseSteps(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil, errors.Errorf("%q is not an integer", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// WriteTable prints results as an aligned table.
func WriteTable(w io.Writer, rs []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "benchmark\tdtype\tbatch\thidden\tT\tsetup (s)\tms/step\tms/time step\tCPU ms/step\tallocs/step\tMB/step\t")
	for _, r := range rs {
		hidden := "-"
		if r.Hidden > 0 {
			hidden = strconv.Itoa(r.Hidden)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%.2f\t%.1f\t%.3f\t%.1f\t%d\t%.1f\t\n", r.Name, r.DType, r.Batch, hidden, r.Steps, r.Setup, r.PerStep, r.PerTimeStep, r.CPUPerStep, r.Allocs, float64(r.Bytes)/1e6)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, r := range rs {
		if k := r.Name + ": " + r.Note; !seen[k] {
			seen[k] = true
			if _, err := fmt.Fprintf(w, "%s: %s\n", r.Name, r.Note); err != nil {
				return err
			}
		}
	}
	return nil
}
