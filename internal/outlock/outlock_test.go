package outlock

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// holdEnv makes the test binary a process that takes the lock on the
// directory it names, prints "locked" and waits to be killed.
const holdEnv = "OUTLOCK_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		if _, err := Acquire([]string{dir}, nil); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("locked")
		select {}
	}
	os.Exit(m.Run())
}

// heldBy checks that err is a *HeldError on path held by pid, and that
// its message names both.
func heldBy(t *testing.T, err error, path string, pid int) {
	t.Helper()
	var he *HeldError
	if !errors.As(err, &he) {
		t.Fatalf("got %v, want a *HeldError", err)
	}
	if he.Path != path || he.Holder.PID != pid {
		t.Errorf("held %s by PID %d, want %s by %d", he.Path, he.Holder.PID, path, pid)
	}
	msg := err.Error()
	if !strings.Contains(msg, path) || !strings.Contains(msg, "PID "+strconv.Itoa(pid)) {
		t.Errorf("message %q names neither %s nor PID %d", msg, path, pid)
	}
}

// TestSecondHolderRefused takes a lock twice in one process, on a
// directory and on a file: the second is refused naming this process,
// and after Release the lock file is gone and the lock can be taken
// again.
func TestSecondHolderRefused(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct {
		name        string
		dirs, files []string
		path, lock  string
	}{
		{"dir", []string{filepath.Join(tmp, "out")}, nil, filepath.Join(tmp, "out"), filepath.Join(tmp, "out", LockFile)},
		{"file", nil, []string{filepath.Join(tmp, "m.json")}, filepath.Join(tmp, "m.json"), filepath.Join(tmp, ".m.json.rtn-lock")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Acquire(tc.dirs, tc.files)
			if err != nil {
				t.Fatal(err)
			}
			var h Holder
			b, err := os.ReadFile(tc.lock)
			if err != nil || json.Unmarshal(b, &h) != nil || h.PID != os.Getpid() || h.Command == "" || h.Started.IsZero() {
				t.Errorf("lock file %s holds %q (%v)", tc.lock, b, err)
			}
			_, err = Acquire(tc.dirs, tc.files)
			heldBy(t, err, tc.path, os.Getpid())
			l.Release()
			l.Release()
			if _, err := os.Stat(tc.lock); !os.IsNotExist(err) {
				t.Errorf("lock file after Release: %v", err)
			}
			l, err = Acquire(tc.dirs, tc.files)
			if err != nil {
				t.Fatalf("after Release: %v", err)
			}
			l.Release()
		})
	}
}

// TestOutputsApart checks that a directory's lock and the lock of a file
// in it, and the locks of two files, are different locks, and that a
// name given twice is locked once.
func TestOutputsApart(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	l1, err := Acquire([]string{dir, dir + "/"}, []string{a, a})
	if err != nil {
		t.Fatal(err)
	}
	defer l1.Release()
	l2, err := Acquire(nil, []string{b})
	if err != nil {
		t.Fatalf("b.json beside a locked a.json: %v", err)
	}
	l2.Release()
}

// TestFailedAcquireReleases checks that when one output is held, the
// others taken by the same call are released.
func TestFailedAcquireReleases(t *testing.T) {
	tmp := t.TempDir()
	free, busy := filepath.Join(tmp, "free"), filepath.Join(tmp, "busy")
	l, err := Acquire([]string{busy}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	_, err = Acquire([]string{free, busy}, nil)
	heldBy(t, err, busy, os.Getpid())
	l2, err := Acquire([]string{free}, nil)
	if err != nil {
		t.Fatalf("the free directory stayed locked: %v", err)
	}
	l2.Release()
}

// TestCreatedDirectories checks that Acquire creates the missing
// directories and Release removes those left empty, and only those.
func TestCreatedDirectories(t *testing.T) {
	tmp := t.TempDir()
	empty := filepath.Join(tmp, "a", "b", "c")
	l, err := Acquire([]string{empty}, []string{filepath.Join(tmp, "x", "y", "m.json")})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(empty); err != nil || !st.IsDir() {
		t.Fatalf("%s not created: %v", empty, err)
	}
	used := filepath.Join(tmp, "x", "y", "m.json")
	if err := os.WriteFile(used, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	l.Release()
	if _, err := os.Stat(filepath.Join(tmp, "a")); !os.IsNotExist(err) {
		t.Errorf("the empty directories stayed: %v", err)
	}
	if _, err := os.Stat(used); err != nil {
		t.Errorf("the output was removed: %v", err)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("a directory Acquire did not create was removed: %v", err)
	}
}

// TestStaleLockFile checks that a lock file nobody holds (left by a
// process that was killed, or unreadable) is taken over.
func TestStaleLockFile(t *testing.T) {
	for _, content := range []string{`{"pid": 999999999, "host": "gone", "command": "rtn train"}`, "", "not json"} {
		dir := t.TempDir()
		lock := filepath.Join(dir, LockFile)
		if err := os.WriteFile(lock, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Acquire([]string{dir}, nil)
		if err != nil {
			t.Errorf("lock file %q: %v", content, err)
			continue
		}
		if h, ok := readHolder(lock); !ok || h.PID != os.Getpid() {
			t.Errorf("lock file %q: holder %+v after taking it over", content, h)
		}
		l.Release()
	}
}

// TestKilledHolder starts a process that takes the lock, checks that the
// lock is refused naming that process, kills it, and takes the lock.
func TestKilledHolder(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "locked\n" {
		t.Fatalf("the holder printed %q", line)
	}
	_, err = Acquire([]string{dir}, nil)
	heldBy(t, err, dir, cmd.Process.Pid)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err != nil {
		t.Fatalf("the killed holder left no lock file to take over: %v", err)
	}
	l, err := Acquire([]string{dir}, nil)
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	l.Release()
}

// TestConcurrentAcquire lets goroutines race for one directory: exactly
// one gets it, the others are refused. Run it with -race.
func TestConcurrentAcquire(t *testing.T) {
	const racers = 8
	dir := t.TempDir()
	var wg sync.WaitGroup
	start, hold := make(chan struct{}), make(chan struct{})
	results := make(chan error, racers)
	for range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			l, err := Acquire([]string{dir}, nil)
			results <- err
			if err == nil {
				<-hold
				l.Release()
			}
		}()
	}
	close(start)
	won, refused := 0, 0
	for range racers {
		var he *HeldError
		switch err := <-results; {
		case err == nil:
			won++
		case errors.As(err, &he):
			refused++
		default:
			t.Error(err)
		}
	}
	close(hold)
	wg.Wait()
	if won != 1 || refused != racers-1 {
		t.Errorf("%d took the lock and %d were refused, want 1 and %d", won, refused, racers-1)
	}
}
