//go:build !unix || openbsd

package memlimit

// addressSpaceLimit is unknown (0) where the syscall package reads no
// RLIMIT_AS.
func addressSpaceLimit() memorySource { return memorySource{} }
