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
	if dir == "" {
		return nil
	}
	p := filepath.Clean(dir)
	for {
		st, err := os.Stat(p)
		switch {
		case err == nil && !st.IsDir():
			return fmt.Errorf("%s %s: %s is not a directory", flag, dir, p)
		case err == nil:
			return probeWritable(flag, dir, p)
		case errors.Is(err, syscall.ENOTDIR):
			// A parent is a file: the loop reaches it and reports it.
		case !os.IsNotExist(err):
			return fmt.Errorf("%s %s: %v", flag, dir, err)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return fmt.Errorf("%s %s: no existing parent directory", flag, dir)
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
