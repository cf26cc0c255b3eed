package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(report(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// report prints a failure as one line on stderr and returns the exit
// status: 0 on success, 2 on a usage error, 1 otherwise.
func report(err error, stderr io.Writer) int {
	code := exitCode(err)
	if err != nil && code != 0 {
		fmt.Fprintln(stderr, "rtn:", err)
	}
	return code
}
