package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rtnlab/rtn/internal/memlimit"
)

// TestMemoryLimitEnvEveryCommand sets each bad value of the issue and
// runs every command: each refuses it as a usage error naming the
// variable, before anything else (rtn train used to accept 12Q).
func TestMemoryLimitEnvEveryCommand(t *testing.T) {
	for _, v := range []string{"99999999999999999999T", "12Q", "-5G"} {
		t.Setenv(memlimit.Env, v)
		for name := range commands {
			if name == "version" {
				continue
			}
			_, stderr, code := invoke(name, "-h")
			if code != 2 || !strings.Contains(stderr, memlimit.Env+`="`+v+`"`) {
				t.Errorf("%s=%s rtn %s: exit %d, %q; want 2 naming the variable", memlimit.Env, v, name, code, stderr)
			}
		}
		if _, _, code := invoke("train", "-epochs", "1", "-quiet"); code != 2 {
			t.Errorf("%s=%s rtn train: exit %d, want 2", memlimit.Env, v, code)
		}
	}
}

// TestWFAUnderAddressSpaceLimit runs wfa learn and wfa sweep in a process
// whose address space is limited (ulimit -v, as prlimit --as), on
// PAutomaC headers declaring large alphabets over 3 strings: the issue's
// 2^24 symbols under 8 GB (they died with "fatal error: runtime: out of
// memory"), and alphabets whose estimates, about 3.5 GiB, pass 4 GB less
// what the process maps but fit the physical memory of any test
// machine. Each is refused with status 1 and one line, naming the
// address space when it is the smallest limit.
func TestWFAUnderAddressSpaceLimit(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil || runtime.GOOS != "linux" {
		t.Skip("needs /bin/sh and /proc/self/status")
	}
	dir := t.TempDir()
	t.Setenv(memlimit.Env, "")
	others, _, err := memlimit.Limit() // the address space of this process is not limited
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, memlimit.Env+"=") {
			env = append(env, e)
		}
	}
	for _, tc := range []struct {
		command      string
		symbols      int
		limit, needs float64
	}{
		{"learn", 1 << 24, 8e9, 1 << 40},
		{"sweep", 1 << 24, 8e9, 1 << 40},
		{"learn", 1500, 4e9, 3.5 * (1 << 30)},  // 8 (64 + 4 R^2 + 2 (8 R)^2) bytes a symbol, R = 50
		{"sweep", 30000, 4e9, 3.3 * (1 << 30)}, // 8 (64 + 4 R^2 + 2 R^2)
	} {
		// Short relative names keep the message's end within its 200 characters.
		train := strconv.Itoa(tc.symbols)
		if err := os.WriteFile(filepath.Join(dir, train), []byte("3 "+train+"\n2 1 2\n1 5\n3 1 2 3\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"wfa", tc.command, "-train", train}
		if tc.command == "learn" {
			args = append(args, "-out", "m.json")
		}
		kb := strconv.Itoa(int(tc.limit / 1024))
		cmd := exec.Command("/bin/sh", append([]string{"-c", `ulimit -v "$0" && exec "$@"`, kb, os.Args[0]}, args...)...)
		cmd.Dir, cmd.Env = dir, append(env, "RTN_TEST_MAIN=1")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := 0
		if err := cmd.Run(); err != nil {
			code = -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
		}
		msg := stderr.String()
		if code != 1 || stdout.Len() > 0 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "needs about") {
			t.Errorf("%v under ulimit -v %s: exit %d, stdout %q, stderr %q; want 1 and one line", args, kb, code, stdout.String(), msg)
			continue
		}
		if others > tc.needs && !strings.Contains(msg, "(address space left under ulimit -v") {
			t.Errorf("%v under ulimit -v %s: %q does not name the address-space limit", args, kb, msg)
		}
	}
}
