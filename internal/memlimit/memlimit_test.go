package memlimit

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
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
		if got, err := Parse(tc.v); err != nil || got != tc.want {
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
		if got, err := Parse(v); err == nil {
			t.Errorf("%q: accepted as %v", v, got)
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
