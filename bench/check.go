package bench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
)

// WithDefaults returns the config with its unset fields at the defaults
// their comments give.
func (c Config) WithDefaults() Config {
	for _, f := range []struct {
		v   *int
		def int
	}{{&c.Batch, 32}, {&c.Hidden, 100}, {&c.In, 88}, {&c.Steps, 100}, {&c.Reps, 5}} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if c.Executor == "" {
		c.Executor = ExecFused
	}
	if c.DType == "" {
		c.DType = graph.Float64
	}
	return c
}

// Validate checks a config that WithDefaults has filled: a fault is a
// *layers.FieldError naming the field by its Go name.
func (c Config) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"Batch", c.Batch}, {"Hidden", c.Hidden}, {"In", c.In}, {"Steps", c.Steps}, {"Reps", c.Reps}} {
		if f.v < 1 {
			return fieldErr(f.name, " must be >= 1, got %d", f.v)
		}
	}
	switch {
	case c.Checkpoint < 0:
		return fieldErr("Checkpoint", " must be >= 0 (0: keep every state), got %d", c.Checkpoint)
	case !slices.Contains(Executors(), c.Executor):
		return fieldErr("Executor", ": unknown executor %q (known: %s)", c.Executor, strings.Join(Executors(), ", "))
	case graph.CheckDType(c.DType) != nil:
		return fieldErr("DType", ": %v", graph.CheckDType(c.DType))
	case c.DType == graph.Float32 && c.Executor == ExecGraph:
		return fieldErr("Executor", " %s runs float64 only, not dtype %s", ExecGraph, graph.Float32)
	}
	return nil
}

// CheckSizes checks the arguments of RunSizes: the config, as
// WithDefaults fills it (a 0 left in a size is refused), the benchmarks named in only (each known, and run in the
// config's DType) and every size of the lists (>= 1). A fault is a
// *layers.FieldError: Only, Steps, Hidden and Batch name the lists.
func CheckSizes(cfg Config, only []string, steps, hiddens, batches []int) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	for _, n := range only {
		if !slices.Contains(Names(), n) {
			return fieldErr("Only", ": unknown benchmark %q (known: %s)", n, strings.Join(Names(), ", "))
		}
		if cfg.DType == graph.Float32 && slices.Contains(Float64Only(), n) {
			return fieldErr("Only", ": %s runs float64 only, not dtype %s", n, graph.Float32)
		}
	}
	for _, l := range []struct {
		name string
		v    []int
	}{{"Steps", steps}, {"Hidden", hiddens}, {"Batch", batches}} {
		for _, v := range l.v {
			if v < 1 {
				return fieldErr(l.name, " must be >= 1, got %d", v)
			}
		}
	}
	return nil
}

// MemoryBytes estimates RunSizes at its largest sizes for its largest
// model, the LSTM: the next-frame data (T+1 frames of batch x in), the
// stored states (h and c of every step, or of every k-th step and one
// segment of k with Checkpoint k), and the weights with their gradients
// and Adam moments, twice over: the step's garbage lets the Go heap grow
// to about twice its live size (GOGC 100; a peak of 1.6 GB was measured
// at T = 10,000 where the count above is 0.74 GB). what names the sizes,
// fields written as {Name}.
func MemoryBytes(cfg Config, steps, hiddens, batches []int) (what string, bytes float64) {
	cfg = cfg.WithDefaults()
	largest := func(l []int, def int) int {
		if len(l) == 0 {
			return def
		}
		return slices.Max(l)
	}
	bt, t, h := largest(batches, cfg.Batch), largest(steps, cfg.Steps), largest(hiddens, cfg.Hidden)
	b, tf, in, hf := float64(bt), float64(t), float64(cfg.In), float64(h)
	k := float64(max(cfg.Checkpoint, 1))
	states := b * 2 * hf * (tf/k + k + 1)
	weights := 4*hf*(in+hf+1) + hf*in
	return fmt.Sprintf("{Batch} %d {Steps} %d {In} %d {Hidden} %d", bt, t, cfg.In, h), 2 * 8 * (b*(tf+1)*in + states + 4*weights)
}

// fieldErr is a *layers.FieldError of the field name: its message is
// the name followed by format.
func fieldErr(name, format string, args ...any) error {
	return &layers.FieldError{Field: name, Msg: name + fmt.Sprintf(format, args...)}
}
