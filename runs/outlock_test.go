package runs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rtnlab/rtn/internal/outlock"
)

// TestTrainOutputLocked runs Train on an output directory another run
// holds: refused with a *LockedError naming this process, before any
// file is written; once the holder releases it, the run goes through and
// leaves no lock file.
func TestTrainOutputLocked(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	spec := TrainSpec{Model: "rnn", Hidden: 4, Epochs: 1, Out: out}
	lock, err := LockOutputs([]string{out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Train(spec)
	var le *LockedError
	if !errors.As(err, &le) || le.Path != out || le.Holder.PID != os.Getpid() {
		t.Fatalf("got %v, want a *LockedError on %s held by PID %d", err, out, os.Getpid())
	}
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		t.Errorf("the refused run wrote into %s: %v", out, ents)
	}
	lock.Release()
	if _, err := Train(spec); err != nil {
		t.Fatalf("after Release: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "result.json")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(out, outlock.LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file stayed: %v", err)
	}
}

// TestLockModel checks which output a saved spectral model locks: its
// directory, or its .npz file, and the data file beside it.
func TestLockModel(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ model, data, held string }{
		{filepath.Join(dir, "m"), "", filepath.Join(dir, "m")},
		{filepath.Join(dir, "m.npz"), "", filepath.Join(dir, "m.npz")},
		{"", filepath.Join(dir, "d.csv"), filepath.Join(dir, "d.csv")},
	} {
		lock, err := lockModel(tc.model, tc.data)
		if err != nil {
			t.Fatal(err)
		}
		_, err = lockModel(tc.model, tc.data)
		var le *LockedError
		if !errors.As(err, &le) || le.Path != tc.held {
			t.Errorf("%q, %q: second lock %v, want one on %s", tc.model, tc.data, err, tc.held)
		}
		lock.Release()
	}
}
