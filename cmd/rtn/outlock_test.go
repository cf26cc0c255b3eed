package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rtnlab/rtn/internal/outlock"
	"github.com/rtnlab/rtn/runs"
)

// lockedCase is a command line whose output (a directory, or a file
// when file is true) another run holds.
type lockedCase struct {
	name string
	args []string
	path string
	file bool
}

// lockedCases are the commands that write an output directory or a
// model with its checkpoint and metrics, each with inputs that let it
// reach its lock.
func lockedCases(t *testing.T) []lockedCase {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, "out-"+name) }
	data, specModel := at("d.csv"), at("m.npz")
	spectralJSON(t, "-method", "ls", "-n", "60", "-seed", "6", "-noise", "0.1", "-save-data", data, "-out", specModel)
	train, wfaModel := finetuneStart(t, dir)
	shard := at("shard")
	if err := os.MkdirAll(shard, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shard, "plan.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	finetune := []string{"wfa", "finetune", "-model", wfaModel, "-train", train, "-epochs", "1", "-quiet"}
	return []lockedCase{
		{"train", []string{"train", "-epochs", "1", "-quiet", "-out", at("train")}, at("train"), false},
		{"umps train", []string{"umps", "train", "-bond", "2", "-epochs", "1", "-train", "20", "-valid", "10", "-quiet", "-out", at("umps")}, at("umps"), false},
		{"pcnn", []string{"pcnn", "-task", "anbn", "-size", "2", "-units", "4", "-passes", "4", "-quiet", "-out", at("pcnn")}, at("pcnn"), false},
		{"pretrain", []string{"pretrain", "-hidden", "5", "-epochs", "0", "-out", at("pre")}, at("pre"), false},
		{"pretrain run", []string{"pretrain", "-hidden", "5", "-epochs", "0", "-out", at("pre2")}, filepath.Join(at("pre2"), "autoenc"), false},
		{"spectral model directory", []string{"spectral", "-method", "ls", "-n", "300", "-out", at("spec")}, at("spec"), false},
		{"spectral model file", []string{"spectral", "-method", "ls", "-n", "300", "-out", at("s.npz")}, at("s.npz"), true},
		{"spectral save-data", []string{"spectral", "-method", "ls", "-n", "300", "-save-data", at("s.csv")}, at("s.csv"), true},
		{"spectral data", []string{"spectral", "-data", data, "-method", "ls", "-out", at("specdata")}, at("specdata"), false},
		{"spectral sweep", []string{"spectral", "-sweep", "-ns", "20", "-noises", "0", "-methods", "ls", "-ranks", "2", "-seeds", "1", "-quiet", "-out", at("sweep")}, at("sweep"), false},
		{"spectral finetune", []string{"spectral", "finetune", "-model", specModel, "-data", data, "-epochs", "1", "-out", at("tune")}, at("tune"), false},
		{"compare", append(append([]string{}, tinyCompare...), "-out", at("cmp")), at("cmp"), false},
		{"compare merge out", []string{"compare", "merge", "-out", at("merged"), shard}, at("merged"), false},
		{"compare merge shard", []string{"compare", "merge", "-out", at("merged2"), shard}, shard, false},
		{"reproduce", []string{"reproduce", "-only", "rnn-lstm", "-quiet", "-out", at("repro")}, at("repro"), false},
		{"wfa learn", []string{"wfa", "learn", "-train", train, "-rank", "2", "-lrows", "2", "-out", at("w.json")}, at("w.json"), true},
		{"wfa finetune out", append(append([]string{}, finetune...), "-out", at("f.json")), at("f.json"), true},
		{"wfa finetune checkpoint", append(append([]string{}, finetune...), "-checkpoint", at("c.npz")), at("c.npz"), true},
		{"wfa finetune metrics", append(append([]string{}, finetune...), "-metrics", at("m.jsonl")), at("m.jsonl"), true},
	}
}

// TestOutputLocked holds the lock of each command's output and runs the
// command: it is refused with status 1 and one line naming the output and
// the holder (this process), and writes nothing.
func TestOutputLocked(t *testing.T) {
	pid := "PID " + strconv.Itoa(os.Getpid())
	for _, tc := range lockedCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			dirs, files := []string{tc.path}, []string(nil)
			if tc.file {
				dirs, files = nil, dirs
			}
			lock, err := runs.LockOutputs(dirs, files)
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Release()
			before := listDir(t, filepath.Dir(tc.path)) + listDir(t, tc.path)
			stdout, stderr, code := invoke(tc.args...)
			if code != 1 || stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and nothing on stdout", code, stdout, stderr)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.path+" is in use by another run: "+pid) {
				t.Errorf("stderr %q, want one line naming %s and %s", stderr, tc.path, pid)
			}
			if after := listDir(t, filepath.Dir(tc.path)) + listDir(t, tc.path); after != before {
				t.Errorf("the refused run wrote: %s, then %s", before, after)
			}
		})
	}
}

// listDir lists the names in dir ("" when it is not a directory).
func listDir(t *testing.T, dir string) string {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return dir + ": " + strings.Join(names, " ") + "; "
}

// TestKilledRunLockTakenOver starts rtn train in another process and,
// once it has finished an epoch, runs a second train on the same -out:
// refused, naming the first's PID and command. Then it kills the first
// (SIGKILL: no clean-up) and runs train again, which takes the lock over
// and finishes.
func TestKilledRunLockTakenOver(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	first := exec.Command(os.Args[0], "train", "-model", "rnn", "-hidden", "4", "-epochs", "100000", "-quiet", "-out", out)
	first.Env = append(os.Environ(), "RTN_TEST_MAIN=1")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	lockPath := filepath.Join(out, outlock.LockFile)
	deadline := time.Now().Add(time.Minute)
	for {
		var h outlock.Holder
		b, _ := os.ReadFile(lockPath)
		_, ckErr := os.Stat(filepath.Join(out, "checkpoint.npz"))
		if json.Unmarshal(b, &h) == nil && h.PID == first.Process.Pid && ckErr == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no lock and checkpoint of PID %d in %s after a minute (lock file %q)", first.Process.Pid, out, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	second := []string{"train", "-model", "rnn", "-hidden", "4", "-epochs", "1", "-quiet", "-out", out}
	_, stderr, code := invoke(second...)
	if code != 1 || !strings.Contains(stderr, "PID "+strconv.Itoa(first.Process.Pid)+" (") || !strings.Contains(stderr, " train -model rnn") {
		t.Fatalf("second run on a held -out: exit %d, %q; want 1 naming PID %d and its command", code, stderr, first.Process.Pid)
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	if _, err := os.Stat(lockPath); err != nil {
		t.Fatalf("the killed run left no lock file: %v", err)
	}
	if _, stderr, code := invoke(second...); code != 0 {
		t.Fatalf("after the holder was killed: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(lockPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file stayed after the run: %v", err)
	}
}
