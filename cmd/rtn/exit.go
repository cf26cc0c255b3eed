package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"unicode/utf8"
)

// The exit-code rule of every command: 0 on success (and on -h), 2 on a
// usage error (a bad flag value, an unknown name, a malformed regex, a
// symbol outside the alphabet, a size out of range), 130 after SIGINT or
// SIGTERM, 1 on any other failure. Every failure is reported as one line
// of at most maxMessage characters on stderr.

// exitInterrupted is the status after SIGINT or SIGTERM (128 + SIGINT).
const exitInterrupted = 130

// maxMessage bounds the length of the one-line error message.
const maxMessage = 200

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// flagError turns err, caused by the value of flag name, into a usage
// error that names the flag (nil stays nil).
func flagError(name string, err error) error {
	if err == nil {
		return nil
	}
	return usagef("%s: %v", name, err)
}

// exitCode maps an error from run to the process exit status.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return 2
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	return 1
}

// oneLine folds msg onto one line (newlines and tabs become spaces, runs
// of spaces one) and shortens it to maxMessage characters, ending in
// "..." when cut; when the message ends in a short cause (its last part
// after ": ", such as "no space left on device"), the cut is made before
// the cause, marked " ... ", so that the cause stays.
func oneLine(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if utf8.RuneCountInString(msg) <= maxMessage {
		return msg
	}
	r := []rune(msg)
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		const mark = " ... "
		if cause := []rune(msg[i:]); len(cause) <= maxCause {
			head := r[:maxMessage-len(mark)-len(cause)]
			return string(head) + mark + string(cause[2:])
		}
	}
	return string(r[:maxMessage-3]) + "..."
}

// maxCause is the longest cause, after its ": ", that oneLine keeps whole
// at the end of a cut message.
const maxCause = 80

// report prints a failure as one line on stderr and returns the exit
// status (see exitCode).
func report(err error, stderr io.Writer) int {
	code := exitCode(err)
	if err != nil && code != 0 {
		fmt.Fprintln(stderr, oneLine("rtn: "+err.Error()))
	}
	return code
}

// stopOnSignal makes SIGINT and SIGTERM end the process with status 130
// and one line on stderr. Checkpoints, models and results are written
// atomically (a temporary file renamed into place), so what is on disk is
// the last complete version: the last checkpoint stays, and -resume
// continues from it. It returns a function that restores the default
// behaviour.
func stopOnSignal(stderr io.Writer, exit func(int)) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			fmt.Fprintln(stderr, interruptMessage(sig))
			exit(exitInterrupted)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

func interruptMessage(sig os.Signal) string {
	return oneLine(fmt.Sprintf("rtn: interrupted (%v); files on disk are complete (a run that writes checkpoints continues from the last: -resume, or the same rtn compare command again)", sig))
}
