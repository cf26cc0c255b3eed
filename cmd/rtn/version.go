package main

import (
	"fmt"
	"io"

	"github.com/rtnlab/rtn/graph"
)

// version is rtn's release version.
const version = "0.1.0"

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rtn %s\nBLAS %s\n", version, graph.BLASBackend())
	return nil
}
