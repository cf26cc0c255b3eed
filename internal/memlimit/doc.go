// Package memlimit reads the memory a process may use, so that a run can
// refuse, before it allocates, sizes that would not fit.
//
// The limit is the smallest of the process's cgroup limit (v2 memory.max,
// v1 memory.limit_in_bytes, up its cgroup tree), the address space left
// under its RLIMIT_AS (ulimit -v, prlimit --as) and the physical memory,
// or the environment variable RTN_MEMORY_LIMIT when it is set (Parse gives
// its syntax):
//
//	limit, source, err := memlimit.Limit()
//	if err != nil {
//		return err // a malformed RTN_MEMORY_LIMIT: an *EnvError
//	}
//	if need > limit {
//		return fmt.Errorf("needs %s, above the %s of %s", memlimit.FormatBytes(need), source, memlimit.FormatBytes(limit))
//	}
package memlimit
