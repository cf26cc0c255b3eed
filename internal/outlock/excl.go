//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package outlock

import (
	"errors"
	"io/fs"
	"os"
)

// lockFile creates the lock file at path exclusively, or fails with
// errHeld when it exists; a lock file whose holder ran on this host and
// is no longer running is removed and created again.
func lockFile(path string) (*os.File, error) {
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		h, ok := readHolder(path)
		if !ok || h.Host != hostname() || running(h.PID) {
			return nil, errHeld
		}
		os.Remove(path)
	}
	return nil, errHeld
}
