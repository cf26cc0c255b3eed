package main

import (
	"io"
)

// progressTo returns stderr when a progress bar is wanted: not -quiet and
// stderr a terminal.
func progressTo(stderr io.Writer, quiet bool) io.Writer {
	if quiet || !isTerminal(stderr) {
		return nil
	}
	return stderr
}
