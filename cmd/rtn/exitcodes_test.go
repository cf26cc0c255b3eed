package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rtnlab/rtn/internal/memlimit"
)

// The exit-code table of docs/robustness.md (2 usage, 1 failure, 130
// interrupt), enforced over every command by running the program, as a
// separate process under an 8 GB address-space limit, on generated bad
// inputs: every numeric flag of every command at 0, -1, NaN, Inf and a
// huge value (where that value is wrong: a value a flag accepts is not a
// bad input), malformed files of every format a command reads, conflicting
// flags and bad RTN_MEMORY_LIMIT values. Each case must end, within
// exitTimeout, with its documented status and, for a failure, exactly one
// line on stderr of at most maxMessage characters starting "rtn: " (after
// any "rtn: warning:" lines about the run): no panic or runtime crash, no
// hang, no memory kill, no bad input accepted.
//
// `go test ./cmd/rtn -run TestExitCodes` runs the whole table (about 720
// cases, about 10 s on two cores, run in parallel); with -short a
// deterministic third of it (every third case). Setting
// RTN_EXITCODES_REPORT=FILE writes each case's outcome to FILE instead of
// checking it, to review a new command's cases.

// exitTimeout is the longest a bad input may run: every case is refused
// before work or runs a few steps on tiny data.
const exitTimeout = 60 * time.Second

// addressSpace is the address-space limit (prlimit --as) each case runs
// under, the limit the adversarial run used.
const addressSpace = "8000000000"

// exitCase is one bad command line, its environment, its documented exit
// status and a substring of its message ("" for any). In args, "{out}"
// stands for a fresh directory of the case.
type exitCase struct {
	args []string
	env  []string
	code int
	msg  string
}

func (c exitCase) name() string {
	s := strings.Join(append(slices.Clone(c.env), c.args...), " ")
	s = regexp.MustCompile(`/\S*/`).ReplaceAllString(s, "")
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

func TestExitCodes(t *testing.T) {
	fx := newExitFixtures(t)
	cases := exitCases(t, fx)
	if len(cases) < 300 {
		t.Errorf("%d cases, want at least 300", len(cases))
	}
	if testing.Short() {
		var sub []exitCase
		for i, c := range cases {
			if i%3 == 0 {
				sub = append(sub, c)
			}
		}
		cases = sub
	}
	report := os.Getenv("RTN_EXITCODES_REPORT")
	var (
		mu    sync.Mutex
		lines []string
	)
	if report != "" {
		t.Cleanup(func() {
			slices.Sort(lines)
			if err := os.WriteFile(report, []byte(strings.Join(lines, "")), 0o644); err != nil {
				t.Error(err)
			}
		})
	}
	prlimit, _ := exec.LookPath("prlimit")
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name(), func(t *testing.T) {
				t.Parallel()
				code, stderr, problem := runExitCase(t, prlimit, c)
				if report != "" {
					mu.Lock()
					lines = append(lines, fmt.Sprintf("%d\t%d\t%s\t%s\t%s\t%s\n", code, c.code, strings.Join(c.env, " "), strings.Join(c.args, " "), strings.ReplaceAll(strings.TrimSpace(stderr), "\n", "\\n"), problem))
					mu.Unlock()
					return
				}
				if problem != "" {
					t.Fatalf("%s (stderr %q)", problem, stderr)
				}
				checkExitCase(t, c, code, stderr)
			})
		}
	})
}

// runExitCase runs one case and returns its exit status and stderr, and
// what went wrong beyond them: a hang, a crash, a kill.
func runExitCase(t *testing.T, prlimit string, c exitCase) (int, string, string) {
	out := t.TempDir()
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = strings.ReplaceAll(a, "{out}", out)
	}
	name := os.Args[0]
	if prlimit != "" {
		name, args = prlimit, append([]string{"--as=" + addressSpace, os.Args[0]}, args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), exitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = out
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, memlimit.Env+"=") }), "RTN_TEST_MAIN=1")
	cmd.Env = append(cmd.Env, c.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	se := stderr.String()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return -1, se, fmt.Sprintf("still running after %v", exitTimeout)
	case err == nil:
		return 0, se, ""
	case !errors.As(err, &ee):
		t.Fatal(err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, se, fmt.Sprintf("killed by %v", ws.Signal())
	}
	for _, crash := range []string{"panic:", "goroutine ", "fatal error:", "runtime: out of memory"} {
		if strings.Contains(se, crash) {
			return ee.ExitCode(), se, "crashed (" + crash + ")"
		}
	}
	return ee.ExitCode(), se, ""
}

// checkExitCase checks the status and the one-line message of a case.
func checkExitCase(t *testing.T, c exitCase, code int, stderr string) {
	t.Helper()
	if code != c.code {
		t.Errorf("exit status %d, want %d (stderr %q)", code, c.code, stderr)
	}
	if code == 0 {
		return
	}
	msg := strings.TrimSuffix(stderr, "\n")
	for strings.HasPrefix(msg, "rtn: warning: ") && strings.Contains(msg, "\n") {
		msg = msg[strings.IndexByte(msg, '\n')+1:] // a warning about the run comes before its failure
	}
	switch {
	case strings.Contains(msg, "\n"):
		t.Errorf("stderr holds %d lines, want one: %q", strings.Count(msg, "\n")+1, stderr)
	case !strings.HasPrefix(msg, "rtn: "):
		t.Errorf("message %q does not start with \"rtn: \"", msg)
	case utf8.RuneCountInString(msg) > maxMessage:
		t.Errorf("message of %d characters: %q", utf8.RuneCountInString(msg), msg)
	case !strings.Contains(msg, c.msg):
		t.Errorf("message %q lacks %q", msg, c.msg)
	}
}

// exitCommands lists every command and subcommand of rtn.
var exitCommands = []string{"bench", "compare", "compare merge", "eval", "pcnn", "predict", "pretrain", "reproduce", "sample",
	"spectral", "spectral predict", "spectral finetune", "train", "umps train", "umps sample", "umps prob", "umps complete",
	"umps eval", "umps score", "wfa learn", "wfa sweep", "wfa finetune", "wfa score", "wfa rank", "wfa sample",
	"wfa minimize", "wfa dot", "version"}

// flagKinds returns the numeric flags of a command and their kinds (int,
// uint or float), read from its -h output.
func flagKinds(t *testing.T, cmd string) map[string]string {
	_, stderr, code := invoke(append(strings.Fields(cmd), "-h")...)
	if code != 0 {
		t.Fatalf("rtn %s -h: exit %d", cmd, code)
	}
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\s+-(\S+) (int|uint|float)$`).FindAllStringSubmatch(stderr, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// Values tried for each kind of numeric flag, in the order of the
// expectations in numericExpect.
var (
	intValues   = []string{"0", "-1", "9223372036854775807"}
	uintValues  = []string{"0"}
	floatValues = []string{"0", "-1", "NaN", "Inf", "1e308"}
)
