package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// checkOutDir fails, naming flag, unless dir is (or can be created as) a
// writable directory; it runs before any work so that a bad -out never
// costs a training run. It creates nothing: when dir does not exist, its
// nearest existing ancestor must be a writable directory.
func checkOutDir(flag, dir string) error {
	return checkDirFor(flag, dir, dir)
}

// checkDirFor is checkOutDir of dir with messages naming the output
// shown (dir itself, or a file in it).
func checkDirFor(flag, shown, dir string) error {
	if dir == "" {
		return nil
	}
	p := filepath.Clean(dir)
	for {
		st, err := os.Stat(p)
		switch {
		case err == nil && !st.IsDir():
			return fmt.Errorf("%s %s: %s is not a directory", flag, shown, p)
		case err == nil:
			return probeWritable(flag, shown, p)
		case errors.Is(err, syscall.ENOTDIR):
			// A parent is a file: the loop reaches it and reports it.
		case !os.IsNotExist(err):
			return fmt.Errorf("%s %s: %v", flag, shown, err)
		default:
			if _, lerr := os.Lstat(p); lerr == nil {
				return fmt.Errorf("%s %s: %s is a symbolic link to nothing", flag, shown, p)
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return fmt.Errorf("%s %s: no existing parent directory", flag, shown)
		}
		p = parent
	}
}

// probeWritable creates and removes a temporary file in the existing
// directory p.
func probeWritable(flag, dir, p string) error {
	f, err := os.CreateTemp(p, ".rtn-write-check-*")
	if err != nil {
		return fmt.Errorf("%s %s: directory %s is not writable", flag, dir, p)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// checkOutPath checks an output that is a file when it has an extension
// (.npz, .csv, .json: its directory must be writable and it must not be
// a directory) and a directory otherwise.
func checkOutPath(flag, path string) error {
	if path == "" {
		return nil
	}
	if filepath.Ext(path) == "" {
		return checkOutDir(flag, path)
	}
	return checkOutFile(flag, path)
}

// checkOutFile checks an output file, whatever its name: it must not be
// a directory, and its directory must be writable (or creatable).
func checkOutFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s %s: is a directory, want a file", flag, path)
	}
	return checkDirFor(flag, path, filepath.Dir(path))
}

// checkNotInput is a usage error naming flag when the output path is the
// same file as one of the inputs (empty names are skipped): writing it
// would destroy the data or model the command reads.
func checkNotInput(flag, out string, inputs ...string) error {
	if out == "" {
		return nil
	}
	so, err := os.Stat(out)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		if si, err := os.Stat(in); err == nil && os.SameFile(so, si) {
			return usagef("%s %s is the input %s: writing it would destroy it", flag, out, in)
		}
	}
	return nil
}

// checkOutput checks an output file (checkOutFile) and that it is none
// of the inputs (checkNotInput). "-" is refused: the commands that can
// write to standard output (writeOut) skip this check for it.
func checkOutput(flag, out string, inputs ...string) error {
	if out == "-" {
		return usagef("%s -: this output is a file, name one", flag)
	}
	if err := checkOutFile(flag, out); err != nil {
		return err
	}
	return checkNotInput(flag, out, inputs...)
}

// sameFile reports whether the paths a and b, both given, name the same
// file: the same absolute path, or the same existing file.
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	aa, errA := filepath.Abs(a)
	ab, errB := filepath.Abs(b)
	if errA == nil && errB == nil && aa == ab {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// checkStdoutOrFile is checkOutput for an output that writeOut sends to
// standard output when it is "" or "-".
func checkStdoutOrFile(flag, out string, inputs ...string) error {
	if out == "" || out == "-" {
		return nil
	}
	return checkOutput(flag, out, inputs...)
}
