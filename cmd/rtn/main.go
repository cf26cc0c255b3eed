package main

import "os"

func main() {
	restore := stopOnSignal(os.Stderr, os.Exit)
	code := report(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr)
	restore()
	os.Exit(code)
}
