package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rtnlab/rtn/graph"
)

// BenchmarkStep times the step `rtn bench` times (Setup's Step: forward,
// backward through time and Adam) at the default sizes (batch 32; rnn,
// lstm and gru with 88 binary inputs and outputs and 100 hidden units) and
// T = 50, 100 and 1000, in float64 and float32 (but for the u-MPS, float64
// only), so the two agree:
//
//	go test -run X -bench 'Step/^lstm-step$/^T=100$/^float64$' -benchmem ./bench
//	rtn bench -only lstm-step -steps 100
//	go test -run X -bench 'Step/^lstm-step$/^T=100$/^float32$' -benchmem ./bench
//	rtn bench -only lstm-step -steps 100 -dtype float32
//
// Compilation happens before the timer starts. cpu-ms/op is the
// process's CPU time per step (rtn bench's cpu_ms_per_step), steadier than
// ns/op on a shared machine.
func BenchmarkStep(b *testing.B) {
	for _, name := range Names() {
		for _, T := range []int{50, 100, 1000} {
			for _, dt := range graph.DTypes() {
				if dt != graph.Float64 && slices.Contains(Float64Only(), name) {
					continue
				}
				b.Run(fmt.Sprintf("%s/T=%d/%s", name, T, dt), func(b *testing.B) {
					p, err := Setup(name, Config{Steps: T, DType: dt})
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					if err := Warm(p.Step); err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					b.ResetTimer()
					c0 := cpuTime()
					for range b.N {
						if err := p.Step(); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(cpuTime()-c0)/1e6/float64(b.N), "cpu-ms/op")
				})
			}
		}
	}
}

