//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || plan9)

package outlock

import (
	"errors"
	"os"
	"syscall"
)

// running reports whether a process of this ID runs on this host.
func running(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return !errors.Is(err, os.ErrProcessDone) && !errors.Is(err, syscall.ESRCH)
}
