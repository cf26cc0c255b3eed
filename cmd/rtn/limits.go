package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Every command estimates, from its flags and inputs, the memory its
// biggest allocations need, and refuses before allocating when the
// estimate passes the memory available to the process: the cgroup limit
// (memory.max, or memory.limit_in_bytes under cgroup v1) or else the
// physical memory, overridden by the environment variable
// RTN_MEMORY_LIMIT (bytes, with an optional K, M, G or T suffix in
// powers of 1024; "off" turns the check off).

// memoryLimitEnv names the environment variable that overrides the
// memory limit.
const memoryLimitEnv = "RTN_MEMORY_LIMIT"

// memoryLimit returns the bytes the process may use and where the figure
// comes from; +Inf when nothing is known or the check is off.
func memoryLimit() (float64, string, error) {
	if v := strings.TrimSpace(os.Getenv(memoryLimitEnv)); v != "" {
		b, err := parseBytes(v)
		if err != nil {
			return 0, "", usagef("%s=%q: %v", memoryLimitEnv, v, err)
		}
		return b, memoryLimitEnv, nil
	}
	limit, source := math.Inf(1), ""
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if b, err := strconv.ParseFloat(strings.TrimSpace(string(raw)), 64); err == nil && b > 0 && b < 1<<60 {
			limit, source = b, "cgroup limit"
		}
		break
	}
	if phys := physicalMemory(); phys > 0 && phys < limit {
		limit, source = phys, "physical memory"
	}
	return limit, source, nil
}

// physicalMemory returns MemTotal from /proc/meminfo in bytes, 0 if
// unknown.
func physicalMemory() float64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseFloat(fields[1], 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// parseBytes reads "512M", "8G", "1.5T", "123456" or "off".
func parseBytes(s string) (float64, error) {
	if strings.EqualFold(s, "off") {
		return math.Inf(1), nil
	}
	mult := 1.0
	if n := len(s); n > 0 {
		if i := strings.IndexByte("KMGT", byte(strings.ToUpper(s[n-1:])[0])); i >= 0 {
			mult = math.Pow(1024, float64(i+1))
			s = s[:n-1]
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("want a positive size such as 8G, 512M or off")
	}
	return v * mult, nil
}

// formatBytes prints b with a binary unit, e.g. "12.3 GiB".
func formatBytes(b float64) string {
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

// needMemory fails, naming what (a flag and its value), when bytes
// exceed the memory limit.
func needMemory(what string, bytes float64) error {
	limit, source, err := memoryLimit()
	if err != nil {
		return err
	}
	if bytes <= limit {
		return nil
	}
	return fmt.Errorf("%s needs about %s of memory, above the limit of %s (%s; set %s to change it)",
		what, formatBytes(bytes), formatBytes(limit), source, memoryLimitEnv)
}

// float64s is the size in bytes of n float64 (or int) values.
func float64s(n float64) float64 { return 8 * n }
