package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rtnlab/rtn/bench"
	"github.com/rtnlab/rtn/graph"
)

// intsFlag is a comma-separated list of integers (-steps, -hidden, -batch).
type intsFlag []int

func (s *intsFlag) String() string {
	var f []string
	for _, v := range *s {
		f = append(f, strconv.Itoa(v))
	}
	return strings.Join(f, ",")
}

func (s *intsFlag) Set(v string) error {
	l, err := bench.ParseSteps(v)
	if err != nil {
		return err
	}
	*s = l
	return nil
}

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench")
	var cfg bench.Config
	steps, hiddens, batches := intsFlag{50, 100, 1000}, intsFlag{100}, intsFlag{32}
	only := fs.String("only", "", "comma-separated benchmarks (known: "+strings.Join(bench.Names(), ", ")+")")
	fs.Var(&batches, "batch", "comma-separated minibatch sizes (sequences or strings)")
	fs.Var(&hiddens, "hidden", "comma-separated hidden sizes: the units of rnn, lstm, gru, ugru, cp2rnn (CP rank = hidden), hotrnn, hotrnn3 and mirnn, twice the states of 2rnn (the others run once per batch size)")
	fs.IntVar(&cfg.In, "in", 88, "input and output width of rnn, lstm, gru, ugru, cp2rnn, hotrnn, hotrnn3 and mirnn")
	fs.Var(&steps, "steps", "comma-separated sequence lengths T")
	fs.IntVar(&cfg.Reps, "reps", 5, "timed repetitions")
	fs.IntVar(&cfg.Checkpoint, "checkpoint", 0, "keep every k-th state and recompute the rest in the backward pass (0: keep all)")
	fs.StringVar(&cfg.Executor, "executor", bench.ExecFused, "how the recurrent cells run: "+strings.Join(bench.Executors(), ", ")+" (fused: each cell's kernel where it has one, the tape otherwise; tape: every cell's recorded step compiled, as a cell without a kernel runs; graph: gorgonia graphs)")
	fs.BoolVar(&cfg.Generic, "generic", false, "run every cell without its kernel (-executor tape)")
	fs.StringVar(&cfg.DType, "dtype", graph.Float64, "float type of the recurrent steps: float64 or float32 (states, activations and products in float32; parameters, gradients and Adam in float64; not -executor graph; float64 only: "+strings.Join(bench.Float64Only(), ", ")+")")
	asJSON := fs.Bool("json", false, "print the results as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"in", cfg.In}, {"reps", cfg.Reps}} {
		if f.v < 1 {
			return usagef("-%s must be >= 1, got %d", f.name, f.v)
		}
	}
	for _, l := range []struct {
		name string
		v    []int
	}{{"steps", steps}, {"hidden", hiddens}, {"batch", batches}} {
		for _, v := range l.v {
			if v < 1 {
				return usagef("-%s must be >= 1, got %d", l.name, v)
			}
		}
	}
	if cfg.Checkpoint < 0 {
		return usagef("-checkpoint must be >= 0, got %d", cfg.Checkpoint)
	}
	if !contains(bench.Executors(), cfg.Executor) {
		return usagef("-executor: unknown executor %q (known: %s)", cfg.Executor, strings.Join(bench.Executors(), ", "))
	}
	if err := graph.CheckDType(cfg.DType); err != nil {
		return usagef("-dtype: %v", err)
	}
	if cfg.DType == graph.Float32 && cfg.Executor == bench.ExecGraph {
		return usagef("-dtype float32: -executor graph runs float64 only")
	}
	if cfg.Generic {
		cfg.Executor = bench.ExecTape
	}
	var names []string
	if *only != "" {
		for _, n := range strings.Split(*only, ",") {
			n = strings.TrimSpace(n)
			if !contains(bench.Names(), n) {
				return usagef("-only: unknown benchmark %q (known: %s)", n, strings.Join(bench.Names(), ", "))
			}
			if cfg.DType == graph.Float32 && contains(bench.Float64Only(), n) {
				return usagef("-only: %s runs float64 only, not -dtype float32", n)
			}
			names = append(names, n)
		}
	}
	largest := cfg
	largest.Steps, largest.Hidden, largest.Batch = slices.Max(steps), slices.Max(hiddens), slices.Max(batches)
	if err := needMemory(benchBytes(largest)); err != nil {
		return err
	}
	rs, err := bench.RunSizes(cfg, names, steps, hiddens, batches)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(bench.NewReport(rs))
	}
	if err := bench.WriteTable(stdout, rs); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "BLAS %s, %s\n", graph.BLASBackend(), cfg.DType)
	return err
}
