package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestParseMemoryLimit checks RTN_MEMORY_LIMIT's syntax: the values the
// issue found accepted (an overflow read as "off", an unknown unit, a
// sign) and their neighbours are errors.
func TestParseMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want float64
	}{
		{"1024", 1024}, {"2K", 2048}, {"2k", 2048}, {"1.5G", 1.5 * (1 << 30)}, {"3t", 3 * (1 << 40)},
		{"0.5K", 512}, {"8388608T", 1 << 63}, {"off", math.Inf(1)}, {"OFF", math.Inf(1)},
	} {
		if got, err := parseMemoryLimit(tc.v); err != nil || got != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.v, got, err, tc.want)
		}
	}
	for _, v := range []string{
		"99999999999999999999T", "99999999999999999999", "9000000T", "8388609T", // overflows
		"12Q", "5GB", "5GiB", "5 G", "G", "", "lots", "of", // units
		"-5G", "+5G", "-1", // signs
		"0", "0K", "0.0001K", // below a byte
		"1e9", "0x10", "1_000", "NaN", "Inf", "1.5", "1.G", ".5G", "1..5G", // forms ParseFloat reads
	} {
		if got, err := parseMemoryLimit(v); err == nil {
			t.Errorf("%q: accepted as %v", v, got)
		}
	}
}

// TestMemoryLimitEnvEveryCommand sets each bad value of the issue and
// runs every command: each refuses it as a usage error naming the
// variable, before anything else (rtn train used to accept 12Q).
func TestMemoryLimitEnvEveryCommand(t *testing.T) {
	for _, v := range []string{"99999999999999999999T", "12Q", "-5G"} {
		t.Setenv(memoryLimitEnv, v)
		for name := range commands {
			if name == "version" {
				continue
			}
			_, stderr, code := invoke(name, "-h")
			if code != 2 || !strings.Contains(stderr, memoryLimitEnv+`="`+v+`"`) {
				t.Errorf("%s=%s rtn %s: exit %d, %q; want 2 naming the variable", memoryLimitEnv, v, name, code, stderr)
			}
		}
		if _, _, code := invoke("train", "-epochs", "1", "-quiet"); code != 2 {
			t.Errorf("%s=%s rtn train: exit %d, want 2", memoryLimitEnv, v, code)
		}
	}
}

// TestSmallestLimit checks that the smallest known limit wins, by name.
func TestSmallestLimit(t *testing.T) {
	cg, as, phys := memorySource{8e9, "cgroup limit"}, memorySource{6e9, "address space"}, memorySource{16e9, "physical memory"}
	for _, tc := range []struct {
		sources []memorySource
		want    float64
		name    string
	}{
		{[]memorySource{cg, as, phys}, 6e9, "address space"},
		{[]memorySource{cg, {}, phys}, 8e9, "cgroup limit"},
		{[]memorySource{{}, {}, phys}, 16e9, "physical memory"},
		{[]memorySource{{}, {}, {}}, math.Inf(1), ""},
	} {
		if b, name := smallestLimit(tc.sources...); b != tc.want || name != tc.name {
			t.Errorf("%v: %v %q, want %v %q", tc.sources, b, name, tc.want, tc.name)
		}
	}
}

// TestCgroupLimit reads the limits of cgroup trees written in a
// temporary directory: v2 with a parent stricter than the child, v2
// unlimited, v1 with its "no limit" figure and with a limit.
func TestCgroupLimit(t *testing.T) {
	for _, tc := range []struct {
		name, proc string
		files      map[string]string
		want       float64
	}{
		{"v2 parent", "0::/a/b\n", map[string]string{"a/memory.max": "4000000000\n", "a/b/memory.max": "max\n"}, 4e9},
		{"v2 child", "0::/a/b\n", map[string]string{"a/memory.max": "4000000000\n", "a/b/memory.max": "3000000000\n"}, 3e9},
		{"v2 namespace", "0::/\n", map[string]string{"memory.max": "2000000000\n"}, 2e9},
		{"v2 none", "0::/a\n", map[string]string{"a/memory.max": "max\n"}, 0},
		{"v1 none", "5:cpu,cpuacct:/x\n4:memory:/x\n", map[string]string{"memory/x/memory.limit_in_bytes": "9223372036854771712\n"}, 0},
		{"v1", "4:memory:/x\n", map[string]string{"memory/x/memory.limit_in_bytes": "1073741824\n", "memory/memory.limit_in_bytes": "9223372036854771712\n"}, 1 << 30},
		{"no file", "0::/gone\n", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for f, text := range tc.files {
				p := filepath.Join(root, "fs", f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			proc := filepath.Join(root, "cgroup")
			if err := os.WriteFile(proc, []byte(tc.proc), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := cgroupLimit(proc, filepath.Join(root, "fs")); got.bytes != tc.want {
				t.Errorf("%v, want %v", got, tc.want)
			}
		})
	}
}

// TestAddressSpaceLeft checks the figure under an RLIMIT_AS: unknown when
// unlimited, else the limit less what the process has mapped.
func TestAddressSpaceLeft(t *testing.T) {
	if s := addressSpaceLeft(math.MaxUint64); s.bytes != 0 {
		t.Errorf("unlimited: %v", s)
	}
	const limit = 1 << 50
	s := addressSpaceLeft(limit)
	mapped := statusBytes("/proc/self/status", "VmSize:")
	if runtime.GOOS == "linux" && !(mapped > 0) {
		t.Fatalf("VmSize unread: %v", mapped)
	}
	if s.bytes != limit-mapped || !strings.Contains(s.name, "ulimit -v") {
		t.Errorf("%v, want %v left", s, limit-mapped)
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
	others, _ := smallestLimit(cgroupLimit("/proc/self/cgroup", "/sys/fs/cgroup"), physicalMemory())
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, memoryLimitEnv+"=") {
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
