package outlock

// running reports whether a process of this ID may run on this host:
// Plan 9 gives no way to ask, so a lock file stays until removed by hand.
func running(pid int) bool { return true }
