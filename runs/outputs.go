package runs

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// The checks below run before any work, so that an output that cannot be
// written never costs a run: every driver of this package checks its
// outputs with them, and a program that writes its own outputs may call
// CommandOut is the output directory "out/<command>" the command line
// gives a command's Out when -out is not given (rtn compare, rtn
// reproduce); a spec's empty Out writes nothing.
func CommandOut(command string) string { return path.Join("out", command) }

// CheckOutDir, CheckOutFile and CheckOutput. They create nothing: an
// output that does not exist yet needs its nearest existing ancestor to be
// a writable directory.

// PathError is the refusal of an output path before any work. Its
// message names the output by the label given to the check, where spec
// fields are written as {Field}: Named writes them with the caller's
// names (a command line's flags).
type PathError struct {
	// Msg is the message, fields written as {Name}.
	Msg string
	// Usage is true when the path conflicts with the spec's other
	// settings (it names an input or another output, or standard output
	// where a file is needed), false when the file system refuses it.
	Usage bool
}

// Error writes the message with the fields' Go names.
func (e *PathError) Error() string { return e.Named(func(f string) string { return f }) }

// Named writes the message with each field named by name.
func (e *PathError) Named(name func(field string) string) string { return nameFields(e.Msg, name) }

// pathErr is a *PathError of the file system's refusal.
func pathErr(format string, args ...any) error {
	return &PathError{Msg: fmt.Sprintf(format, args...)}
}

// pathUsage is a *PathError of a conflict with the spec's settings.
func pathUsage(format string, args ...any) error {
	return &PathError{Msg: fmt.Sprintf(format, args...), Usage: true}
}

// CheckOutDir refuses dir unless it is (or can be created as) a writable
// directory ("" is no output). The checks name the output by label, its
// spec field written as {Field} ("{Out}"), or the caller's own name for
// it ("-out").
func CheckOutDir(field, dir string) error {
	return checkDirFor(field, dir, dir)
}

// checkDirFor is CheckOutDir of dir with messages naming the output shown
// (dir itself, or a file in it).
func checkDirFor(field, shown, dir string) error {
	if dir == "" {
		return nil
	}
	p := filepath.Clean(dir)
	for {
		st, err := os.Stat(p)
		switch {
		case err == nil && !st.IsDir():
			return pathErr("%s %s: %s is not a directory", field, shown, p)
		case err == nil:
			return probeWritable(field, shown, p)
		case errors.Is(err, syscall.ENOTDIR):
			// A parent is a file: the loop reaches it and reports it.
		case !os.IsNotExist(err):
			return pathErr("%s %s: %v", field, shown, err)
		default:
			if _, lerr := os.Lstat(p); lerr == nil {
				return pathErr("%s %s: %s is a symbolic link to nothing", field, shown, p)
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return pathErr("%s %s: no existing parent directory", field, shown)
		}
		p = parent
	}
}

// probeWritable creates and removes a temporary file in the existing
// directory p.
func probeWritable(field, dir, p string) error {
	f, err := os.CreateTemp(p, ".rtn-write-check-*")
	if err != nil {
		return pathErr("%s %s: directory %s is not writable", field, dir, p)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// CheckOutPath checks an output that is a file when it has an extension
// (.npz, .csv, .json: CheckOutFile) and a directory otherwise
// (CheckOutDir).
func CheckOutPath(field, path string) error {
	if path == "" {
		return nil
	}
	if filepath.Ext(path) == "" {
		return CheckOutDir(field, path)
	}
	return CheckOutFile(field, path)
}

// CheckOutFile checks an output file, whatever its name: it must not be a
// directory, and its directory must be writable (or creatable).
func CheckOutFile(field, path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return pathErr("%s %s: is a directory, want a file", field, path)
	}
	return checkDirFor(field, path, filepath.Dir(path))
}

// CheckNotInput refuses the output out of field when it is the same file
// as one of the inputs (empty names are skipped): writing it would
// destroy the data or model the run reads.
func CheckNotInput(field, out string, inputs ...string) error {
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
			return pathUsage("%s %s is the input %s: writing it would destroy it", field, out, in)
		}
	}
	return nil
}

// CheckOutput checks an output file (CheckOutFile) and that it is none of
// the inputs (CheckNotInput). "-" is refused: an output that may go to
// standard output is checked by CheckStdoutOrFile.
func CheckOutput(field, out string, inputs ...string) error {
	if out == "-" {
		return pathUsage("%s -: this output is a file, name one", field)
	}
	return firstErr(CheckOutFile(field, out), CheckNotInput(field, out, inputs...))
}

// CheckStdoutOrFile is CheckOutput for an output that goes to standard
// output when it is "" or "-".
func CheckStdoutOrFile(field, out string, inputs ...string) error {
	if out == "" || out == "-" {
		return nil
	}
	return CheckOutput(field, out, inputs...)
}

// fileExts are the extensions of the files rtn writes; an output
// directory named with one is most likely meant as a file.
var fileExts = []string{".npz", ".json", ".jsonl", ".csv", ".png"}

// CheckDirOut checks an output directory: one that does not exist yet may
// not be named like a file (run.npz), and it must be writable
// (CheckOutDir).
func CheckDirOut(field, dir string) error {
	if dir == "" {
		return nil
	}
	if dir == "-" {
		return pathUsage("%s -: this output is a directory, name one", field)
	}
	ext := strings.ToLower(filepath.Ext(dir))
	if _, err := os.Stat(dir); os.IsNotExist(err) && ext != "" {
		for _, e := range fileExts {
			if e == ext {
				return pathUsage("%s must name a directory, got the file name %q", field, dir)
			}
		}
	}
	return CheckOutDir(field, dir)
}

// SameFile reports whether the paths a and b, both given, name the same
// file: the same absolute path, or the same existing file.
func SameFile(a, b string) bool {
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

// output is one output of a run: its label in messages and its path.
type output struct{ label, path string }

// checkDistinct refuses two outputs that name the same file.
func checkDistinct(outs ...output) error {
	for i, o := range outs {
		for _, p := range outs[:i] {
			if SameFile(p.path, o.path) {
				return pathUsage("%s and %s name the same file %s", p.label, o.label, o.path)
			}
		}
	}
	return nil
}
