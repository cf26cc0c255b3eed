package main

import (
	"fmt"
	"io"

	"github.com/rtnlab/rtn/experiments"
	"github.com/rtnlab/rtn/graph"
)

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rtn %s\nBLAS %s\n", experiments.Version, graph.BLASBackend())
	return nil
}
