package main

import (
	"errors"

	"github.com/rtnlab/rtn/runs"
)

// The output checks of the commands that do not pass their outputs
// through a runs spec: each is runs' check of the same name, the output
// named by its flag.

// flagPathError turns a *runs.PathError whose fields are flags into the
// command's error: a conflict with other flags is a usage error.
func flagPathError(err error) error {
	var pe *runs.PathError
	if !errors.As(err, &pe) {
		return err
	}
	msg := pe.Named(func(f string) string { return f })
	if pe.Usage {
		return usagef("%s", msg)
	}
	return errors.New(msg)
}

// checkOutDir is runs.CheckOutDir of the output of flag.
func checkOutDir(flag, dir string) error { return flagPathError(runs.CheckOutDir(flag, dir)) }

// checkOutPath is runs.CheckOutPath of the output of flag.
func checkOutPath(flag, path string) error { return flagPathError(runs.CheckOutPath(flag, path)) }

// checkStdoutOrFile is runs.CheckStdoutOrFile of the output of flag.
func checkStdoutOrFile(flag, out string, inputs ...string) error {
	return flagPathError(runs.CheckStdoutOrFile(flag, out, inputs...))
}

// checkDirOut is runs.CheckDirOut of the output of flag.
func checkDirOut(flag, dir string) error { return flagPathError(runs.CheckDirOut(flag, dir)) }
