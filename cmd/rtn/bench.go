package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rtnlab/rtn/bench"
	"github.com/rtnlab/rtn/graph"
	"github.com/rtnlab/rtn/layers"
	"github.com/rtnlab/rtn/runs"
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
	d := bench.Config{}.WithDefaults()
	cfg := d
	steps, hiddens, batches := intsFlag{50, 100, 1000}, intsFlag{d.Hidden}, intsFlag{d.Batch}
	only := fs.String("only", "", "comma-separated benchmarks (known: "+strings.Join(bench.Names(), ", ")+")")
	fs.Var(&batches, "batch", "comma-separated minibatch sizes (sequences or strings)")
	fs.Var(&hiddens, "hidden", "comma-separated hidden sizes: the units of rnn, lstm, gru, ugru, cp2rnn (CP rank = hidden), hotrnn, hotrnn3 and mirnn, twice the states of 2rnn (the others run once per batch size)")
	fs.IntVar(&cfg.In, "in", d.In, "input and output width of rnn, lstm, gru, ugru, cp2rnn, hotrnn, hotrnn3 and mirnn")
	fs.Var(&steps, "steps", "comma-separated sequence lengths T")
	fs.IntVar(&cfg.Reps, "reps", d.Reps, "timed repetitions")
	fs.IntVar(&cfg.Checkpoint, "checkpoint", 0, "keep every k-th state and recompute the rest in the backward pass (0: keep all)")
	fs.StringVar(&cfg.Executor, "executor", d.Executor, "how the recurrent cells run: "+strings.Join(bench.Executors(), ", ")+" (fused: each cell's kernel where it has one, the tape otherwise; tape: every cell's recorded step compiled, as a cell without a kernel runs; graph: gorgonia graphs)")
	generic := fs.Bool("generic", false, "same as -executor tape: run every cell without its kernel")
	fs.StringVar(&cfg.DType, "dtype", d.DType, "float type of the recurrent steps: float64 or float32 (states, activations and products in float32; parameters, gradients and Adam in float64; not -executor graph; float64 only: "+strings.Join(bench.Float64Only(), ", ")+")")
	asJSON := fs.Bool("json", false, "print the results as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *generic {
		if flagSet(fs, "executor") && cfg.Executor != bench.ExecTape {
			return usagef("-generic is -executor tape, not -executor %s", cfg.Executor)
		}
		cfg.Executor = bench.ExecTape
	}
	var names []string
	if *only != "" {
		for _, n := range strings.Split(*only, ",") {
			names = append(names, strings.TrimSpace(n))
		}
	}
	if err := bench.CheckSizes(cfg, names, steps, hiddens, batches); err != nil {
		var fe *layers.FieldError
		if errors.As(err, &fe) {
			err = &runs.FieldError{Field: fe.Field, Err: fe}
		}
		return specError(err)
	}
	what, bytes := bench.MemoryBytes(cfg, steps, hiddens, batches)
	if err := specError(runs.CheckMemory(runs.MemoryEstimate{What: what, Bytes: bytes})); err != nil {
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
