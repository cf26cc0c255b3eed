package memlimit

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Env names the environment variable that overrides the memory limit.
const Env = "RTN_MEMORY_LIMIT"

// EnvError is a malformed RTN_MEMORY_LIMIT.
type EnvError struct {
	// Value is the variable's value.
	Value string
	// Err says what is wrong with it.
	Err error
}

// Error names the variable, its value and the fault.
func (e *EnvError) Error() string { return fmt.Sprintf("%s=%q: %v", Env, e.Value, e.Err) }

// Unwrap returns the fault.
func (e *EnvError) Unwrap() error { return e.Err }

// maxMemoryLimit is the largest RTN_MEMORY_LIMIT, 8 EiB: a larger figure
// is a typo, and "off" is the way to turn the check off.
const maxMemoryLimit = 1 << 63

// unlimited is the size from which a cgroup or rlimit value means no
// limit (cgroup v1 writes 2^63 rounded to pages, RLIM_INFINITY is 2^64-1).
const unlimited = 1 << 60

// memorySource is one limit on the memory of the process: its bytes (0
// when unknown or unlimited) and the name the messages give it.
type memorySource struct {
	bytes float64
	name  string
}

// Limit returns the bytes the process may use and where the figure comes
// from (Env, "cgroup limit", "address space left under ulimit -v" or
// "physical memory"); +Inf when nothing is known or the check is off.
func Limit() (float64, string, error) {
	if b, set, err := FromEnv(); set || err != nil {
		return b, Env, err
	}
	b, source := smallestLimit(cgroupLimit("/proc/self/cgroup", "/sys/fs/cgroup"), addressSpaceLimit(), physicalMemory())
	return b, source, nil
}

// FromEnv reads RTN_MEMORY_LIMIT: whether it is set, and its bytes, or
// an *EnvError.
func FromEnv() (float64, bool, error) {
	v := strings.TrimSpace(os.Getenv(Env))
	if v == "" {
		return 0, false, nil
	}
	b, err := Parse(v)
	if err != nil {
		return 0, true, &EnvError{Value: v, Err: err}
	}
	return b, true, nil
}

// smallestLimit is the smallest known limit and its name, +Inf and ""
// when none is known.
func smallestLimit(sources ...memorySource) (float64, string) {
	limit, name := math.Inf(1), ""
	for _, s := range sources {
		if s.bytes > 0 && s.bytes < limit {
			limit, name = s.bytes, s.name
		}
	}
	return limit, name
}

// cgroupLimit reads the memory limit of the process's cgroup, given the
// file listing its cgroups (/proc/self/cgroup) and the cgroup file
// system's root: under cgroup v2 the smallest memory.max of its cgroup
// and those above it, under v1 the same of memory.limit_in_bytes in the
// memory hierarchy.
func cgroupLimit(procFile, root string) memorySource {
	raw, err := os.ReadFile(procFile)
	if err != nil {
		return memorySource{}
	}
	best := memorySource{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		var base, file string
		switch {
		case f[0] == "0" && f[1] == "":
			base, file = root, "memory.max"
		case slices.Contains(strings.Split(f[1], ","), "memory"):
			base, file = filepath.Join(root, "memory"), "memory.limit_in_bytes"
		default:
			continue
		}
		for d := filepath.Join(base, f[2]); ; d = filepath.Dir(d) {
			if b := readLimitFile(filepath.Join(d, file)); b > 0 && (best.bytes == 0 || b < best.bytes) {
				best = memorySource{b, "cgroup limit"}
			}
			if len(d) <= len(base) {
				break
			}
		}
	}
	return best
}

// readLimitFile reads a cgroup limit in bytes: 0 for "max", a figure
// meaning no limit, or a file that is missing or malformed.
func readLimitFile(path string) float64 {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	b, err := strconv.ParseUint(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil || b >= unlimited {
		return 0
	}
	return float64(b)
}

// addressSpaceLeft is the address space the process may still map under
// an RLIMIT_AS of limit bytes: the limit less what /proc/self/status
// counts as mapped (VmSize; nothing where that file is missing).
func addressSpaceLeft(limit uint64) memorySource {
	if limit == 0 || limit >= unlimited {
		return memorySource{}
	}
	left := float64(limit) - statusBytes("/proc/self/status", "VmSize:")
	return memorySource{max(left, 1), "address space left under ulimit -v"}
}

// physicalMemory is MemTotal from /proc/meminfo, unknown (0) where it is
// missing.
func physicalMemory() memorySource {
	return memorySource{statusBytes("/proc/meminfo", "MemTotal:"), "physical memory"}
}

// statusBytes reads the line "key N kB" of a /proc file in bytes, 0 if
// missing.
func statusBytes(path, key string) float64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == key {
			kb, err := strconv.ParseFloat(fields[1], 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// Parse reads RTN_MEMORY_LIMIT, whose whole syntax is: "off"
// (no check), or a byte count (digits), or a number of digits with an
// optional fraction (1.5) followed by K, M, G or T (powers of 1024; either
// case). It must come to at least 1 byte and at most 8 EiB. Anything
// else is an error: a sign, an exponent, another unit, an overflow.
func Parse(s string) (float64, error) {
	const syntax = "want a byte count, or a number with K, M, G or T (powers of 1024), such as 8G or 1.5T, or off"
	if strings.EqualFold(s, "off") {
		return math.Inf(1), nil
	}
	num, mult := s, uint64(1)
	if n := len(s); n > 0 {
		if i := strings.IndexByte("KMGT", s[n-1]&^0x20); i >= 0 && s[n-1] >= 'A' {
			num, mult = s[:n-1], 1<<(10*(i+1))
		}
	}
	whole, frac, hasFrac := strings.Cut(num, ".")
	if !allDigits(whole) || (hasFrac && (mult == 1 || !allDigits(frac))) {
		return 0, errors.New(syntax)
	}
	w, err := strconv.ParseUint(whole, 10, 64)
	if err != nil || w > maxMemoryLimit/mult {
		return 0, fmt.Errorf("above 8 EiB, the largest limit (off turns the check off)")
	}
	b := float64(w * mult)
	if hasFrac {
		f, _ := strconv.ParseFloat("0."+frac, 64)
		b += math.Floor(f * float64(mult))
	}
	switch {
	case b > maxMemoryLimit:
		return 0, fmt.Errorf("above 8 EiB, the largest limit (off turns the check off)")
	case b < 1:
		return 0, fmt.Errorf("below 1 byte (off turns the check off)")
	}
	return b, nil
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FormatBytes prints b with a binary unit, e.g. "12.3 GiB".
func FormatBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.3g %s", b, units[i])
}
