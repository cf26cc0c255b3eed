package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rtnlab/rtn/experiments"
	"github.com/rtnlab/rtn/graph"
)

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench")
	var cfg experiments.BenchConfig
	only := fs.String("only", "", "comma-separated benchmarks (known: "+strings.Join(experiments.Benchmarks(), ", ")+")")
	fs.IntVar(&cfg.Batch, "batch", 32, "minibatch size")
	fs.IntVar(&cfg.Hidden, "hidden", 100, "hidden units")
	fs.IntVar(&cfg.In, "in", 88, "input and output width")
	fs.IntVar(&cfg.Steps, "steps", 100, "sequence length")
	fs.IntVar(&cfg.Reps, "reps", 5, "timed repetitions")
	asJSON := fs.Bool("json", false, "print the results as one JSON object")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"batch", cfg.Batch}, {"hidden", cfg.Hidden}, {"in", cfg.In}, {"steps", cfg.Steps}, {"reps", cfg.Reps}} {
		if f.v < 1 {
			return usagef("-%s must be >= 1, got %d", f.name, f.v)
		}
	}
	var names []string
	if *only != "" {
		for _, n := range strings.Split(*only, ",") {
			n = strings.TrimSpace(n)
			if !contains(experiments.Benchmarks(), n) {
				return usagef("-only: unknown benchmark %q (known: %s)", n, strings.Join(experiments.Benchmarks(), ", "))
			}
			names = append(names, n)
		}
	}
	if err := needMemory(benchBytes(cfg)); err != nil {
		return err
	}
	rs, err := experiments.RunBenchmarks(cfg, names)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"results": rs, "backend": graph.BLASBackend(), "dtype": "float64"})
	}
	if err := experiments.WriteBenchTable(stdout, rs); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "BLAS %s, float64\n", graph.BLASBackend())
	return err
}
