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
