//go:build unix && !openbsd

package memlimit

import "syscall"

// addressSpaceLimit is the address space left under the process's
// RLIMIT_AS (ulimit -v, prlimit --as); unknown (0) when it is unlimited.
func addressSpaceLimit() memorySource {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil {
		return memorySource{}
	}
	return addressSpaceLeft(uint64(r.Cur))
}
