//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package outlock

import (
	"errors"
	"os"
	"syscall"
)

// lockFile opens (creating) and flocks the lock file at path, or fails
// with errHeld when another open file holds it.
func lockFile(path string) (*os.File, error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EINTR) {
			f.Close()
			continue
		}
		if err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, errHeld
			}
			return nil, err
		}
		// The holder before may have removed the file (Release) between
		// the open and the flock: this lock is then on a file that no
		// other run opens, so take the one at path instead.
		if sameFile(f, path) {
			return f, nil
		}
		f.Close()
	}
}

// sameFile reports whether the open file f is the file at path.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}
