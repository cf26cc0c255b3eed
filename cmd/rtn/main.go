// Command rtn trains, samples and benchmarks recurrent tensor models and
// reproduces the experiments of the papers rtn implements.
//
// Usage:
//
//	rtn <command> [flags]
//
// Commands: train, reproduce, version. Run "rtn <command> -h" for a
// command's flags. Results go to stdout (a table, or one JSON object with
// -json); progress and logs go to stderr. The exit status is 0 on success,
// 2 on a usage error and 1 on any other failure.
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