// BenchmarkStepTape times the steps of the cells that have a kernel (rnn,
// lstm, gru, 2rnn) on the tape instead (rtn bench -executor tape), at
// T = 100 in float64, to profile the tape against the kernels:
//
//	go test -run X -bench 'StepTape/^2rnn-step$' -cpuprofile cpu.out ./bench
func BenchmarkStepTape(b *testing.B) {
	for _, name := range []string{"rnn-step", "lstm-step", "gru-step", "2rnn-step"} {
		b.Run(name, func(b *testing.B) {
			p, err := Setup(name, Config{Steps: 100, Executor: ExecTape})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			if err := Warm(p.Step); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime()
			for range b.N {
				if err := p.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-c0)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}

func TestRunSmall(t *testing.T) {
	cfg := Config{Batch: 2, Hidden: 3, In: 2, Reps: 1}
	rs, err := Run(cfg, nil, []int{3, 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2*len(Names()) {
		t.Fatalf("%d results for %d benchmarks at 2 lengths", len(rs), len(Names()))
	}
	for i, r := range rs {
		wantName, wantT := Names()[i/2], []int{3, 5}[i%2]
		if r.Name != wantName || r.Steps != wantT || r.Batch != 2 || r.Reps != 1 {
			t.Errorf("result %d: %s T=%d batch %d reps %d, want %s T=%d batch 2 reps 1", i, r.Name, r.Steps, r.Batch, r.Reps, wantName, wantT)
		}
		if !(r.PerStep > 0) || !(r.Setup >= 0) || r.Backend == "" || r.DType != "float64" || r.Model == "" {
			t.Errorf("result %+v", r)
		}
		if got := r.PerStep / float64(r.Steps); r.PerTimeStep != got {
			t.Errorf("%s: ms per time step %g, want %g", r.Name, r.PerTimeStep, got)
		}
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, rs); err != nil {
		t.Fatal(err)
	}
	for _, n := range Names() {
		if !strings.Contains(buf.String(), n+": batch 2") {
			t.Errorf("table lacks the sizes of %s:\n%s", n, buf.String())
		}
	}
}

// TestRunFloat32 runs every benchmark that has a float32 path in float32
// on small sizes: the u-MPS ones are left out, and refused by name.
func TestRunFloat32(t *testing.T) {
	cfg := Config{Batch: 2, Hidden: 3, In: 2, Reps: 1, DType: graph.Float32}
	rs, err := Run(cfg, nil, []int{3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(Names())-len(Float64Only()) {
		t.Fatalf("%d results, want %d", len(rs), len(Names())-len(Float64Only()))
	}
	for _, r := range rs {
		if r.DType != graph.Float32 || !strings.Contains(r.Note, "float32") || !(r.PerStep > 0) {
			t.Errorf("result %+v", r)
		}
	}
	if rep := NewReport(rs); rep.DType != graph.Float32 {
		t.Errorf("report dtype %q", rep.DType)
	}
	if _, err := Run(cfg, Float64Only()[:1], []int{3}); err == nil || !strings.Contains(err.Error(), "float64 only") {
		t.Errorf("u-MPS in float32: error %v", err)
	}
}

func TestRunRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		cfg   Config
		only  []string
		steps []int
		msg   string
	}{
		{"unknown", Config{}, []string{"nope"}, nil, `unknown benchmark "nope"`},
		{"negative reps", Config{Reps: -1}, nil, nil, "Reps must be >= 1"},
		{"negative checkpoint", Config{Checkpoint: -1}, nil, nil, "Checkpoint must be >= 0"},
		{"zero length", Config{}, []string{"rnn-step"}, []int{0}, "Steps must be >= 1, got 0"},
		{"unknown dtype", Config{DType: "float16"}, nil, nil, `unknown dtype "float16"`},
		{"float32 graphs", Config{DType: "float32", Executor: ExecGraph}, nil, nil, "runs float64 only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Run(c.cfg, c.only, c.steps)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %v, want one containing %q", err, c.msg)
			}
		})
	}
	if _, err := Setup("nope", Config{}); err == nil {
		t.Error("Setup accepted an unknown benchmark")
	}
}

func TestParseSteps(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"100", []int{100}, true},
		{"50,100,1000", []int{50, 100, 1000}, true},
		{" 50, 100 ", []int{50, 100}, true},
		{"0,-3", []int{0, -3}, true}, // ranges are checked by the caller
		{"", nil, false},
		{"50,", nil, false},
		{"50;100", nil, false},
		{"1e3", nil, false},
	} {
		got, err := ParseSteps(c.in)
		if (err == nil) != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("ParseSteps(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

// The JSON field names are a contract (bench/compare.sh and users' scripts
// read them).
func TestReportJSON(t *testing.T) {
	b, err := json.Marshal(NewReport([]Result{{Name: "lstm-step"}}))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"results", "backend", "dtype", "gomaxprocs"} {
		if _, ok := top[k]; !ok {
			t.Errorf("report lacks %q: %s", k, b)
		}
	}
	var rs []map[string]any
	if err := json.Unmarshal(top["results"], &rs); err != nil {
		t.Fatal(err)
	}
	want := []string{"name", "model", "steps", "batch", "hidden", "setup_seconds", "ms_per_step", "ms_per_time_step", "cpu_ms_per_step",
		"allocs_per_step", "bytes_per_step", "reps", "backend", "dtype", "note"}
	var got []string
	for k := range rs[0] {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("result fields %v, want %v", got, want)
	}
}

// The targets are the next inputs, held once.
func TestFramesShareMemory(t *testing.T) {
	k := 0.0
	xs, ys := frames(4, 2, 3, func(row []float64) {
		for i := range row {
			k++
			row[i] = k
		}
	})
	if len(xs) != 4 || len(ys) != 4 {
		t.Fatalf("%d inputs, %d targets, want 4", len(xs), len(ys))
	}
	for t0 := range 3 {
		if &ys[t0][0] != &xs[t0+1][0] || len(ys[t0]) != 6 || cap(ys[t0]) != 6 {
			t.Errorf("step %d: target is not the next input's memory", t0)
		}
	}
	if ys[3][5] != 30 || xs[0][0] != 1 {
		t.Errorf("frames %v %v", xs, ys)
	}
}

func TestMeasureRefusesZeroReps(t *testing.T) {
	if _, err := Measure(func() error { return nil }, 0); err == nil {
		t.Error("zero repetitions accepted")
	}
}

// The CPU clock advances with work (it is what a shared machine's ratios
// are read from).
func TestCPUTimeAdvances(t *testing.T) {
	if cpuTime() == 0 {
		t.Skip("no CPU clock on this platform")
	}
	c0, x := cpuTime(), 1.0
	for deadline := time.Now().Add(5 * time.Second); cpuTime() == c0 && time.Now().Before(deadline); {
		for i := range 100000 {
			x = x*1.0000001 + float64(i&1)
		}
	}
	if cpuTime() <= c0 {
		t.Errorf("CPU time did not advance in 5 s of work (%g)", x)
	}
}

// TestRunSizes runs two benchmarks at two batch and two hidden sizes: the
// one Config.Hidden sizes at each pair, the other once per batch size.
func TestRunSizes(t *testing.T) {
	rs, err := RunSizes(Config{In: 2, Reps: 1}, []string{"rnn-step", "mpscell-step"}, []int{3}, []int{3, 4}, []int{2, 5})
	if err != nil {
		t.Fatal(err)
	}
	type size struct {
		name          string
		batch, hidden int
	}
	var got []size
	for _, r := range rs {
		got = append(got, size{r.Name, r.Batch, r.Hidden})
	}
	want := []size{{"rnn-step", 2, 3}, {"mpscell-step", 2, 0}, {"rnn-step", 2, 4}, {"rnn-step", 5, 3}, {"mpscell-step", 5, 0}, {"rnn-step", 5, 4}}
	if !slices.Equal(got, want) {
		t.Errorf("ran %v, want %v", got, want)
	}
	if _, err := RunSizes(Config{Reps: 1}, []string{"rnn-step"}, []int{3}, []int{0}, nil); err == nil {
		t.Error("hidden size 0 accepted")
	}
}
