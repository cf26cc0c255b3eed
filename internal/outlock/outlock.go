package outlock

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// LockFile is the name of the lock file in a locked output directory.
const LockFile = ".rtn-lock"

// fileLockSuffix ends the name of the lock file beside a locked output
// file: ".NAME.rtn-lock" for NAME.
const fileLockSuffix = ".rtn-lock"

// maxCommand bounds the characters of the holder's command line quoted
// in a HeldError, so that the message stays on one short line.
const maxCommand = 60

// errHeld is what lockFile returns when another open file holds the lock.
var errHeld = errors.New("outlock: held")

// Holder describes the run holding a lock, as written in the lock file.
type Holder struct {
	// PID is the holder's process ID.
	PID int `json:"pid"`
	// Host is the name of the holder's machine.
	Host string `json:"host"`
	// Command is the holder's command line.
	Command string `json:"command"`
	// Started is when the holder took the lock.
	Started time.Time `json:"started"`
}

// HeldError is the error of Acquire when another run holds the lock on
// one of the outputs.
type HeldError struct {
	// Path is the output directory or file.
	Path string
	// Dir is true when Path is a directory.
	Dir bool
	// LockFile is the lock file's path.
	LockFile string
	// Holder is the run holding the lock; its PID is 0 when the lock
	// file names none (a holder that has not yet written it).
	Holder Holder
}

func (e *HeldError) Error() string {
	what := "file"
	if e.Dir {
		what = "directory"
	}
	h := e.Holder
	if h.PID == 0 {
		return fmt.Sprintf("output %s %s is in use by another run (its lock file %s names no holder)", what, e.Path, e.LockFile)
	}
	where := ""
	if h.Host != "" && h.Host != hostname() {
		where = " on host " + h.Host
	}
	return fmt.Sprintf("output %s %s is in use by another run: PID %d%s (%s); wait for it to end or choose another %s",
		what, e.Path, h.PID, where, shorten(h.Command, maxCommand), what)
}

// Lock holds the exclusive locks on a run's outputs until Release.
type Lock struct {
	mu   sync.Mutex
	held []held
}

// held is one lock taken: the open lock file, its path, and the
// directory that Acquire created for it, if any (removed by Release when
// the run left it empty).
type held struct {
	f        *os.File
	lockPath string
	dir      string
	created  string
}

// Acquire takes the exclusive lock on each output directory in dirs and
// each output file in files (empty names and repeats are skipped),
// creating the missing directories. It fails with a *HeldError when
// another run, in this process or another, holds one of them; the locks
// already taken are then released.
func Acquire(dirs, files []string) (*Lock, error) {
	l := &Lock{}
	seen := map[string]bool{}
	add := func(path string, isDir bool) error {
		if path == "" {
			return nil
		}
		dir, lockName := path, LockFile
		if !isDir {
			dir, lockName = filepath.Dir(path), "."+filepath.Base(path)+fileLockSuffix
		}
		lockPath := filepath.Join(dir, lockName)
		key := canonical(lockPath)
		if seen[key] {
			return nil
		}
		seen[key] = true
		h, err := take(dir, lockPath)
		if errors.Is(err, errHeld) {
			holder, _ := readHolder(lockPath)
			return &HeldError{Path: path, Dir: isDir, LockFile: lockPath, Holder: holder}
		}
		if err != nil {
			return err
		}
		l.held = append(l.held, h)
		return nil
	}
	for _, d := range dirs {
		if err := add(d, true); err != nil {
			l.Release()
			return nil, err
		}
	}
	for _, f := range files {
		if err := add(f, false); err != nil {
			l.Release()
			return nil, err
		}
	}
	return l, nil
}

// take creates dir when missing and takes the lock of lockPath in it.
// A directory that another run's Release removes in between is created
// again.
func take(dir, lockPath string) (held, error) {
	h := held{lockPath: lockPath, dir: dir}
	for attempt := 0; ; attempt++ {
		created, err := mkdirAll(dir)
		if h.created == "" {
			h.created = created
		}
		if err != nil {
			return h, fmt.Errorf("outlock: creating %s: %w", dir, err)
		}
		f, err := lockFile(lockPath)
		if errors.Is(err, os.ErrNotExist) && attempt < 3 {
			continue
		}
		if err != nil {
			h.removeCreated()
			if errors.Is(err, errHeld) {
				return h, err
			}
			return h, fmt.Errorf("outlock: locking %s: %w", lockPath, err)
		}
		h.f = f
		if err := writeHolder(f); err != nil {
			h.release()
			return h, fmt.Errorf("outlock: writing %s: %w", lockPath, err)
		}
		return h, nil
	}
}

// Release releases the locks and removes their lock files, and the
// directories Acquire created that are still empty. It may be called
// more than once, and on a nil Lock.
func (l *Lock) Release() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.held) - 1; i >= 0; i-- {
		l.held[i].release()
	}
	l.held = nil
}

// release removes the lock file before unlocking it, so that a run that
// opened the file in between finds it gone (lockFile checks) rather than
// holding a lock on a file nobody else sees.
func (h *held) release() {
	os.Remove(h.lockPath)
	h.f.Close()
	h.removeCreated()
}

// removeCreated removes the directories Acquire created for the lock,
// from the deepest up, while they are empty.
func (h *held) removeCreated() {
	if h.created == "" {
		return
	}
	for d := filepath.Clean(h.dir); ; d = filepath.Dir(d) {
		if os.Remove(d) != nil || d == h.created || d == filepath.Dir(d) {
			return
		}
	}
}

// mkdirAll creates dir and its missing parents, and returns the topmost
// directory it created ("" when dir existed).
func mkdirAll(dir string) (string, error) {
	created := ""
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		created = d
	}
	if created == "" {
		return "", nil
	}
	return created, os.MkdirAll(dir, 0o755)
}

// canonical is the absolute path of p with the symbolic links of its
// directory resolved, so that two names of one lock file are one key.
func canonical(p string) string {
	dir, base := filepath.Split(p)
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	if a, err := filepath.Abs(filepath.Join(dir, base)); err == nil {
		return a
	}
	return filepath.Join(dir, base)
}

// writeHolder writes this process as the holder into the locked file f.
func writeHolder(f *os.File) error {
	b, err := json.Marshal(Holder{PID: os.Getpid(), Host: hostname(), Command: command(), Started: time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteAt(append(b, '\n'), 0)
	return err
}

// readHolder reads the holder from a lock file, waiting briefly for a
// holder that has locked the file but not yet written it.
func readHolder(path string) (Holder, bool) {
	const tries, wait = 50, 2 * time.Millisecond
	for range tries {
		var h Holder
		b, err := os.ReadFile(path)
		if err == nil && json.Unmarshal(b, &h) == nil && h.PID > 0 {
			return h, true
		}
		time.Sleep(wait)
	}
	return Holder{}, false
}

// hostname is this machine's name ("" when unknown).
var hostname = sync.OnceValue(func() string {
	h, _ := os.Hostname()
	return h
})

// command is this process's command line, the program by its base name.
func command() string {
	if len(os.Args) == 0 {
		return ""
	}
	args := append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...)
	return strings.Join(args, " ")
}

// shorten cuts s to n characters, ending in "..." when cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-3]) + "..."
}
